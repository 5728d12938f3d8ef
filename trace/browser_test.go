package trace

import (
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/idem-cli/idem/model"
)

// browserEntry is the line a HAR entry makes: a write with its payload's
// fingerprint and the id its answer named.
func browserEntry(i int, body string) *model.Observation {
	return &model.Observation{Tier: model.TierClient, Format: "har", Method: "POST", Route: "/v1/orders", Status: 201,
		Time:      time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Second),
		Duration:  120 * time.Millisecond,
		RequestID: fmt.Sprintf("%08x-0000-4000-8000-%012x", i, i), Key: fmt.Sprintf("%08x-1111-4222-8333-%012x", i, i),
		Fingerprint: model.Fingerprint([]byte(body)), ResultID: fmt.Sprintf("ord_%020d", i),
		Source: model.Source{File: "client.har", Line: i + 2}}
}

// TestBrowserLinesKeptCompact: what a browser's line says beyond a
// proxy's (a fingerprint, in model.Fingerprint's form or another, a result
// id, a HAR entry's number) is kept compact and given back exactly, built
// in full or on demand; a line that says more is kept whole.
func TestBrowserLinesKeptCompact(t *testing.T) {
	for _, tc := range []struct {
		name  string
		edit  func(o *model.Observation)
		whole bool
	}{
		{"digest", func(*model.Observation) {}, false},
		{"other fingerprint", func(o *model.Observation) { o.Fingerprint = "md5:0123456789abcdef" }, false},
		{"upper-case digest", func(o *model.Observation) { o.Fingerprint = "sha256:" + fmt.Sprintf("%064X", 12345) }, false},
		{"uuid result", func(o *model.Observation) { o.ResultID = "5a0c7e21-0b1d-4c2e-8f3a-4b5c6d7e8f90" }, false},
		{"no fingerprint", func(o *model.Observation) { o.Fingerprint = "" }, false},
		{"entry", func(o *model.Observation) { o.Source.Entry = 7 }, false},
		{"timed out", func(o *model.Observation) {
			o.Status, o.Outcome, o.Detail, o.ResultID = 0, model.OutcomeTimeout, "net::ERR_TIMED_OUT", ""
		}, false},
		{"scope", func(o *model.Observation) { o.Scope = "tenant=a" }, true},
		{"proxy tier", func(o *model.Observation) { o.Tier = model.TierProxy }, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := browserEntry(1, `{"amount":100}`)
			tc.edit(o)
			c := NewCorrelator(nil)
			c.Add(o)
			if whole := c.obs.at(0).flags&flagFull != 0; whole != tc.whole {
				t.Errorf("kept whole = %v, want %v", whole, tc.whole)
			}
			sameFacts(t, correlated(t, Build{All: true}, o), o)
			sameFacts(t, correlated(t, defaultBuild(), o), o)
		})
	}
}

// TestSharedPayloadsAreBuilt: a browser's plain line is worth a look only
// where another line logged its payload too, at any tier, as
// retry-new-key, duplicate-submission and unkeyed-retry compare them;
// Build{All: true} is the reference.
func TestSharedPayloadsAreBuilt(t *testing.T) {
	var obs []*model.Observation
	for i := range 1000 {
		obs = append(obs, browserEntry(i, fmt.Sprintf(`{"amount":%d}`, i)))
	}
	obs[500].Fingerprint = obs[10].Fingerprint     // one payload under two keys
	unkeyed := browserEntry(2000, `{"amount":-1}`) // and one payload with and without a key
	unkeyed.Key = ""
	keyed := browserEntry(2001, `{"amount":-1}`)
	obs = append(obs, unkeyed, keyed)
	// An unkeyed browser line whose payload only a server's line logged,
	// in a delivery of its own.
	browser, server := browserEntry(3000, `{"amount":-2}`), browserEntry(3001, `{"amount":-2}`)
	browser.Key, server.Key, server.Tier = "", "", model.TierServer
	obs = append(obs, browser, server)
	built := func(b Build) (keys []string, nUnkeyed int) {
		c := NewCorrelator(nil)
		c.Build = b
		for _, o := range obs {
			c.Add(o)
		}
		s := c.Set(nil)
		for _, in := range s.Built {
			keys = append(keys, in.Key)
		}
		return keys, len(s.Unkeyed)
	}
	keys, nu := built(defaultBuild())
	want := map[string]bool{obs[10].Key: true, obs[500].Key: true, keyed.Key: true}
	if len(keys) != len(want) || nu != 3 {
		t.Fatalf("built %d intents (%v) and %d unkeyed deliveries, want %d and 3", len(keys), keys, nu, len(want))
	}
	for _, k := range keys {
		if !want[k] {
			t.Errorf("built %s, whose payload no other delivery logged", k)
		}
	}
	if all, nu := built(Build{All: true}); len(all) != len(obs)-3 || nu != 3 {
		t.Errorf("Build{All: true} built %d intents and %d unkeyed deliveries", len(all), nu)
	}
}

// TestBrowserEntriesAllocateLittle: a HAR's entries cost the correlator
// what it remembers of each, not a whole Observation a line: a million
// entries of 632 bytes peaked near 1 GB when each was kept whole (about
// 450 bytes of Observation and its strings copied, and every intent built
// in full for the rules).
func TestBrowserEntriesAllocateLittle(t *testing.T) {
	const n = 1 << 16
	obs := make([]*model.Observation, n)
	for i := range obs {
		obs[i] = browserEntry(i, fmt.Sprintf(`{"amount":%d,"currency":"EUR"}`, i))
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	c := NewCorrelator(nil)
	for _, o := range obs {
		c.Add(o)
	}
	s := c.Set(nil)
	runtime.ReadMemStats(&after)
	if len(s.Built) != 0 {
		t.Errorf("%d intents built of %d, whose entries were plain and payloads all different", len(s.Built), n)
	}
	// The compact line (56 bytes), its cextra (24), the digest (32), the
	// result id (24), the delivery, its id and key packed, their indexes,
	// and chunks made ahead: about 300 bytes an entry.
	per := (after.TotalAlloc - before.TotalAlloc) / n
	t.Logf("%d bytes an entry", per)
	if per > 400 {
		t.Errorf("%d bytes allocated an entry", per)
	}
	runtime.KeepAlive(c)
}
