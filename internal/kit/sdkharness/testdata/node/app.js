// The server a client SDK calls in idem's SDK harness: an express app
// logging each request with pino-http (whose request serializer keeps
// every header as received), making one order per delivery that reaches
// its route. Usage: node app.js LOG LEDGER PORT MODE STALL_MS, MODE one of
//
//   - plain: no key store, every delivery makes an order. The first
//     delivery makes its order, then waits STALL_MS before it answers.
//   - store: express-idempotency as its README wires it, the same stall:
//     the SDK's retry finds the key in progress and is refused (409).
//   - completed: express-idempotency, the first delivery answered at once
//     and its answer stored, but written to the connection STALL_MS later
//     (a slow way back): the retry finds the key completed and gets the
//     stored answer replayed.
//
// STALL_MS is longer than the SDK's timeout, so the SDK gives up on the
// first delivery and retries. The ledger gets a line per delivery
// received ("hit", its headers), per order made ("effect"), when the first
// delivery's answer was written ("sent", even to a client that is gone)
// and per response finished ("answer", with its status). It serves
// 127.0.0.1:PORT.
'use strict'
const fs = require('node:fs')
const { randomUUID } = require('node:crypto')
const express = require('express')
const pino = require('pino')
const pinoHttp = require('pino-http')
const { idempotency, getSharedIdempotencyService } = require('express-idempotency')

const [logPath, ledgerPath, port, mode, stallMs] = process.argv.slice(2)
const ledger = (line) => fs.appendFileSync(ledgerPath, JSON.stringify({ at: new Date().toISOString(), ...line }) + '\n')
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

const app = express()
app.use(pinoHttp({
  logger: pino(pino.destination({ dest: logPath, sync: true })),
  // nginx passes its $request_id on as X-Request-Id.
  genReqId: (req, res) => {
    const id = req.headers['x-request-id'] || randomUUID()
    res.setHeader('X-Request-Id', id)
    return id
  }
}))
let hits = 0
app.use((req, res, next) => {
  req.hit = ++hits
  ledger({ kind: 'hit', n: req.hit, request_id: req.id, method: req.method, url: req.url, headers: req.headers })
  res.on('finish', () => ledger({ kind: 'answer', n: req.hit, request_id: req.id, status: res.statusCode }))
  next()
})
// Each SDK's body: JSON (openai), DynamoDB's JSON 1.0, Stripe's form.
app.use(express.json({ type: ['application/json', 'application/x-amz-json-1.0'] }))
app.use(express.urlencoded({ extended: false }))
const keyed = mode === 'store' || mode === 'completed'
if (mode === 'completed') {
  // Under express-idempotency's hook, which stores the answer as soon as
  // the route sends it: only the write to the connection waits.
  app.use((req, res, next) => {
    if (req.hit !== 1) return next()
    const send = res.send.bind(res)
    res.send = (body) => {
      setTimeout(() => {
        send(body)
        ledger({ kind: 'sent', n: req.hit, request_id: req.id })
      }, Number(stallMs))
      return res
    }
    next()
  })
}
if (keyed) app.post('*', idempotency())

let orders = 0
app.post('*', async (req, res) => {
  if (keyed && getSharedIdempotencyService().isHit(req)) return // replayed or refused
  const id = 'ord_' + (++orders)
  const key = req.headers['idempotency-key'] || undefined
  req.log.info({ order_id: id, idempotency_key: key }, 'order created')
  ledger({ kind: 'effect', n: req.hit, request_id: req.id, key, order_id: id })
  if (req.hit === 1 && mode !== 'completed') await sleep(Number(stallMs))
  if (req.headers['x-amz-target']) {
    // DynamoDB PutItem with ReturnValues ALL_OLD: the order as the old item.
    res.status(200).type('application/x-amz-json-1.0').send(JSON.stringify({ Attributes: { order_id: { S: id } } }))
  } else {
    const object = req.url.startsWith('/v1/customers') ? 'customer' : 'vector_store'
    res.status(200).json({ id, object, created: Math.floor(Date.now() / 1000), name: 'orders' })
  }
  if (mode !== 'completed' || req.hit !== 1) ledger({ kind: 'sent', n: req.hit, request_id: req.id })
})

// A refusal (express-idempotency's 409 while the key's first delivery runs)
// answers JSON, as the APIs these SDKs call do.
app.use((err, req, res, next) => {
  if (res.statusCode < 400) res.status(500)
  res.json({ error: { type: 'idempotency_error', message: err.message } })
})

const server = app.listen(Number(port), '127.0.0.1')
process.on('SIGTERM', () => server.close(() => process.exit(0)))
