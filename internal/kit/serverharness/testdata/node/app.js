// An order service as express-idempotency's README wires it, logging with
// pino-http, for idem's server harness. Usage: node app.js LOG LEDGER PORT
// (orders.js: the request log, the order route and its ledger). It serves
// 127.0.0.1:PORT.
'use strict'
const express = require('express')
const { idempotency, getSharedIdempotencyService } = require('express-idempotency')
const { requestLog, createOrder, listen } = require('./orders')

const [logPath, ledgerPath, port] = process.argv.slice(2)
const order = createOrder(ledgerPath)

const app = express()
app.use(requestLog(logPath))
// README: the idempotency middleware after the body parser.
app.use(express.json())
app.post('*', idempotency())
app.post('/v1/orders', async (req, res) => {
  // README: a replay is already answered; the route must not run again.
  if (getSharedIdempotencyService().isHit(req)) return
  await order(req, res)
})

listen(app, port)
