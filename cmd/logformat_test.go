package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A log_format that does not parse is a usage error naming the column; a
// good one reads the capture its server wrote.
func TestLogFormatConfig(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte(`{"sources":[{"path":"*","log_format":"$remote_addr [$time_local] ${status"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := run(t, "", "diagnose", "--config", bad, "../fixtures/incident/app.jsonl")
	if code != exitError || !strings.Contains(stderr, "sources[0]: nginx log_format, column 28: expected '}' closing ${") {
		t.Errorf("a bad log_format: exit %d, %q", code, stderr)
	}
	ambiguous := filepath.Join(dir, "ambiguous.json")
	if err := os.WriteFile(ambiguous, []byte(`{"sources":[{"path":"*","log_format":"%h %t \"%r\" %>s %D"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := run(t, "", "diagnose", "--config", ambiguous, "../fixtures/incident/app.jsonl"); code != exitError ||
		!strings.Contains(stderr, "log_format_syntax") {
		t.Errorf("an Apache-family log_format without its syntax: exit %d, %q", code, stderr)
	}
	fx := "../fixtures/real/apache/"
	code, stdout, stderr := run(t, "", "diagnose", "--config", fx+"idem.json", fx+"apache.reordered.log", fx+"app.jsonl")
	// Neither Apache nor the backend logs a payload: the rules that compare
	// payloads could not look, so "no findings" is inconclusive.
	if code != exitInconclusive || !strings.Contains(stdout, "(0 skipped, 0 ignored), 7 deliveries (1 unkeyed), 5 intents") ||
		!strings.Contains(stdout, "no tier logged a payload fingerprint") {
		t.Errorf("Apache's capture through its log_format: exit %d\n%s%s", code, stdout, stderr)
	}
}
