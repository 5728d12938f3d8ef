'use strict';
// The order service: POST /v1/orders makes an order, or replays the order
// of an Idempotency-Key it has seen, after the work the request asks for
// (X-Harness-Delay-Ms; not cut short when the client goes). It records
// what it did in the harness's ledger (LEDGER), and says "listening PORT"
// once it listens on 127.0.0.1.
const provider = require('./tracing')('orders-api');
const http = require('http');
const fs = require('fs');
const { trace } = require('@opentelemetry/api');

const byKey = new Map();
let n = 0;

const server = http.createServer((req, res) => {
  const span = trace.getActiveSpan();
  req.resume();
  req.on('end', () => {
    const delay = Number(req.headers['x-harness-delay-ms'] || 0);
    setTimeout(() => {
      const key = req.headers['idempotency-key'] || '';
      let id = byKey.get(key);
      const created = id === undefined;
      if (created) {
        id = `ord_node_${++n}`;
        byKey.set(key, id);
        span.addEvent('order created', { 'order.id': id });
      }
      span.setAttribute('order.id', id);
      const sc = span.spanContext();
      fs.appendFileSync(process.env.LEDGER, JSON.stringify({
        step: req.headers['x-harness-step'] || '', request_id: `${sc.traceId}/${sc.spanId}`, key, order_id: id, created, status: 201,
      }) + '\n');
      const headers = { 'Content-Type': 'application/json' };
      if (!created) headers['Idempotent-Replayed'] = 'true';
      res.writeHead(201, headers);
      res.end(JSON.stringify({ order_id: id }));
    }, delay);
  });
});

server.listen(0, '127.0.0.1', () => console.log(`listening ${server.address().port}`));
process.on('SIGTERM', () => {
  server.close();
  provider.shutdown().finally(() => process.exit(0));
});
