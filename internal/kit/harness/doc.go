// Package harness captures the proxies and the browser idem reads the
// logs of: it runs real nginx, HAProxy, Caddy and Chromium (through
// playwright-core) on 127.0.0.1 in front of a small Go backend, drives
// traffic through them and keeps what they wrote under fixtures/real/.
// What a test expects comes from what the harness did (which requests it
// sent, with which ids and keys, and how each one ended), never from
// idem's reading of the logs.
//
// It says only what it drives, on the kit of internal/kit/capture: the
// backend (Backend), the traffic (Plan, Drive, the page's Fetches), the
// routes each proxy needs to make a request end each way (proxies.go),
// and, in its tests, what each capture's traffic calls for.
package harness
