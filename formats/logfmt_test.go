package formats_test

import (
	"testing"
	"time"

	"github.com/idem-cli/idem/ingest"
	"github.com/idem-cli/idem/model"
)

// TestLogfmtReadsByMeaning: key=value lines are read through the same
// vocabulary as JSON, whichever logger wrote them; a line with any word
// that is not a pair is not logfmt.
func TestLogfmtReadsByMeaning(t *testing.T) {
	for _, tc := range []struct {
		name, line string
		want       *model.Observation // nil: not read as logfmt
	}{
		{"logrus TextFormatter", `time="2026-11-30T09:14:04Z" level=info msg="order created" request_id=r-1 idempotency_key=k-1 status=201 method=POST path=/v1/orders`,
			&model.Observation{Format: "logfmt", RequestID: "r-1", Key: "k-1", Status: 201, Method: "POST", Route: "/v1/orders", Message: "order created"}},
		{"Go kit", `ts=2026-11-30T09:14:04.5Z caller=main.go:42 method=POST path=/v1/orders status=502 took=2.1ms request_id=gk-1`,
			&model.Observation{Format: "logfmt", RequestID: "gk-1", Status: 502, Method: "POST", Route: "/v1/orders", Duration: 2_100_000}},
		{"an escaped quote and a tab in a value", `time=2026-11-30T09:14:04Z msg="say \"hi\"\tnow" request_id=r-2 method=GET path=/`,
			&model.Observation{Format: "logfmt", RequestID: "r-2", Method: "GET", Route: "/", Message: "say \"hi\"\tnow"}},
		{"a sentence with one pair", `GET /v1/orders took 2ms status=200`, nil},
		{"a level tag first", `[INFO] method=POST path=/v1/orders status=201`, nil},
		{"two pairs only", `method=POST status=201`, nil},
		{"an unclosed quote", `msg="order created method=POST status=201 path=/`, nil},
		{"a quote inside a bare value", `method=PO"ST path=/ status=201`, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			obs, in := readString(t, "", tc.line+"\n", ingest.Options{})
			if tc.want == nil {
				if in.Formats["logfmt"] != 0 {
					t.Fatalf("read as logfmt: %+v", obs)
				}
				return
			}
			if len(obs) != 1 {
				t.Fatalf("%d observations (skipped %d), want 1", len(obs), in.Skipped)
			}
			o := obs[0]
			w := tc.want
			if o.Format != w.Format || o.RequestID != w.RequestID || o.Key != w.Key || o.Status != w.Status || o.Method != w.Method ||
				o.Route != w.Route || (w.Message != "" && o.Message != w.Message) || (w.Duration != 0 && o.Duration != w.Duration) {
				t.Errorf("got %+v\nwant %+v", o, *w)
			}
			if o.Time.IsZero() {
				t.Errorf("no time read")
			}
		})
	}
}

// TestLogfmtUnderKubectlTimestamps: a line inside kubectl logs
// --timestamps that writes no time of its own gets the prefix's.
func TestLogfmtUnderKubectlTimestamps(t *testing.T) {
	obs, _ := readString(t, "", "[pod/api-7f/api] 2026-11-30T09:14:04.250Z method=POST path=/v1/orders status=201 request_id=r-9\n", ingest.Options{})
	if len(obs) != 1 || obs[0].Format != "logfmt" || obs[0].Time.Format(time.RFC3339Nano) != "2026-11-30T09:14:04.25Z" || obs[0].Labels != "container=api,pod=api-7f" {
		t.Fatalf("got %+v", obs)
	}
}
