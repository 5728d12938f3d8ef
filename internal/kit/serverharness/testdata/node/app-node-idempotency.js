// An order service with @node-idempotency/core and its memory storage
// adapter, wired into express as the library's README says, logging with
// pino-http, for idem's server harness.
// Usage: node app-node-idempotency.js LOG LEDGER PORT TTL_MS [wait]
// onRequest runs before the route: it reserves the key (IN_PROGRESS with
// the body's fingerprint), answers a seen key with the stored response, or
// throws; onResponse stores the route's answer. TTL_MS is the library's
// cacheTTLMS, short so that a key can expire while the test runs; "wait"
// sets inProgressStrategy.wait, so a duplicate of a running request waits
// for its result instead of being refused. Keys are not enforced, so a
// POST without one runs unguarded.
// orders.js has the request log, the order route and its ledger. It
// serves 127.0.0.1:PORT.
'use strict'
const express = require('express')
const { Idempotency, IdempotencyErrorCodes } = require('@node-idempotency/core')
const { MemoryStorageAdapter } = require('@node-idempotency/storage-adapter-memory')
const { requestLog, createOrder, listen } = require('./orders')

const [logPath, ledgerPath, port, ttl, strategy] = process.argv.slice(2)
const idempotency = new Idempotency(new MemoryStorageAdapter(), {
  cacheTTLMS: Number(ttl),
  inProgressStrategy: { wait: strategy === 'wait' }
})

// The library throws coded errors and leaves the answer to the caller;
// these are the IETF draft's (draft-ietf-httpapi-idempotency-key-header):
// 409 for a request still in progress, 422 for a key reused with another
// body, 400 for a missing or too long key.
const statusOf = {
  [IdempotencyErrorCodes.REQUEST_IN_PROGRESS]: 409,
  [IdempotencyErrorCodes.IDEMPOTENCY_FINGERPRINT_MISSMATCH]: 422,
  [IdempotencyErrorCodes.IDEMPOTENCY_KEY_MISSING]: 400,
  [IdempotencyErrorCodes.IDEMPOTENCY_KEY_LEN_EXEEDED]: 400
}

const app = express()
app.use(requestLog(logPath))
app.use(express.json())

// README: onRequest when the request arrives, before the business logic;
// a returned response is the stored one, to give back; onResponse once the
// business logic answered for the first time.
app.post('*', async (req, res, next) => {
  const request = { method: req.method, headers: req.headers, body: req.body, path: req.path }
  let stored
  try {
    stored = await idempotency.onRequest(request)
  } catch (err) {
    const status = statusOf[err.code]
    if (!status) return next(err)
    return res.status(status).json({ error: err.code, message: err.message })
  }
  if (stored) {
    res.setHeader('Idempotent-Replayed', 'true')
    return res.status(stored.additional.status).json(stored.body)
  }
  const json = res.json.bind(res)
  res.json = (body) => {
    idempotency.onResponse(request, { body, additional: { status: res.statusCode } }).then(() => json(body), next)
    return res
  }
  next()
})

app.post('/v1/orders', createOrder(ledgerPath))

listen(app, port)
