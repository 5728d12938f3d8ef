// An order service on express, logging with log4js (its connect logger
// for the requests), for idem's capture harness.
// Usage: node log4js.js LOG LEDGER NAME
// The layout is the JSON one log4js's documentation adds (addLayout:
// JSON.stringify of the logging event): startTime, categoryName, data
// (the arguments logged), level, context, pid. The connect logger's
// format returns the request's fields; it logs when the response ends or
// the connection closes, whichever comes first. Prints "listening PORT".
'use strict'
const log4js = require('log4js')
const { Orders } = require('./orders')
const { ordersApp } = require('./app')

const [logPath, ledgerPath, name] = process.argv.slice(2)
log4js.addLayout('json', config => logEvent => JSON.stringify(logEvent) + config.separator)
log4js.configure({
  appenders: { file: { type: 'fileSync', filename: logPath, layout: { type: 'json', separator: '' } } },
  categories: { default: { appenders: ['file'], level: 'info' } }
})
const logger = log4js.getLogger('orders')
const http = log4js.connectLogger(log4js.getLogger('http'), {
  level: 'info',
  format: (req, res) => ({
    method: req.method,
    url: req.originalUrl,
    status: res.statusCode,
    responseTime: res.responseTime,
    requestId: req.get('x-request-id'),
    idempotencyKey: req.get('idempotency-key')
  })
})
const app = ordersApp(new Orders(name, ledgerPath), (msg, fields) => logger.info(msg, fields), http)
const server = app.listen(0, '127.0.0.1', () => process.stdout.write(`listening ${server.address().port}\n`))
process.on('SIGTERM', () => server.close(() => log4js.shutdown(() => process.exit(0))))
