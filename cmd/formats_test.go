package cmd

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/idem-cli/idem/formats"
)

// TestEveryAdvertisedFormatNameIsAccepted reads the names idem
// advertises (its help topic, docs/formats.md and the config doc) and runs
// each through --input-format: none may be refused.
func TestEveryAdvertisedFormatNameIsAccepted(t *testing.T) {
	names := map[string]bool{}
	for _, n := range formats.Names() {
		names[n] = true
	}
	// The help topic lists NAME (aliases) at the start of its rows.
	_, help, _ := run(t, "", "help", "formats")
	row := regexp.MustCompile(`(?m)^  ([a-z][a-z0-9-]*)(?: \(([a-z0-9, -]+)\))?`)
	for _, m := range row.FindAllStringSubmatch(help, -1) {
		names[m[1]] = true
		for _, a := range strings.Split(m[2], ", ") {
			if a != "" {
				names[a] = true
			}
		}
	}
	// docs/formats.md names formats in backticks in its tables' first columns.
	doc, err := os.ReadFile("../docs/formats.md")
	if err != nil {
		t.Fatal(err)
	}
	cell := regexp.MustCompile("(?m)^\\|(?: \\d+ \\|)? ((?:`[a-z0-9-]+`(?:, )?)+) \\|")
	for _, m := range cell.FindAllStringSubmatch(string(doc), -1) {
		for _, n := range regexp.MustCompile("`([a-z0-9-]+)`").FindAllStringSubmatch(m[1], -1) {
			names[n[1]] = true
		}
	}
	if len(names) < 30 {
		t.Fatalf("found only %d advertised names: %v", len(names), names)
	}
	line := `{"time":"2026-11-30T10:00:00Z","level":"INFO","msg":"x","request_id":"r1"}` + "\n"
	for n := range names {
		// A format the line is not in has nothing to diagnose (exit 2 too):
		// the name was accepted all the same.
		if code, _, stderr := run(t, line, "diagnose", "--input-format", n, "-"); code == exitError && !strings.Contains(stderr, "nothing to diagnose") || strings.Contains(stderr, "unknown") {
			t.Errorf("--input-format %s: exit %d: %s", n, code, stderr)
		}
	}
	if code, _, stderr := run(t, line, "diagnose", "--input-format", "nope", "-"); code != exitError || !strings.Contains(stderr, "alb") {
		t.Errorf("an unknown format: exit %d, %q; want a usage error that lists the names", code, stderr)
	}
}

// TestFormatsDocIsGenerated keeps the registry table of docs/formats.md
// equal to the registry: go test ./cmd -run TestFormatsDoc -update.
func TestFormatsDocIsGenerated(t *testing.T) {
	const begin, end = "<!-- registry:begin (generated: go test ./cmd -run TestFormatsDoc -update) -->\n", "<!-- registry:end -->\n"
	path := "../docs/formats.md"
	doc, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := string(doc)
	i, j := strings.Index(s, begin), strings.Index(s, end)
	if i < 0 || j < i {
		t.Fatalf("docs/formats.md has no generated registry section (%q … %q)", begin, end)
	}
	want := s[:i+len(begin)] + formats.Markdown() + s[j:]
	if *update {
		if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if s != want {
		t.Errorf("docs/formats.md's registry table is out of date: go test ./cmd -run TestFormatsDoc -update")
	}
}
