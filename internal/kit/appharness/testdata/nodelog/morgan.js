// An order service on express, logging its requests with morgan, for
// idem's capture harness. Usage: node morgan.js LOG LEDGER NAME
// morgan's format is a function of its tokens (as its README shows)
// writing a JSON line: the date, method, url, status, response-time (ms),
// and the X-Request-Id and Idempotency-Key request headers. The order
// lines are JSON the service writes itself. Prints "listening PORT".
'use strict'
const morgan = require('morgan')
const { Orders, syncStream } = require('./orders')
const { ordersApp } = require('./app')

const [logPath, ledgerPath, name] = process.argv.slice(2)
const out = syncStream(logPath)
const access = morgan((tokens, req, res) => JSON.stringify({
  date: tokens.date(req, res, 'iso'),
  method: tokens.method(req, res),
  url: tokens.url(req, res),
  status: Number(tokens.status(req, res)) || null,
  'response-time': Number(tokens['response-time'](req, res)) || null,
  'request-id': tokens.req(req, res, 'x-request-id'),
  'idempotency-key': tokens.req(req, res, 'idempotency-key')
}), { stream: out })
const log = (msg, fields) => out.write(JSON.stringify({ time: new Date().toISOString(), level: 'info', msg, ...fields }) + '\n')
const app = ordersApp(new Orders(name, ledgerPath), log, access)
const server = app.listen(0, '127.0.0.1', () => process.stdout.write(`listening ${server.address().port}\n`))
process.on('SIGTERM', () => server.close(() => process.exit(0)))
