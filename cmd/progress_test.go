package cmd

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/gzip"

	"github.com/idem-cli/idem/internal/iostreams"
)

func TestSizesAreDecimalMegabytes(t *testing.T) {
	for _, tc := range []struct {
		n    int64
		want string
	}{
		{0, "0 MB"}, {999_999, "0 MB"}, {1_000_000, "1 MB"}, {260_000_000, "260 MB"},
		{3 * 260_000_000, "780 MB"}, // three copies of a 260 MB file, not "743 MB"
		{1 << 30, "1073 MB"},
	} {
		if got := mb(tc.n); got != tc.want {
			t.Errorf("mb(%d) = %q, want %q", tc.n, got, tc.want)
		}
	}
}

func TestStdinHintOnlyAtATerminal(t *testing.T) {
	for _, tc := range []struct {
		name     string
		stdinTTY bool
		paths    []string
		want     bool
	}{
		{"dash at a terminal", true, []string{"-"}, true},
		{"dash among files at a terminal", true, []string{"../fixtures/incident/app.jsonl", "-"}, true},
		{"dash from a pipe", false, []string{"-"}, false},
		{"files at a terminal", true, []string{"../fixtures/incident/app.jsonl"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ios, in, _, errOut := iostreams.Test()
			in.WriteString("{}\n")
			ios.SetTTY(tc.stdinTTY, false, false)
			f := &Factory{IO: ios, Now: time.Now, Getenv: func(string) string { return "" }}
			if _, err := readInputs(context.Background(), f, &inputFlags{MaxLineBytes: 1 << 20}, tc.paths); err != nil {
				t.Fatal(err)
			}
			got := strings.Contains(errOut.String(), "reading standard input; Ctrl-D to end")
			if got != tc.want {
				t.Errorf("hint shown %v, want %v: %q", got, tc.want, errOut.String())
			}
		})
	}
}

// TestSizeOfCountsWhatCompressedFilesExpandTo: progress counts bytes on
// disk, the memory policy what reading yields, which a gzip file says in
// its trailer; standard input makes the size unknown.
func TestSizeOfCountsWhatCompressedFilesExpandTo(t *testing.T) {
	dir := t.TempDir()
	plain := filepath.Join(dir, "plain.log")
	if err := os.WriteFile(plain, []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	w, _ := gzip.NewWriterLevel(&b, gzip.BestSpeed)
	const lines = 8 << 20
	w.Write(bytes.Repeat([]byte("\n"), lines))
	w.Close()
	packed := filepath.Join(dir, "newlines.gz")
	if err := os.WriteFile(packed, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	got := sizeOf([]string{plain, packed})
	want := inputsSize{total: 2 + int64(b.Len()), expanded: 2 + lines, known: true}
	if got != want {
		t.Errorf("sizeOf = %+v, want %+v", got, want)
	}
	if got := sizeOf([]string{plain, "-"}); got.known || got.total != 2 || got.expanded != 2 {
		t.Errorf("with standard input: sizeOf = %+v, want unknown, 2 bytes counted", got)
	}
}
