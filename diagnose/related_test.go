package diagnose_test

import (
	"slices"
	"testing"

	"github.com/idem-cli/idem/diagnose"
	"github.com/idem-cli/idem/model"
	"github.com/idem-cli/idem/trace"
)

// TestRelated: the intents a finding ties are related both ways, with the
// rule that tied them, on a real capture where no tier logged a payload
// (nginx in front of a backend that lost a response); an intent no
// finding ties and no payload matches has none.
func TestRelated(t *testing.T) {
	res, set := diagnoseFiles(t, "../fixtures/real/nginx/access.json.log", "../fixtures/real/nginx/app.jsonl")
	const first, second, alone = "eb3f3ad0-e9db-4547-8b8e-70f2ab7de71a", "f4ff2759-c008-4a8d-8f91-93a7c59086a7", "05943916-da15-477a-a1f9-acca3b93aa5b"
	related := func(key string) map[string][]string {
		t.Helper()
		ins := set.FindIntent(key)
		if len(ins) != 1 {
			t.Fatalf("key %s: %d intents", key, len(ins))
		}
		out := map[string][]string{}
		for _, r := range res.Related(ins[0]) {
			out[r.Intent.Key] = r.By
		}
		return out
	}
	for _, tt := range []struct{ key, other string }{{first, second}, {second, first}} {
		got := related(tt.key)
		if len(got) != 1 || !slices.Equal(got[tt.other], []string{"retry-new-key"}) {
			t.Errorf("related(%s) = %v, want %s by retry-new-key", tt.key, got, tt.other)
		}
	}
	if got := related(alone); len(got) != 0 {
		t.Errorf("related(%s) = %v, want none: its finding names it alone", alone, got)
	}
}

// TestRelatedBySamePayload: two keys whose payloads had the same
// fingerprint are related even where no finding ties them; another
// payload is not, and a key is never its own relation.
func TestRelatedBySamePayload(t *testing.T) {
	cr := trace.NewCorrelator(nil)
	for i, b := range []ob{
		server("r1").key("k-1").post().at(0).took(0.1).status(201).fp("sha256:aaaa"),
		server("r2").key("k-2").post().at(7200).took(0.1).status(201).fp("sha256:aaaa"),
		server("r3").key("k-3").post().at(7300).took(0.1).status(201).fp("sha256:bbbb"),
	} {
		o := b.o
		o.Source = model.Source{File: caseFile, Line: i + 1}
		cr.Add(&o)
	}
	set := cr.Set(nil)
	res := diagnose.Run(set, diagnose.DefaultOptions())
	got := map[string][]string{}
	for _, r := range res.Related(set.FindIntent("k-1")[0]) {
		got[r.Intent.Key] = r.By
	}
	if len(got) != 1 || !slices.Equal(got["k-2"], []string{"same payload fingerprint"}) {
		t.Errorf("related(k-1) = %v, want k-2 by the same payload fingerprint alone", got)
	}
}
