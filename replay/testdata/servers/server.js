// Third-party Idempotency-Key servers for the replay tests, each set up
// the way its README does it or misconfigured the way teams get it wrong.
//
//   node server.js MODE     listens on 127.0.0.1 (a free port) and prints
//                           "listening PORT" on standard output
//
// Every mode serves POST /v1/orders (one effect per run of the handler,
// answering like the seed article's example: {requestId, state}) and
// GET /v1/effects ({count}). DELAY_MS slows the handler down.
'use strict';

const express = require('express');

const mode = process.argv[2];
const delay = Number(process.env.DELAY_MS || 0);
let effects = 0;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// createOrder is the business logic: it makes one effect.
async function createOrder(req, res) {
  if (delay > 0) await sleep(delay);
  effects += 1;
  res.status(201).json({ requestId: 'demo-request-' + effects, state: 'accepted', sku: req.body && req.body.sku });
}

const app = express();
app.get('/v1/effects', (req, res) => res.json({ count: effects }));

function expressIdempotency(options, { hitCheck = true, beforeBodyParser = false } = {}) {
  const { idempotency, getSharedIdempotencyService } = require('express-idempotency');
  // README: app.post('*', idempotency()) after the body parser; the route
  // must ask isHit(req) to skip its work on a replay.
  if (beforeBodyParser) {
    app.post('*', idempotency(options));
    app.use(express.json());
  } else {
    app.use(express.json());
    app.post('*', idempotency(options));
  }
  app.post('/v1/orders', async (req, res) => {
    if (hitCheck && getSharedIdempotencyService().isHit(req)) {
      return;
    }
    try {
      await createOrder(req, res);
    } catch (err) {
      // A replay already answered: the handler that forgot isHit runs
      // anyway, and only its second answer fails.
    }
  });
}

// nodeIdempotency wires @node-idempotency/core into express the way its
// README describes: onRequest before the handler, onResponse with the
// handler's answer, the library's errors mapped to the IETF draft's codes.
function nodeIdempotency(options) {
  const { Idempotency, IdempotencyErrorCodes } = require('@node-idempotency/core');
  const { MemoryStorageAdapter } = require('@node-idempotency/storage-adapter-memory');
  const idem = new Idempotency(new MemoryStorageAdapter(), options);
  const statusOf = {
    [IdempotencyErrorCodes.IDEMPOTENCY_FINGERPRINT_MISSMATCH]: 422,
    [IdempotencyErrorCodes.REQUEST_IN_PROGRESS]: 409,
    [IdempotencyErrorCodes.IDEMPOTENCY_KEY_MISSING]: 400,
    [IdempotencyErrorCodes.IDEMPOTENCY_KEY_LEN_EXEEDED]: 400,
  };
  app.use(express.json());
  app.post('/v1/orders', async (req, res, next) => {
    const request = { method: req.method, headers: req.headers, body: req.body, path: req.originalUrl };
    try {
      const cached = await idem.onRequest(request);
      if (cached) {
        res.set('Idempotent-Replayed', 'true');
        return res.status(cached.additional.status).json(cached.body);
      }
    } catch (err) {
      const status = statusOf[err.code];
      if (!status) return next(err);
      if (status === 409) res.set('Retry-After', '1');
      return res.status(status).json({ error: err.code, message: err.message });
    }
    const json = res.json.bind(res);
    res.json = (body) => {
      idem.onResponse(request, { body, additional: { status: res.statusCode } }).then(() => json(body), next);
      return res;
    };
    return createOrder(req, res);
  });
}

switch (mode) {
  case 'express-idempotency':
    expressIdempotency();
    break;
  case 'express-idempotency-no-hit-check':
    expressIdempotency(undefined, { hitCheck: false });
    break;
  case 'express-idempotency-before-body-parser':
    expressIdempotency(undefined, { beforeBodyParser: true });
    break;
  case 'express-idempotency-wrong-header':
    expressIdempotency({ idempotencyKeyHeader: 'x-idempotency-key' });
    break;
  case 'node-idempotency':
    nodeIdempotency({ enforceIdempotency: true });
    break;
  case 'unauthorized':
    // A server behind an authenticating proxy: 401 to everything.
    app.use((req, res) => res.status(401).set('WWW-Authenticate', 'Bearer').json({ error: 'unauthorized' }));
    break;
  default:
    console.error('unknown mode ' + mode);
    process.exit(2);
}

const server = app.listen(0, '127.0.0.1', () => {
  console.log('listening ' + server.address().port);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
