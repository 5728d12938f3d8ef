package appharness

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/idem-cli/idem/internal/kit/capture"
	"github.com/idem-cli/idem/model"
)

// renameAll rewrites a JSON-lines log with every member's name prefixed,
// so that no name idem knows, of any vocabulary or format, is left.
func renameAll(t *testing.T, from, to string) {
	t.Helper()
	in, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	var out strings.Builder
	sc := bufio.NewScanner(in)
	sc.Buffer(nil, 1<<20)
	var rename func(v any) any
	rename = func(v any) any {
		switch x := v.(type) {
		case map[string]any:
			m := map[string]any{}
			for k, e := range x {
				m["zq"+k] = rename(e)
			}
			return m
		case []any:
			for i := range x {
				x[i] = rename(x[i])
			}
		}
		return v
	}
	for sc.Scan() {
		var v any
		if err := json.Unmarshal(sc.Bytes(), &v); err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(rename(v))
		if err != nil {
			t.Fatal(err)
		}
		out.Write(append(b, '\n'))
	}
	if err := os.WriteFile(to, []byte(out.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestJoinsNameWhatNoNameSays renames every field of each capture's
// server log and reads it beside nginx's: the request id and the key are
// found by the values nginx logged, each request is one delivery from the
// proxy's line to the server's, and each key's intent holds the server's
// lines of its requests.
func TestJoinsNameWhatNoNameSays(t *testing.T) {
	for _, b := range unknownLoggers {
		t.Run(b.library, func(t *testing.T) {
			dir := filepath.Join(fixturesDir, "nginx-"+b.library)
			c := loadCapture(t, dir)
			app := filepath.Join(t.TempDir(), "renamed.jsonl")
			renameAll(t, c.Log, app)
			r := capture.MustRead(t, filepath.Join(dir, NginxLog), app)
			in := r.Input(app)
			fields := map[string]string{}
			for _, u := range in.Joined {
				fields[u.Field] = u.Path
				if !strings.Contains(u.By, "proxy") {
					t.Errorf("%s ← %s: %s, want it joined to the proxy's", u.Field, u.Path, u.By)
				}
			}
			if !strings.HasPrefix(fields["request_id"], "zq") || !strings.HasPrefix(fields["key"], "zq") {
				t.Fatalf("learned %+v, want the request id and the key", in.Joined)
			}
			f := knownGaps.Facts(t, "renamed-"+b.library)
			keys, byKey := capture.ByKey(c.Sent, func(s capture.Sent) string { return s.Key })
			dels := r.Deliveries(sentKeys(c.Sent))
			for _, s := range c.Sent {
				d := dels[s.RequestID]
				if !f.Check("delivery", d != nil, "step %s: no delivery %s; deliveries %v", s.Step, s.RequestID, capture.IDs(dels)) {
					continue
				}
				tiers := map[model.Tier]bool{}
				for _, o := range d.Observations {
					tiers[o.Tier] = true
				}
				f.Check("join", tiers[model.TierProxy] && tiers[model.TierServer], "step %s: delivery %s has tiers %v, want the proxy's and the server's", s.Step, s.RequestID, tiers)
			}
			f.Check("deliveries", r.Set.DeliveryCount() == len(c.Sent), "%d deliveries, want %d (one per request): %v",
				r.Set.DeliveryCount(), len(c.Sent), capture.IDs(dels))
			for _, k := range keys {
				if k == "" {
					continue
				}
				in := f.Intent("intent", r.Set, k, capture.RequestIDs(byKey[k]))
				if in == nil {
					continue
				}
				server := slices.ContainsFunc(in.Deliveries, func(d *model.Delivery) bool { return d.At(model.TierServer) != nil })
				f.Check("intent-server", server, "key %s: no server line in its intent", k)
			}
		})
	}
}
