package trace_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/idem-cli/idem/ingest"
	"github.com/idem-cli/idem/model"
	"github.com/idem-cli/idem/trace"
)

const incidentKey = "0b5d3c1e-5b7a-4d1e-9a63-2f1f3c9b8e41"

func loadIncident(t *testing.T) *model.Set {
	t.Helper()
	paths, _ := filepath.Glob("../fixtures/incident/*")
	c := trace.NewCorrelator(nil)
	inputs, err := ingest.Read(context.Background(), paths, ingest.Options{}, c)
	if err != nil {
		t.Fatal(err)
	}
	return c.Set(inputs)
}

func TestIncidentCorrelatesAcrossTiers(t *testing.T) {
	set := loadIncident(t)
	intents := set.FindIntent(incidentKey)
	if len(intents) != 1 {
		t.Fatalf("found %d intents for the key", len(intents))
	}
	in := intents[0]
	if len(in.Deliveries) != 2 {
		t.Fatalf("got %d deliveries, want 2", len(in.Deliveries))
	}
	first, retry := in.Deliveries[0], in.Deliveries[1]
	// Each delivery has the client, proxy and server tiers, in that order.
	for _, d := range in.Deliveries {
		var tiers []model.Tier
		for _, o := range d.Observations {
			if len(tiers) == 0 || tiers[len(tiers)-1] != o.Tier {
				tiers = append(tiers, o.Tier)
			}
		}
		if len(tiers) != 3 || tiers[0] != model.TierClient || tiers[1] != model.TierProxy || tiers[2] != model.TierServer {
			t.Errorf("delivery %s tiers %v", d.RequestID, tiers)
		}
	}
	if first.Lost() == nil || first.Lost().Outcome != model.OutcomeTimeout {
		t.Errorf("first delivery's loss not seen: %+v", first.Edge())
	}
	if retry.Lost() != nil {
		t.Errorf("retry marked lost")
	}
	if effects := in.Effects(); len(effects) != 1 || effects[0].ResultID != "ord_8H2kQ" {
		t.Errorf("effects %+v", effects)
	}
	// The server logs only a hash of the key; it joined through the request id.
	if first.KeyHash != model.HashKey(incidentKey) {
		t.Errorf("key hash %q, want %q", first.KeyHash, model.HashKey(incidentKey))
	}
	if got := set.FindIntent(model.HashKey(incidentKey)); len(got) != 0 && got[0] != in {
		t.Errorf("lookup by hash found another intent")
	}
	if len(set.Unkeyed) != 1 || set.Unkeyed[0].Method() != "GET" {
		t.Errorf("unkeyed deliveries: %d", len(set.Unkeyed))
	}
	if len(set.Built) != 2 {
		t.Errorf("intents: %d, want 2", len(set.Built))
	}
}

// TestLongRequestThroughTheReader: nginx logs a 4000 s request; the
// correlated set says 4000 s, not the 35m47.484s of 32-bit microseconds.
func TestLongRequestThroughTheReader(t *testing.T) {
	path := filepath.Join(t.TempDir(), "nginx.jsonl")
	line := `{"time_iso8601":"2026-11-30T14:00:00+00:00","msec":"1796047200.000","remote_addr":"198.51.100.23",` +
		`"http_x_request_id":"rid-long","http_idempotency_key":"key-long","request_method":"POST","request_uri":"/v1/exports",` +
		`"status":"201","request_time":"4000.000","upstream_status":"201"}` + "\n"
	if err := os.WriteFile(path, []byte(line), 0o644); err != nil {
		t.Fatal(err)
	}
	c := trace.NewCorrelator(nil)
	inputs, err := ingest.Read(context.Background(), []string{path}, ingest.Options{}, c)
	if err != nil {
		t.Fatal(err)
	}
	set := c.Set(inputs)
	in := set.FindIntent("key-long")
	if len(in) != 1 || len(in[0].Deliveries) != 1 {
		t.Fatalf("found %v", in)
	}
	if d := in[0].Deliveries[0].Observations[0].Duration; d != 4000*time.Second {
		t.Errorf("duration %s, want 4000s", d)
	}
}
