package textharness

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/idem-cli/idem/internal/kit/capture"
)

// TestChecksCatchWrongFacts tampers with what the harness recorded, one
// fact at a time, and requires the check to say so: the checks compare
// with the harness's record, not with what idem read.
func TestChecksCatchWrongFacts(t *testing.T) {
	for _, tt := range []struct {
		name, capture string
		tamper        func(r *Record)
		want          string // the fact that must fail
	}{
		{"another status", "chi-urllib3", func(r *Record) { r.Arrivals[0].Status = 200 }, "chi-urllib3/server/create#1"},
		{"another path", "chi-urllib3", func(r *Record) { r.Arrivals[4].Path = "/v1/orders/ord_2" }, "chi-urllib3/client/read#1"},
		{"the retry not a retry", "chi-urllib3", func(r *Record) { r.Arrivals[2].Send = 1 }, "chi-urllib3/client/flaky#1"},
		{"a first send a retry", "chi-urllib3", func(r *Record) { r.Arrivals[1].Send = 2 }, "chi-urllib3/client/flaky#2"},
		{"one send less", "chi-urllib3", func(r *Record) { r.Arrivals = r.Arrivals[1:] }, "chi-urllib3/server/lines"},
		{"another method", "uvicorn", func(r *Record) { r.Sent[3].Method = "POST" }, "uvicorn/read"},
		{"one send more", "uvicorn", func(r *Record) { r.Sent = append(r.Sent, r.Sent[0]) }, "uvicorn/lines"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(fixturesDir, tt.capture)
			rec := loadRecord(t, dir)
			tt.tamper(rec)
			check := checkChi
			if tt.capture == "uvicorn" {
				check = checkUvicorn
			}
			errs := capture.Failures(t, func(tb testing.TB) { check(tb, dir, rec) })
			for _, e := range errs {
				if strings.HasPrefix(e, tt.want+":") {
					return
				}
			}
			t.Errorf("no %s failure; the check reported %q", tt.want, errs)
		})
	}
}

// TestCurlChecksCatchWrongFacts does the same for the curl capture.
func TestCurlChecksCatchWrongFacts(t *testing.T) {
	for _, tt := range []struct {
		name   string
		tamper func(r *CurlRecord)
		want   string
	}{
		{"another key", func(r *CurlRecord) { r.Steps[0].Key = "k-other" }, "chi-curl/client/create#1"},
		{"another request id", func(r *CurlRecord) { r.Steps[1].RequestID = "rid-other" }, "chi-curl/client/replay#1"},
		{"the retry not a retry", func(r *CurlRecord) { r.Arrivals[3].Send = 1 }, "chi-curl/client/flaky#1"},
		{"a credential sent", func(r *CurlRecord) { r.Steps[0].Auth = true }, "chi-curl"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(fixturesDir, "chi-curl")
			rec := loadCurlRecord(t, dir)
			tt.tamper(rec)
			errs := capture.Failures(t, func(tb testing.TB) { checkCurl(tb, dir, rec) })
			for _, e := range errs {
				if strings.HasPrefix(e, tt.want+":") {
					return
				}
			}
			t.Errorf("no %s failure; the check reported %q", tt.want, errs)
		})
	}
}
