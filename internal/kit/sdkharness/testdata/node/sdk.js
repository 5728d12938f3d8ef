// One call of a client SDK, with the SDK's own retries on and a short
// timeout, for idem's SDK harness. Usage: node sdk.js SDK BASE_URL
// TIMEOUT_MS, SDK one of openai, stripe, aws. It prints one JSON line: the
// SDK, each attempt the SDK made as the script saw it leave (the SDK's own
// hook: a fetch of the script's for openai, Stripe's request event, a
// deserialize-step middleware for AWS, which runs once per attempt), the
// Idempotency-Key the call carried, and how the call ended.
'use strict'
const { randomUUID } = require('node:crypto')

const [sdk, base, timeoutArg] = process.argv.slice(2)
const timeout = Number(timeoutArg)
const attempts = []
const out = { sdk, attempts }

async function callOpenAI () {
  const OpenAI = require('openai')
  const fetchOnce = async (url, init) => {
    attempts.push({ at: new Date().toISOString(), url: String(url), headers: Object.fromEntries(new Headers(init.headers)) })
    return fetch(url, init)
  }
  // openai sends no Idempotency-Key of its own: the caller gives one per
  // call, which every attempt of the call carries.
  out.key = randomUUID()
  const client = new OpenAI({ apiKey: 'sk-harness', baseURL: base + '/v1', timeout, maxRetries: 1, fetch: fetchOnce })
  const vs = await client.vectorStores.create({ name: 'orders' }, { headers: { 'Idempotency-Key': out.key } })
  return vs.id
}

async function callStripe () {
  const Stripe = require('stripe')
  const u = new URL(base)
  const stripe = new Stripe('sk_test_harness', {
    host: u.hostname, port: Number(u.port), protocol: 'http', timeout, maxNetworkRetries: 1
  })
  // Stripe keys every POST itself; its request event fires per attempt.
  stripe.on('request', (e) => {
    attempts.push({ at: new Date(e.request_start_time).toISOString(), method: e.method, path: e.path, idempotency_key: e.idempotency_key })
    out.key = e.idempotency_key
  })
  const customer = await stripe.customers.create({ email: 'orders@example.com' })
  return customer.id
}

async function callAWS () {
  const { DynamoDBClient, PutItemCommand } = require('@aws-sdk/client-dynamodb')
  const client = new DynamoDBClient({
    region: 'us-east-1',
    endpoint: base,
    credentials: { accessKeyId: 'AKIDHARNESS', secretAccessKey: 'harness-secret' },
    maxAttempts: 2,
    requestHandler: { requestTimeout: timeout, connectionTimeout: timeout, throwOnRequestTimeout: true }
  })
  // The user's own middleware: the build step runs once per call, before
  // the retry loop (finalizeRequest), so every attempt carries the key.
  client.middlewareStack.add((next) => async (args) => {
    out.key = randomUUID()
    args.request.headers['idempotency-key'] = out.key
    return next(args)
  }, { step: 'build', name: 'idempotencyKeyMiddleware' })
  // The deserialize step runs inside the retry loop: once per attempt.
  client.middlewareStack.add((next) => async (args) => {
    attempts.push({ at: new Date().toISOString(), headers: { ...args.request.headers } })
    return next(args)
  }, { step: 'deserialize', name: 'attemptRecorder' })
  const res = await client.send(new PutItemCommand({ TableName: 'orders', Item: { sku: { S: 'sku-1' } }, ReturnValues: 'ALL_OLD' }))
  out.sdk_attempts = res.$metadata.attempts
  return res.Attributes.order_id.S
}

const calls = { openai: callOpenAI, stripe: callStripe, aws: callAWS }
calls[sdk]().then((result) => {
  out.result = result
}, (err) => {
  out.error = { name: err.name || err.constructor.name, status: err.status || err.statusCode || (err.$metadata && err.$metadata.httpStatusCode), message: String(err.message).slice(0, 300) }
  if (err.$metadata) out.sdk_attempts = err.$metadata.attempts
}).finally(() => {
  process.stdout.write(JSON.stringify(out) + '\n')
})
