package ingest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/idem-cli/idem/formats"
	"github.com/idem-cli/idem/model"
	"github.com/idem-cli/idem/trace"
)

// TestHostileCorpus reads every file of fixtures/hostile and pins what
// happens: no panic, the good lines kept, the bad ones counted with
// file:line and a reason, and a read error only for the cut gzip stream.
func TestHostileCorpus(t *testing.T) {
	tests := []struct {
		file    string
		obs     int
		skipped map[int]string // line → reason substring
		readErr string
	}{
		{"array.json", 2, nil, ""},
		{"binary-junk.jsonl", 1, map[int]string{1: "not a JSON object", 3: "not a JSON object"}, ""},
		{"bracket-first-line.log", 4, map[int]string{1: "not a JSON object"}, ""},
		{"bom.jsonl", 2, nil, ""},
		{"control-bytes.jsonl", 4, nil, ""},
		{"crlf.jsonl", 3, nil, ""},
		{"cut-short.har", 1, map[int]string{92: "ends inside a value"}, "ends inside a value at line 92"},
		{"cut-short.jsonl.gz", 982, nil, "unexpected EOF"},
		{"deeply-nested.jsonl", 2, map[int]string{2: "nested deeper", 3: "nested deeper"}, ""},
		{"duplicate-keys.jsonl", 2, nil, ""},
		{"empty.jsonl", 0, nil, ""},
		{"escapes.jsonl", 2, nil, ""},
		{"huge-key.jsonl", 2, nil, ""},
		{"invalid-utf8.jsonl", 3, nil, ""},
		{"long-line.jsonl", 3, nil, ""},
		{"missing-fields.har", 3, map[int]string{60: "not a JSON object", 61: "not a JSON object", 62: "not a JSON object"}, ""},
		{"nul-bytes.jsonl", 2, map[int]string{2: "not a JSON object"}, ""},
		{"one-line.har", 3, nil, ""},
		{"truncated.jsonl", 2, map[int]string{2: "invalid JSON", 4: "invalid JSON"}, ""},
		{"types.jsonl", 4, nil, ""},
		{"secrets.har", 2, nil, ""},
		{"secrets.jsonl", 3, nil, ""},
	}
	files, _ := filepath.Glob("../fixtures/hostile/*")
	if len(files) != len(tests)+1 { // and README.md
		t.Errorf("fixtures/hostile has %d files, the table %d", len(files), len(tests))
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			var col Collector
			inputs, err := Read(context.Background(), []string{"../fixtures/hostile/" + tt.file}, Options{}, &col)
			if err != nil {
				t.Fatal(err)
			}
			obs := col.Obs
			in := inputs[0]
			if len(obs) != tt.obs {
				t.Errorf("%d observations, want %d", len(obs), tt.obs)
			}
			if in.Skipped != len(tt.skipped) {
				t.Errorf("%d skipped, want %d: %+v", in.Skipped, len(tt.skipped), in.SkipSamples)
			}
			for _, s := range in.SkipSamples {
				if want, ok := tt.skipped[s.Source.Line]; !ok || !strings.Contains(s.Reason, want) {
					t.Errorf("skip %s: %q, want %q", s.Source, s.Reason, want)
				}
			}
			switch {
			case tt.readErr == "" && in.Err != nil:
				t.Errorf("read error %v", in.Err)
			case tt.readErr != "" && (in.Err == nil || !strings.Contains(in.Err.Error(), tt.readErr)):
				t.Errorf("read error %v, want %q", in.Err, tt.readErr)
			}
			for _, o := range obs {
				if len(o.Key) > formats.MaxField || len(o.Message) > formats.MaxField {
					t.Errorf("a field of %d bytes was kept", max(len(o.Key), len(o.Message)))
				}
			}
		})
	}
}

// TestManyDeliveriesAreSummarised gives one key 20,000 deliveries and one
// request id 5,000 observations: what is built stays bounded.
func TestManyDeliveriesAreSummarised(t *testing.T) {
	c := trace.NewCorrelator(nil)
	t0 := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	for i := 0; i < 20000; i++ {
		c.Add(&model.Observation{Tier: model.TierProxy, RequestID: fmt.Sprintf("r-%d", i), Key: "storm", Method: "POST", Route: "/x",
			Status: 503, Time: t0.Add(time.Duration(i) * time.Second)})
	}
	for i := 0; i < 5000; i++ {
		c.Add(&model.Observation{Tier: model.TierServer, RequestID: "reused", Key: "k2", Status: 200, Time: t0.Add(time.Duration(i) * time.Second)})
	}
	set := c.Set(nil)
	in := set.FindIntent("storm")
	if len(in) != 1 || in[0].Total != 20000 || len(in[0].Deliveries) != trace.MaxDeliveriesBuilt {
		t.Fatalf("storm: total %d, built %d", in[0].Total, len(in[0].Deliveries))
	}
	if last := in[0].Deliveries[len(in[0].Deliveries)-1]; last.RequestID != "r-19999" {
		t.Errorf("the last delivery kept is %s", last.RequestID)
	}
	d := set.FindIntent("k2")[0].Deliveries[0]
	if d.Total != 5000 || len(d.Observations) != trace.MaxObservationsBuilt {
		t.Errorf("reused id: total %d, built %d", d.Total, len(d.Observations))
	}
}

func TestFIFOIsRefused(t *testing.T) {
	p := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	_, err := Read(context.Background(), []string{p}, Options{}, &counter{})
	if err == nil || !strings.Contains(err.Error(), "named pipe") || !strings.Contains(err.Error(), p) {
		t.Errorf("FIFO: %v", err)
	}
	_ = os.Remove(p)
}
