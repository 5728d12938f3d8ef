// The order service every backend of this folder runs, whatever logs it:
// an Idempotency-Key store that remembers each key's payload and order,
// replays a retry, answers 422 to the same key with another payload (before
// any effect), and writes what it did to the harness's ledger.
'use strict'
const fs = require('node:fs')
const { createHash } = require('node:crypto')

function canonical (v) {
  if (Array.isArray(v)) return '[' + v.map(canonical).join(',') + ']'
  if (v && typeof v === 'object') {
    return '{' + Object.keys(v).sort().map(k => JSON.stringify(k) + ':' + canonical(v[k])).join(',') + '}'
  }
  return JSON.stringify(v)
}

class Orders {
  constructor (name, ledgerPath) {
    this.prefix = 'ord_' + name.replace(/-/g, '_')
    this.ledgerPath = ledgerPath
    this.byKey = new Map()
    this.n = 0
  }

  // place decides for one request: { status, orderId, created }.
  place (key, body) {
    const fp = 'sha256:' + createHash('sha256').update(canonical(body || {})).digest('hex')
    const seen = key ? this.byKey.get(key) : undefined
    if (seen && seen.fp !== fp) return { status: 422, orderId: '', created: false, fp }
    if (seen) return { status: 201, orderId: seen.orderId, created: false, fp }
    const orderId = `${this.prefix}_${++this.n}`
    if (key) this.byKey.set(key, { fp, orderId })
    return { status: 201, orderId, created: true, fp }
  }

  // after runs fn once the response is done with: at once when the
  // client (or the proxy) has already closed the connection.
  after (res, fn) {
    if (res.destroyed || res.closed) fn()
    else res.once('close', fn)
  }

  record (step, requestId, key, d) {
    fs.appendFileSync(this.ledgerPath, JSON.stringify({
      step, request_id: requestId, key, order_id: d.orderId, created: d.created, status: d.status
    }) + '\n')
  }
}

// syncStream writes each chunk to path at once, so that what was logged
// is in the file when the harness reads it.
function syncStream (path) {
  const fd = fs.openSync(path, 'a')
  return { write (s) { fs.writeSync(fd, typeof s === 'string' ? s : JSON.stringify(s) + '\n'); return true } }
}

module.exports = { Orders, syncStream }
