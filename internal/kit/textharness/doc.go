// Package textharness proves idem's reading of text request lines that no
// format file names (formats/requestline.go) on real software: Go's chi
// router with its default middleware.Logger (and middleware.RequestID),
// in the test process; Python's requests with urllib3 retrying a 503 on
// its own, logging at DEBUG through logging.basicConfig, as the chi
// service's client; Debian's curl -v with --retry as another client, its
// trace a header dump after each request line; and Debian's uvicorn with
// its default access line.
// Each runs on 127.0.0.1; what each wrote is read with idem's reader and
// compared with what the harness did: the requests the chi service
// received (its own ledger, in order, with which send of its step each
// was) and the requests the harness sent to uvicorn. The expected facts
// never come from idem. The machinery (finding the tools, the processes,
// the client, the folders) is internal/kit/capture's.
package textharness
