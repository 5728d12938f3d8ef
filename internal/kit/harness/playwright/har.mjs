// Drives Debian's Chromium with playwright-core and records a HAR of the
// fetches a page makes: node har.mjs PLAN.json. The plan names the
// browser, the page, the HAR to write and the fetches, each with its
// X-Request-Id and Idempotency-Key. A fetch with "pause" first prints
// "PAUSE <what>" and waits for a line on stdin (the harness stops the
// proxy meanwhile, for a refused connection). Each fetch's result is
// printed as "RESULT <json>". A fetch with "together" starts the next one
// at once, without waiting for its own answer (a double click).
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { chromium } from 'playwright-core';

const plan = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const stdin = createInterface({ input: process.stdin });
const lines = stdin[Symbol.asyncIterator]();

const browser = await chromium.launch({
  executablePath: plan.executable,
  args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
});
try {
  const context = await browser.newContext({ recordHar: { path: plan.har, content: 'embed' } });
  const page = await context.newPage();
  await page.goto(plan.page);
  const one = (f) => page.evaluate(async (f) => {
    const headers = { 'Content-Type': 'application/json', 'X-Request-Id': f.request_id, ...(f.headers || {}) };
    if (f.key) headers['Idempotency-Key'] = f.key;
    const ctl = new AbortController();
    let signal = ctl.signal;
    if (f.timeout_ms) signal = AbortSignal.timeout(f.timeout_ms);
    if (f.abort_ms) setTimeout(() => ctl.abort(), f.abort_ms);
    const start = Date.now();
    try {
      const method = f.method || 'POST';
      const body = method === 'GET' ? undefined : (f.body || JSON.stringify({ item: f.name }));
      const res = await fetch(f.path, { method, headers, body, signal });
      const text = await res.text();
      return { status: res.status, body: text.length > 4096 ? '' : text, start, ms: Date.now() - start };
    } catch (e) {
      return { error: e.name + ': ' + e.message, start, ms: Date.now() - start };
    }
  }, f).then((result) => console.log('RESULT ' + JSON.stringify({ name: f.name, ...result })));
  for (let i = 0; i < plan.fetches.length; i++) {
    const f = plan.fetches[i];
    if (f.pause) {
      console.log('PAUSE ' + f.pause);
      await lines.next();
    }
    const group = [one(f)];
    while (plan.fetches[i].together && i + 1 < plan.fetches.length) group.push(one(plan.fetches[++i]));
    await Promise.all(group);
  }
  await context.close(); // writes the HAR
} finally {
  await browser.close();
  stdin.close();
}
