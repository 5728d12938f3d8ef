// What the harness's apps share around their idempotency library: pino-http
// request logging, the order route and its ledger, and the listener.
// pino-http takes the request id from X-Request-Id (nginx passes it on);
// every access line carries payload_hash, the body's SHA-256, so a key
// reused with another body shows. The ledger gets one line per effect.
'use strict'
const fs = require('node:fs')
const { createHash, randomUUID } = require('node:crypto')
const pino = require('pino')
const pinoHttp = require('pino-http')

const hash = (body) => 'sha256:' + createHash('sha256').update(JSON.stringify(body)).digest('hex')

// requestLog is pino-http writing to logPath.
function requestLog (logPath) {
  return pinoHttp({
    logger: pino(pino.destination({ dest: logPath, sync: true })),
    genReqId: (req, res) => {
      const id = req.headers['x-request-id'] || randomUUID()
      res.setHeader('X-Request-Id', id)
      return id
    },
    // Called again when the response ends, once express.json has read the body.
    customProps: (req) => (req.body && Object.keys(req.body).length ? { payload_hash: hash(req.body) } : {})
  })
}

// createOrder is the order route: it waits the harness's X-Harness-Delay-Ms,
// logs "order created" with order_id, appends to the ledger and answers 201.
function createOrder (ledgerPath) {
  let n = 0
  const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))
  return async (req, res) => {
    await sleep(Number(req.headers['x-harness-delay-ms'] || 0))
    const id = 'ord_' + (++n)
    const key = req.headers['idempotency-key'] || undefined
    req.log.info({ order_id: id, idempotency_key: key }, 'order created')
    fs.appendFileSync(ledgerPath, JSON.stringify({ step: req.headers['x-harness-step'], request_id: req.id, key, order_id: id, created: true, status: 201 }) + '\n')
    res.status(201).json({ order_id: id, sku: req.body.sku })
  }
}

// listen serves app on 127.0.0.1:port until SIGTERM.
function listen (app, port) {
  const server = app.listen(Number(port), '127.0.0.1')
  process.on('SIGTERM', () => server.close(() => process.exit(0)))
}

module.exports = { requestLog, createOrder, listen }
