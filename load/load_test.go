package load_test

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/idem-cli/idem/formats"
	"github.com/idem-cli/idem/ingest"
	"github.com/idem-cli/idem/load"
	"github.com/idem-cli/idem/model"
	"github.com/idem-cli/idem/trace"
)

const incidentKey = "0b5d3c1e-5b7a-4d1e-9a63-2f1f3c9b8e41"

// TestFilesCorrelatesEveryTier: the incident's three logs become one
// intent whose first delivery crossed the client, proxy and server, the
// capturer sees the browser's request, and the set calls Released once
// it lets go of the store.
func TestFilesCorrelatesEveryTier(t *testing.T) {
	paths, _ := filepath.Glob("../fixtures/incident/*")
	released := 0
	capture := ingest.NewCapturer(incidentKey, "")
	set, err := load.Files(context.Background(), paths, load.Options{Capture: capture, Released: func() { released++ }})
	if err != nil {
		t.Fatal(err)
	}
	if len(set.Inputs) != 3 {
		t.Fatalf("%d inputs", len(set.Inputs))
	}
	in := set.FindIntent(incidentKey)
	if len(in) != 1 || len(in[0].Deliveries) < 2 {
		t.Fatalf("intents of the key: %v", in)
	}
	var tiers []model.Tier
	for _, o := range in[0].Deliveries[0].Observations {
		tiers = append(tiers, o.Tier)
	}
	if !slices.Equal(slices.Compact(tiers), []model.Tier{model.TierClient, model.TierProxy, model.TierServer}) {
		t.Errorf("first delivery's tiers %v", tiers)
	}
	if len(capture.Captured) == 0 {
		t.Errorf("the capturer saw no request")
	}
	if released != 0 {
		t.Fatalf("released before LookupsDone")
	}
	set.LookupsDone()
	if released != 1 {
		t.Errorf("Released called %d times", released)
	}
}

// plain is three answered requests under three keys, one line each:
// nothing in them is worth a look on its own.
const plain = `{"time":"2026-11-30T09:00:00Z","request_id":"r-1","idempotency_key":"k-1","method":"POST","path":"/v1/orders","status":201}
{"time":"2026-11-30T09:00:01Z","request_id":"r-2","idempotency_key":"k-2","method":"POST","path":"/v1/refunds","status":201}
{"time":"2026-11-30T09:00:02Z","request_id":"r-3","idempotency_key":"k-1","method":"POST","path":"/v1/refunds","status":201}
`

func read(t *testing.T, opts load.Options) *model.Set {
	t.Helper()
	opts.Read.Stdin = strings.NewReader(plain)
	set, err := load.Files(context.Background(), []string{"-"}, opts)
	if err != nil {
		t.Fatal(err)
	}
	return set
}

// TestBuildAndScopeAreTheCallers: what is built is what Build says, and
// the config's scope separates keys, while the counts stay the inputs'.
func TestBuildAndScopeAreTheCallers(t *testing.T) {
	byRoute := &formats.Config{Scope: []string{"route"}}
	if err := byRoute.Compile(); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name           string
		opts           load.Options
		built, intents int
	}{
		{"nothing asked", load.Options{}, 1, 2}, // k-1's second delivery makes it worth a look
		{"everything", load.Options{Build: trace.Build{All: true}}, 2, 2},
		{"scoped by route", load.Options{Read: ingest.Options{Config: byRoute}, Build: trace.Build{All: true}}, 3, 3},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			set := read(t, c.opts)
			if len(set.Built) != c.built || set.IntentCount() != c.intents || set.DeliveryCount() != 3 {
				t.Errorf("%d built, %d intents, %d deliveries; want %d, %d, 3", len(set.Built), set.IntentCount(), set.DeliveryCount(), c.built, c.intents)
			}
		})
	}
}

// source is a log store's answer: lines under a name.
type source struct{ name, text string }

func (s source) Name() string { return s.name }

func (s source) Open(context.Context) (io.ReadCloser, error) {
	return io.NopCloser(strings.NewReader(s.text)), nil
}

// TestSourcesReadLikeFiles: lines from a source correlate as the same
// lines from a file do, cited under the source's name.
func TestSourcesReadLikeFiles(t *testing.T) {
	path := "../fixtures/incident/nginx-access.jsonl"
	text, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	fromFile, err := load.Files(context.Background(), []string{path}, load.Options{Build: trace.Build{All: true}})
	if err != nil {
		t.Fatal(err)
	}
	fromStore, err := load.Sources(context.Background(), []ingest.Source{source{"store", string(text)}}, load.Options{Build: trace.Build{All: true}})
	if err != nil {
		t.Fatal(err)
	}
	ids := func(set *model.Set) (out []string) {
		for _, in := range set.Built {
			out = append(out, in.ID)
		}
		return out
	}
	if !slices.Equal(ids(fromFile), ids(fromStore)) || fromFile.DeliveryCount() != fromStore.DeliveryCount() {
		t.Errorf("file %v (%d deliveries), store %v (%d)", ids(fromFile), fromFile.DeliveryCount(), ids(fromStore), fromStore.DeliveryCount())
	}
	if got := fromStore.Built[0].Deliveries[0].Observations[0].Source.File; got != "store" {
		t.Errorf("cited as %q", got)
	}
}
