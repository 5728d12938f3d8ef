// An order service on restify, logging with bunyan (restify's request
// logger and its audit logger), for idem's capture harness.
// Usage: node restify.js LOG LEDGER NAME
// restify names each request (req_id) after its X-Request-Id
// (plugins.pre.reqIdHeaders); the audit logger writes one line per request
// when it has been answered, latency in milliseconds. Prints
// "listening PORT" once it serves 127.0.0.1.
'use strict'
const restify = require('restify')
const bunyan = require('bunyan')
const { Orders, syncStream } = require('./orders')

const [logPath, ledgerPath, name] = process.argv.slice(2)
const log = bunyan.createLogger({ name: 'orders', streams: [{ level: 'info', stream: syncStream(logPath) }], serializers: bunyan.stdSerializers })
const orders = new Orders(name, ledgerPath)
const server = restify.createServer({ name: 'orders', log })
server.pre(restify.plugins.pre.reqIdHeaders({ headers: ['x-request-id'] }))
server.use(restify.plugins.requestLogger())
server.use(restify.plugins.bodyParser())
server.post('/v1/orders', (req, res, next) => {
  const delay = Number(req.header('x-harness-delay-ms') || 0)
  setTimeout(() => {
    const key = req.header('idempotency-key') || ''
    const d = orders.place(key, req.body)
    if (d.status === 422) {
      req.log.warn({ idempotency_key: key, fingerprint: d.fp }, 'idempotency key reused with another payload')
      res.send(422, { error: 'payload mismatch' })
    } else {
      if (d.created) {
        req.log.info({ idempotency_key: key || undefined, fingerprint: d.fp, order_id: d.orderId }, 'order created')
      } else {
        req.log.info({ idempotency_key: key, fingerprint: d.fp, order_id: d.orderId, decision: 'replay' }, 'order replayed')
        res.header('Idempotent-Replayed', 'true')
      }
      res.send(201, { order_id: d.orderId })
    }
    orders.after(res, () => orders.record(req.header('x-harness-step'), req.getId(), key, d))
    next()
  }, delay)
})
server.on('after', restify.plugins.auditLogger({ log, event: 'after', body: true }))
server.listen(0, '127.0.0.1', () => process.stdout.write(`listening ${server.address().port}\n`))
process.on('SIGTERM', () => server.close(() => process.exit(0)))
