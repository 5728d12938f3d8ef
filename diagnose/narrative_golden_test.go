package diagnose_test

import (
	stdcontext "context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/idem-cli/idem/diagnose"
	"github.com/idem-cli/idem/ingest"
	"github.com/idem-cli/idem/load"
)

// negativeGap is a duration below zero as Go writes it: "-1.5s".
var negativeGap = regexp.MustCompile(`(^|[^\w.:-])-[0-9][0-9.]*(ns|µs|ms|s|m|h)`)

// TestNarrativesAsWritten holds the narrative of every finding on the
// fixtures (the scenarios, the real captures, the incident) and on
// testdata/narratives/ to testdata/narratives.golden. The rules write
// their narratives by hand, without fmt (TestNarrativePiecesMatchFmt
// checks the pieces); the golden file was first written by the rules as
// they were written with fmt.Sprintf, so a change of wording shows here.
// go test -update rewrites it.
func TestNarrativesAsWritten(t *testing.T) {
	var dirs []string
	for _, glob := range []string{"../fixtures/scenarios/*", "../fixtures/real/*", "../fixtures/incident", "testdata/narratives"} {
		m, _ := filepath.Glob(glob)
		dirs = append(dirs, m...)
	}
	var b strings.Builder
	for _, dir := range dirs {
		var files []string
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			if n := e.Name(); e.Type().IsRegular() && !strings.HasSuffix(n, ".md") && !strings.HasSuffix(n, ".golden") && !strings.HasPrefix(n, "README") {
				files = append(files, filepath.Join(dir, n))
			}
		}
		if len(files) == 0 {
			continue
		}
		name := filepath.ToSlash(dir)
		set, err := load.Files(stdcontext.Background(), files, load.Options{Read: ingest.Options{}, Build: diagnose.DefaultOptions().Build()})
		if err != nil {
			fmt.Fprintf(&b, "%s: not read: %v\n", name, err)
			continue
		}
		for _, f := range diagnose.Run(set, diagnose.DefaultOptions()).Findings {
			fmt.Fprintf(&b, "%s: %s: %s\n", name, f.Rule.ID, f.Narrative)
			// Where the logs cannot order two events, the narrative
			// says so: it never computes a negative gap.
			if m := negativeGap.FindString(f.Narrative); m != "" {
				t.Errorf("%s: %s: a negative gap %q in %s", name, f.Rule.ID, m, f.Narrative)
			}
		}
	}
	golden := filepath.Join("testdata", "narratives.golden")
	if *update {
		if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got := b.String(); got != string(want) {
		gl, wl := strings.Split(got, "\n"), strings.Split(string(want), "\n")
		for i := range max(len(gl), len(wl)) {
			var g, w string
			if i < len(gl) {
				g = gl[i]
			}
			if i < len(wl) {
				w = wl[i]
			}
			if g != w {
				t.Fatalf("narratives differ from %s at line %d:\ngot  %s\nwant %s\n(go test -update rewrites it)", golden, i+1, g, w)
			}
		}
	}
}
