// An order service logging with pino and pino-http, for idem's capture
// harness. Usage: node server.js LOG LEDGER NAME [header]
// With "header", pino-http's genReqId uses the propagated X-Request-Id (a
// new UUID when there is none); without it, pino-http's default: a
// per-process counter. Prints "listening PORT" once it serves 127.0.0.1.
'use strict'
const http = require('node:http')
const fs = require('node:fs')
const { randomUUID } = require('node:crypto')
const pino = require('pino')
const pinoHttp = require('pino-http')

const [logPath, ledgerPath, name, mode] = process.argv.slice(2)
const logger = pino(pino.destination({ dest: logPath, sync: true }))
const opts = { logger }
if (mode === 'header') {
  opts.genReqId = (req, res) => {
    const id = req.headers['x-request-id'] || randomUUID()
    res.setHeader('X-Request-Id', id)
    return id
  }
}
const httpLogger = pinoHttp(opts)
// Order ids as a database makes them: unique across the service's processes.
const prefix = 'ord_' + name.replace(/-/g, '_')
const byKey = new Map()
let n = 0

const server = http.createServer((req, res) => {
  httpLogger(req, res)
  if (req.method !== 'POST' || req.url !== '/v1/orders') {
    res.statusCode = 404
    res.end()
    return
  }
  req.resume()
  req.on('end', () => {
    const delay = Number(req.headers['x-harness-delay-ms'] || 0)
    setTimeout(() => place(req, res), delay)
  })
})

function place (req, res) {
  const key = req.headers['idempotency-key'] || ''
  let id = key ? byKey.get(key) : undefined
  const created = id === undefined
  if (created) {
    id = `${prefix}_${++n}`
    if (key) byKey.set(key, id)
    req.log.info({ order_id: id, idempotency_key: key || undefined }, 'order created')
  } else {
    req.log.info({ order_id: id, idempotency_key: key, decision: 'replay' }, 'order replayed')
  }
  const done = { step: req.headers['x-harness-step'], request_id: String(req.id), key, order_id: id, created, status: 201 }
  // After pino-http's own listener: the ledger records a step once its
  // access line is written.
  const record = () => fs.appendFileSync(ledgerPath, JSON.stringify(done) + '\n')
  if (res.destroyed || res.closed) {
    record()
  } else {
    res.once('close', record)
  }
  res.statusCode = 201
  res.setHeader('Content-Type', 'application/json')
  if (!created) res.setHeader('Idempotent-Replayed', 'true')
  res.end(JSON.stringify({ order_id: id }))
}

server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`listening ${server.address().port}\n`)
})
process.on('SIGTERM', () => server.close(() => process.exit(0)))
