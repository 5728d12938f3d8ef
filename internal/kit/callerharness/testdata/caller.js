// An order service's outbound calls, as a Node service logs them: one
// JSON line per event (time, level, msg and the call's fields), written
// with no logging library. It calls the orders API at TARGET for each
// step of STEPS, retrying a timeout under the same key, and records what
// it did in LEDGER: each send, and how it ended for it.
"use strict";
const http = require("http");
const fs = require("fs");
const crypto = require("crypto");

const [target, down, logPath, ledgerPath, stepsJSON] = process.argv.slice(2);
const steps = JSON.parse(stepsJSON);
const log = (level, msg, fields) =>
  fs.appendFileSync(logPath, JSON.stringify({ time: new Date().toISOString(), level, msg, ...fields }) + "\n");
const ledger = (e) => fs.appendFileSync(ledgerPath, JSON.stringify(e) + "\n");

// send makes one POST with its own X-Request-Id; its timeout destroys the request with ETIMEDOUT,
// as got and axios name theirs.
function send(url, key, rid, body, timeoutMs) {
  return new Promise((resolve) => {
    const headers = { "content-type": "application/json", "idempotency-key": key, "x-request-id": rid };
    const req = http.request(url, { method: "POST", headers }, (res) => {
      let data = "";
      res.on("data", (c) => (data += c));
      res.on("end", () => resolve({ status: res.statusCode, body: data }));
    });
    req.setTimeout(timeoutMs, () => {
      const err = new Error(`Timeout awaiting 'request' for ${timeoutMs}ms`);
      err.code = "ETIMEDOUT";
      req.destroy(err);
    });
    req.on("error", (err) => resolve({ error: err }));
    req.end(body);
  });
}

async function main() {
  for (const s of steps) {
    const url = (s.down ? down : target) + "/v1/orders";
    for (let attempt = 1; attempt <= s.tries; attempt++) {
      const requestId = crypto.randomUUID();
      log("info", "sending order request", { method: "POST", url, requestId, idempotencyKey: s.key, attempt });
      const start = new Date().toISOString();
      const r = await send(url, s.key, requestId, JSON.stringify({ sku: s.sku }), s.timeout_ms);
      const end = new Date().toISOString();
      if (r.error) {
        const code = r.error.code || r.error.name;
        ledger({ step: s.step, key: s.key, request_id: requestId, attempt, start, end, error: code });
        if (attempt < s.tries) {
          log("warn", `retrying order request after ${code}`, { requestId, idempotencyKey: s.key, retryCount: attempt, attempt, error: r.error.message, code });
          continue;
        }
        log("error", "order request failed", { requestId, idempotencyKey: s.key, attempt, error: r.error.message, code });
        break;
      }
      let id = "";
      try { id = JSON.parse(r.body).id || ""; } catch (e) {}
      ledger({ step: s.step, key: s.key, request_id: requestId, attempt, start, end, status: r.status, order_id: id });
      log("info", "order response", { requestId, idempotencyKey: s.key, status: r.status, orderId: id });
      break;
    }
  }
}
main();
