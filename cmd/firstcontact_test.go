package cmd

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/idem-cli/idem/internal/iostreams"
)

// TestUnreadableInputIsSaidBeforeTheFindings: on a terminal standard
// output and standard error are one screen; the warning that an input
// could not be read comes before the report, not after its last finding,
// and still fails the run.
func TestUnreadableInputIsSaidBeforeTheFindings(t *testing.T) {
	ios, _, out, _ := iostreams.Test()
	ios.ErrOut = out // one screen
	f := &Factory{IO: ios, Now: time.Now, Getenv: func(string) string { return "" }}
	paths, err := filepath.Glob("../fixtures/scenarios/retry-new-key/*")
	if err != nil || len(paths) == 0 {
		t.Fatal(paths, err)
	}
	missing := filepath.Join(t.TempDir(), "gone.jsonl")
	code := Run(context.Background(), f, append([]string{"diagnose", missing}, paths...))
	if code != exitError {
		t.Errorf("exit %d, want %d", code, exitError)
	}
	screen := out.String()
	warn, finding := strings.Index(screen, "idem: cannot read input"), strings.Index(screen, "CRITICAL")
	if warn < 0 || finding < 0 {
		t.Fatalf("no warning or no finding:\n%s", screen)
	}
	if warn > finding {
		t.Errorf("the warning comes after the findings:\n%s", screen)
	}
}
