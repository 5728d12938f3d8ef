// Package sdkharness captures real client SDKs retrying on their own, so
// that idem can be proven to tell a client library's retry from a
// proxy's. Each capture makes ONE call of a real SDK from its npm package
// (openai, a Stainless-generated SDK; stripe; the AWS SDK for JavaScript
// v3's DynamoDB client), with the SDK's retries on and a short timeout,
// through Debian's nginx to an express app that logs every request with
// pino-http (headers as received). The app makes its order on the first
// delivery and then stalls past the SDK's timeout, so the SDK gives up and
// sends the call again: the same Idempotency-Key (the caller's for openai,
// one a middleware of the user's adds at the build step for AWS, the one
// Stripe's SDK makes itself), with the SDK's own retry marks.
//
// Each SDK is captured against three servers: one with no key store,
// where every delivery makes an order (two orders under one key); one with
// express-idempotency, where the retry finds the key in progress and is
// refused with 409 (one order); and one with express-idempotency where the
// first delivery's answer is stored at once but written to the connection
// only after the stall, so that the retry finds the key completed and gets
// that answer replayed (one order, which the call returns). nginx does not
// retry (proxy_next_upstream off).
//
// What must hold comes from the harness alone: the script's own record
// of the attempts the SDK made and how the call ended, and the app's
// ledger of the deliveries it received (their headers) and the orders it
// made. idem's output is only what is checked against it: the key's
// deliveries, a critical finding where two orders were made and none
// where one was, and never a proxy's retry or a reused request id.
//
// The machinery (nginx, ports, tools, the capture folders) is
// internal/kit/capture's; -update keeps each capture under
// fixtures/real/sdk-NAME/, which TestCaptures checks where node and nginx
// are not installed.
package sdkharness
