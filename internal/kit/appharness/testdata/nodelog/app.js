// The express routes the log4js and morgan services share: the order
// endpoint on Orders, logging its decisions through log(msg, fields).
'use strict'
const express = require('express')

function ordersApp (orders, log, before) {
  const app = express()
  app.use(express.json())
  if (before) app.use(before)
  app.post('/v1/orders', (req, res) => {
    const delay = Number(req.get('x-harness-delay-ms') || 0)
    setTimeout(() => {
      const key = req.get('idempotency-key') || ''
      const rid = req.get('x-request-id') || ''
      const d = orders.place(key, req.body)
      const fields = { request_id: rid, idempotency_key: key || undefined, fingerprint: d.fp }
      if (d.status === 422) {
        log('idempotency key reused with another payload', fields)
        res.status(422).json({ error: 'payload mismatch' })
      } else if (d.created) {
        log('order created', { ...fields, order_id: d.orderId })
        res.status(201).json({ order_id: d.orderId })
      } else {
        log('order replayed', { ...fields, order_id: d.orderId, decision: 'replay' })
        res.set('Idempotent-Replayed', 'true').status(201).json({ order_id: d.orderId })
      }
      orders.after(res, () => orders.record(req.get('x-harness-step'), rid, key, d))
    }, delay)
  })
  return app
}

module.exports = { ordersApp }
