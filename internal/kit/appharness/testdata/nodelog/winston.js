// An order service on express, logging with winston and express-winston,
// for idem's capture harness. Usage: node winston.js LOG LEDGER NAME
// express-winston writes one line per request when it has been answered:
// the request (with its headers and body) and the response under meta,
// responseTime in milliseconds. Prints "listening PORT" once it serves.
'use strict'
const { Writable } = require('node:stream')
const express = require('express')
const winston = require('winston')
const expressWinston = require('express-winston')
const { Orders, syncStream } = require('./orders')

const [logPath, ledgerPath, name] = process.argv.slice(2)
const out = syncStream(logPath)
const stream = new Writable({ write (chunk, _enc, done) { out.write(chunk.toString()); done() } })
const logger = winston.createLogger({
  format: winston.format.combine(winston.format.timestamp(), winston.format.json()),
  transports: [new winston.transports.Stream({ stream })]
})
const orders = new Orders(name, ledgerPath)
const app = express()
app.use(express.json())
app.use(expressWinston.logger({
  winstonInstance: logger,
  meta: true,
  requestWhitelist: ['url', 'headers', 'method', 'httpVersion', 'originalUrl', 'query', 'body'],
  responseWhitelist: ['statusCode', 'body']
}))
app.post('/v1/orders', (req, res) => {
  const delay = Number(req.get('x-harness-delay-ms') || 0)
  setTimeout(() => {
    const key = req.get('idempotency-key') || ''
    const rid = req.get('x-request-id') || ''
    const d = orders.place(key, req.body)
    if (d.status === 422) {
      logger.warn('idempotency key reused with another payload', { request_id: rid, idempotency_key: key, fingerprint: d.fp })
      res.status(422).json({ error: 'payload mismatch' })
    } else {
      if (d.created) {
        logger.info('order created', { request_id: rid, idempotency_key: key || undefined, fingerprint: d.fp, order_id: d.orderId })
      } else {
        logger.info('order replayed', { request_id: rid, idempotency_key: key, fingerprint: d.fp, order_id: d.orderId, decision: 'replay' })
        res.set('Idempotent-Replayed', 'true')
      }
      res.status(201).json({ order_id: d.orderId })
    }
    orders.after(res, () => orders.record(req.get('x-harness-step'), rid, key, d))
  }, delay)
})
const server = app.listen(0, '127.0.0.1', () => process.stdout.write(`listening ${server.address().port}\n`))
process.on('SIGTERM', () => server.close(() => process.exit(0)))
