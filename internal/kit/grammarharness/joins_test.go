package grammarharness

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/idem-cli/idem/internal/kit/capture"
	"github.com/idem-cli/idem/model"
)

// TestApacheLearnsFromTheServer reads real Apache httpd's stock log with
// the request id and the key appended (idem's own LogFormat) beside the
// backend's log of the same traffic, every id the harness sent written
// instead as a value no id shape names ("rid-3-created"): Apache's line
// then names neither, the server's log names both, and the positions of
// Apache's fields are learned from the server's values. Each request the
// harness sent that reached the backend is one delivery, Apache's line
// and the server's; the facts are the harness's own record.
func TestApacheLearnsFromTheServer(t *testing.T) {
	src := filepath.Join(realDir, "apache")
	run, err := loadRun(src)
	if err != nil {
		t.Fatal(err)
	}
	var pairs []string
	ids := map[string]string{}
	keys := map[string]string{}
	for i, s := range run.Sent {
		if s.RequestID != "" {
			ids[s.RequestID] = fmt.Sprintf("rid-%d-%s", i+1, s.Step)
			pairs = append(pairs, s.RequestID, ids[s.RequestID])
		}
		if s.Key != "" && keys[s.Key] == "" {
			keys[s.Key] = fmt.Sprintf("key-%d", len(keys)+1)
			pairs = append(pairs, s.Key, keys[s.Key])
		}
	}
	rename := strings.NewReplacer(pairs...)
	dir := t.TempDir()
	copyRenamed := func(name string) string {
		b, err := os.ReadFile(filepath.Join(src, name))
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(rename.Replace(string(b))), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	access, app := copyRenamed(apacheIdemLog), copyRenamed(run.BackendLog)

	alone, err := capture.Read(context.Background(), access)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range alone.From(access) {
		if o.RequestID != "" || o.Key != "" {
			t.Fatalf("%s: alone, Apache's line names id %q key %q: the test needs lines that name neither", o.Source, o.RequestID, o.Key)
		}
	}

	r, err := capture.Read(context.Background(), access, app)
	if err != nil {
		t.Fatal(err)
	}
	learned := map[string]string{}
	for _, u := range r.Input(access).Joined {
		learned[u.Field] = u.Path
		if !strings.Contains(u.By, "server") {
			t.Errorf("%s ← %s: %s, want it joined to the server's ids", u.Field, u.Path, u.By)
		}
	}
	// idem's LogFormat: %h %l %u %t "%r" %>s %b "%{Referer}i" "%{User-Agent}i" %D "%{X-Request-Id}i" "%{Idempotency-Key}i"
	if learned["request_id"] != "$11" || learned["key"] != "$12" {
		t.Fatalf("Apache's log learned %v, want request_id ← $11 and key ← $12", learned)
	}
	if len(r.Input(app).Joined) != 0 {
		t.Errorf("the server, which names its ids, learned %v", r.Input(app).Joined)
	}
	var sentKeys []string
	for _, k := range keys {
		sentKeys = append(sentKeys, k)
	}
	dels := r.Deliveries(sentKeys)
	reached := 0
	for _, s := range run.Sent {
		if !s.Reached {
			continue
		}
		reached++
		d := dels[ids[s.RequestID]]
		if d == nil {
			t.Errorf("step %s: no delivery %s; deliveries %v", s.Step, ids[s.RequestID], capture.IDs(dels))
			continue
		}
		if d.At(model.TierProxy) == nil || d.At(model.TierServer) == nil {
			t.Errorf("step %s: delivery %s has tiers %s, want Apache's line and the server's", s.Step, d.RequestID, capture.Tiers(d))
		}
		if s.Key != "" && d.Key != keys[s.Key] {
			t.Errorf("step %s: delivery %s has key %q, want %q", s.Step, d.RequestID, d.Key, keys[s.Key])
		}
	}
	if reached == 0 {
		t.Fatal("no request of the capture reached the backend")
	}
}
