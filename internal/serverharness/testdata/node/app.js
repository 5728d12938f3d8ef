// An order service as express-idempotency's README wires it, logging with
// pino-http, for idem's server harness. Usage: node app.js LOG LEDGER PORT
// pino-http takes the request id from X-Request-Id (nginx passes it on);
// every access line carries payload_hash, the body's SHA-256, so a key
// reused with another body shows. The ledger gets one line per effect.
// It serves 127.0.0.1:PORT.
'use strict'
const fs = require('node:fs')
const { createHash, randomUUID } = require('node:crypto')
const express = require('express')
const { idempotency, getSharedIdempotencyService } = require('express-idempotency')
const pino = require('pino')
const pinoHttp = require('pino-http')

const [logPath, ledgerPath, port] = process.argv.slice(2)
const logger = pino(pino.destination({ dest: logPath, sync: true }))
const hash = (body) => 'sha256:' + createHash('sha256').update(JSON.stringify(body)).digest('hex')

const app = express()
app.use(pinoHttp({
  logger,
  genReqId: (req, res) => {
    const id = req.headers['x-request-id'] || randomUUID()
    res.setHeader('X-Request-Id', id)
    return id
  },
  // Called again when the response ends, once express.json has read the body.
  customProps: (req) => (req.body && Object.keys(req.body).length ? { payload_hash: hash(req.body) } : {})
}))
// README: the idempotency middleware after the body parser.
app.use(express.json())
app.post('*', idempotency())

let n = 0
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))
app.post('/v1/orders', async (req, res) => {
  // README: a replay is already answered; the route must not run again.
  if (getSharedIdempotencyService().isHit(req)) return
  await sleep(Number(req.headers['x-harness-delay-ms'] || 0))
  const id = 'ord_' + (++n)
  const key = req.headers['idempotency-key'] || undefined
  req.log.info({ order_id: id, idempotency_key: key }, 'order created')
  fs.appendFileSync(ledgerPath, JSON.stringify({ step: req.headers['x-harness-step'], request_id: req.id, key, order_id: id }) + '\n')
  res.status(201).json({ order_id: id, sku: req.body.sku })
})

const server = app.listen(Number(port), '127.0.0.1')
process.on('SIGTERM', () => server.close(() => process.exit(0)))
