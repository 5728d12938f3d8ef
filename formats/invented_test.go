package formats

import (
	"strings"
	"testing"
)

// TestNothingInvented: a record that only carries a trace id is not a
// request, and a bracketed level tag is not a request id; beside each,
// the record that does say it.
func TestNothingInvented(t *testing.T) {
	const otelTrace = `{"timeUnixNano":"1544712660300000000","severityText":"Information","traceId":"5B8EFFF798038103D269B633813FC60D",` +
		`"spanId":"EEE19B7EC3C1B174","body":{"stringValue":"cache warmed"},"attributes":[{"key":"cache.size","value":{"intValue":"3"}}]}`
	const otlpTrace = `{"resourceLogs":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"orders"}}]},"scopeLogs":[{"logRecords":[` +
		`{"timeUnixNano":"1544712660300000000","traceId":"5B8EFFF798038103D269B633813FC60C","spanId":"EEE19B7EC3C1B174",` +
		`"body":{"stringValue":"cache warmed"},"attributes":[]}]}]}]}`
	for _, tc := range []struct {
		name, line string
		request    bool   // the line is about a request
		id         string // the request id it names
	}{
		{name: "an OTel record with a trace id only", line: otelTrace},
		{name: "an OTLP batch's record with a trace id only", line: otlpTrace},
		{name: "an OTel record with a trace id and a method", request: true, id: "trace:5b8efff798038103d269b633813fc60d",
			line: strings.Replace(strings.Replace(otelTrace, `,"spanId":"EEE19B7EC3C1B174"`, "", 1), `"attributes":[`, `"attributes":[{"key":"http.request.method","value":{"stringValue":"POST"}},`, 1)},
		{name: "an OTel record with a trace id and what it made", request: true, id: "trace:5b8efff798038103d269b633813fc60d",
			line: strings.Replace(strings.Replace(otelTrace, `,"spanId":"EEE19B7EC3C1B174"`, "", 1), `"attributes":[`, `"attributes":[{"key":"order.id","value":{"stringValue":"ord_1"}},`, 1)},
		{name: "chi's layout with a level where its id goes", request: true,
			line: `2026/12/07 10:00:01 [INFO] "POST http://127.0.0.1:8080/v1/orders HTTP/1.1" from 127.0.0.1:54321 - 201 57B in 2ms`},
		{name: "chi's layout with a lower-case level", request: true,
			line: `2026/12/07 10:00:01 [warn] "POST http://127.0.0.1:8080/v1/orders HTTP/1.1" from 127.0.0.1:54321 - 201 57B in 2ms`},
		{name: "chi's layout with a logger's name", request: true,
			line: `[api] "POST /v1/orders HTTP/1.1" from 127.0.0.1:54321 - 500 57B in 2ms`},
		{name: "chi's layout with its id", request: true, id: "api-7f9c/Jx1bQ2cZ4k-000042",
			line: `2026/12/07 10:00:01 [api-7f9c/Jx1bQ2cZ4k-000042] "POST http://127.0.0.1:8080/v1/orders HTTP/1.1" from 127.0.0.1:54321 - 201 57B in 2ms`},
		{name: "lograge with a level tag", request: true,
			line: `[ERROR] method=POST path=/v1/orders format=json controller=OrdersController action=create status=500 duration=12.3`},
		{name: "lograge behind Rails' prefix with a level tag", request: true,
			line: `I, [2026-12-07T10:00:01.000000 #123]  INFO -- : [WARN] method=POST path=/v1/orders format=json controller=A action=create status=201 duration=1.0`},
		{name: "lograge with its request id tag", request: true, id: "5f8a2c1e-0b7d-4d8e-9a61-3c2b1d0e9f87",
			line: `I, [2026-12-07T10:00:01.000000 #123]  INFO -- : [5f8a2c1e-0b7d-4d8e-9a61-3c2b1d0e9f87] method=POST path=/v1/orders format=json controller=A action=create status=201 duration=1.0`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := readLines(t, NewParser(nil, nil), "x.log", []string{tc.line})
			if got := len(res.Obs) > 0; got != tc.request {
				t.Fatalf("read as a request: %v; want %v (%d set aside, %d skipped)", got, tc.request, res.Ignored, len(res.Skips))
			}
			if tc.request && res.Obs[0].RequestID != tc.id {
				t.Errorf("request id %q; want %q", res.Obs[0].RequestID, tc.id)
			}
		})
	}
}

func TestTaggedID(t *testing.T) {
	for tag, want := range map[string]bool{
		"INFO": false, "info": false, "warn": false, "WARNING": false, "ERROR": false, "ERR": false, "DBG": false,
		"GIN": false, "api": false, "main": false, "": false, "a b 1": false,
		"api-7f9c/Jx1bQ2cZ4k-000042": true, "5f8a2c1e-0b7d-4d8e-9a61-3c2b1d0e9f87": true, "req-1": true,
	} {
		if got := taggedID(tag); got != want {
			t.Errorf("taggedID(%q) = %v; want %v", tag, got, want)
		}
	}
}

// FuzzTaggedID: a tag taken for an id is one piece with a digit, never a
// level.
func FuzzTaggedID(f *testing.F) {
	for _, s := range []string{"INFO", "req-1", "api-7f9c/Jx1bQ2cZ4k-000042", "a b 1", "[1]"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, tag string) {
		if taggedID(tag) && (logLevel(tag) || strings.ContainsAny(tag, " \t\"[]") || !strings.ContainsAny(tag, "0123456789")) {
			t.Fatalf("%q taken for an id", tag)
		}
	})
}
