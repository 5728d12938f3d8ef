// Package capture is the kit the capture harnesses of idem's tests are
// made of. A capture runs real software on 127.0.0.1 (a proxy, a browser,
// a logging library, an Idempotency-Key server), drives traffic through
// it, keeps what the software wrote, and checks what idem reads from it
// against what the harness sent: the expected facts never come from idem.
//
// A capture goes through the kit in this order:
//
//   - Tool, NodeModules and Python find the software: on PATH, then where
//     Debian installs it (/usr/sbin, /usr/bin). Where it is missing a
//     test skips, except under CI (CI=true), where the .ci/ scripts
//     install it and a skip would hide a broken install: there it fails.
//   - FreePort and Start run a process on a loopback port, wait until it
//     listens, and stop it when the test ends.
//   - StartNginx, StartHAProxy and StartCaddy put a proxy in front of an
//     upstream, with access logs in named log formats (formats.go is the
//     one place that holds them); Stop shuts it down cleanly, so that it
//     writes what it was serving, and Log names each file it wrote. A
//     proxy is one file here (its config's frame and how it is run).
//   - Send sends one request and records it as a Sent: what went out
//     (method, path, request id, key, body, which layer sent it) and how
//     it ended for the client (a response, a timeout, an abort), with
//     when. A harness adds what it knows beyond the client: whether its
//     backend received the request, the effect its Ledger recorded.
//   - Folder keeps a capture: the logs, the config the software ran and
//     the harness's record of what it sent, checked in a temporary folder
//     and, with the harness's -update flag, written under fixtures/real/.
//   - Read reads logs the way load.Files does, keeping every
//     observation by the line it came from; Facts compares them with what
//     was sent, and CheckRules compares the findings with the
//     Expectations the harness derives from what it sent. Gaps list what
//     idem is known to read wrong today, each with why: those checks log
//     instead of failing, and a gap that no longer shows fails until its
//     entry is removed.
//
// A harness says only what it drives: its backend, its scenario steps, the
// proxy routes it needs and what its traffic calls for.
package capture
