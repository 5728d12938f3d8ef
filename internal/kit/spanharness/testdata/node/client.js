'use strict';
// The client: sends the harness's steps (STEPS, JSON) to BASE one after
// another, each attempt of a user action inside the action's span, so
// that an action's attempts are spans of one trace. After a step it gave
// up on, it waits until the service's ledger (LEDGER) records the step,
// so that the retry finds the first attempt's order. It prints what it
// sent, as the harness records it (capture.Sent), as JSON.
const provider = require('./tracing')('checkout-web');
const http = require('http');
const fs = require('fs');
const { trace, context } = require('@opentelemetry/api');

const tracer = trace.getTracer('checkout-web');
const steps = JSON.parse(process.env.STEPS);
const route = '/v1/orders';

function send(step) {
  return new Promise((resolve) => {
    const sent = {
      step: step.name, layer: 'client', method: 'POST', path: route, key: step.key, body: step.body,
      delay_ms: step.delay / 1e6, timeout_ms: step.timeout / 1e6,
    };
    const start = new Date();
    const req = http.request(process.env.BASE + route, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json', 'Idempotency-Key': step.key,
        'X-Harness-Step': step.name, 'X-Harness-Delay-Ms': String(step.delay / 1e6),
      },
      signal: AbortSignal.timeout(step.timeout / 1e6),
    });
    sent.traceparent = req.getHeader('traceparent');
    sent.start = start.toISOString();
    req.on('response', (res) => {
      let text = '';
      res.on('data', (d) => { text += d; });
      res.on('end', () => {
        sent.end = new Date().toISOString();
        sent.ended = 'response';
        sent.status = res.statusCode;
        sent.response = text.slice(0, 512);
        try { sent.result_id = JSON.parse(text).order_id; } catch { /* not JSON */ }
        sent.replayed = res.headers['idempotent-replayed'] === 'true';
        resolve(sent);
      });
    });
    req.on('error', (err) => {
      sent.end = new Date().toISOString();
      const timedOut = err.name === 'TimeoutError' || (err.cause && err.cause.name === 'TimeoutError');
      sent.ended = timedOut ? 'timeout' : 'error';
      sent.error = timedOut ? 'timeout' : String(err);
      resolve(sent);
    });
    req.end(step.body);
  });
}

async function recorded(step) {
  for (let i = 0; i < 500; i++) {
    const ledger = fs.existsSync(process.env.LEDGER) ? fs.readFileSync(process.env.LEDGER, 'utf8') : '';
    if (ledger.split('\n').some((l) => l && JSON.parse(l).step === step)) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`the service did not record ${step}`);
}

(async () => {
  const out = [];
  let action = null;
  let ctx = context.active();
  for (let i = 0; i < steps.length; i++) {
    const step = steps[i];
    if (i === 0 || step.action !== steps[i - 1].action) {
      if (action) action.end();
      action = tracer.startSpan(step.action);
      ctx = trace.setSpan(context.active(), action);
    }
    out.push(await context.with(ctx, () => send(step)));
    await recorded(step.name);
  }
  action.end();
  await provider.shutdown();
  process.stdout.write(JSON.stringify(out) + '\n');
})().catch((err) => { console.error(err); process.exit(1); });
