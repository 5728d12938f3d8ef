package capture

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// NewID returns a random UUID (version 4), as clients and proxies make
// request ids and Idempotency-Keys.
func NewID() string {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err) // crypto/rand does not fail on Linux
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// NewTraceParent returns a new W3C traceparent header and its trace id.
func NewTraceParent() (traceID, header string) {
	traceID = strings.ReplaceAll(NewID(), "-", "")
	return traceID, "00-" + traceID + "-" + strings.ReplaceAll(NewID(), "-", "")[:16] + "-01"
}

// Fingerprint is "sha256:" and the hex SHA-256 of a payload: what an
// idempotency layer stores to tell a retry from another command, and what
// the captures' services log as a body's hash.
func Fingerprint(body []byte) string {
	sum := sha256.Sum256(body)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// WriteFile writes a config or data file into dir and returns its path.
func WriteFile(t testing.TB, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// copyFile copies from to to, making to's directory.
func copyFile(t testing.TB, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	WriteFile(t, filepath.Dir(to), filepath.Base(to), string(b))
}

// ReadJSON decodes the JSON file at path into v, failing t when it cannot.
func ReadJSON(t testing.TB, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", filepath.Base(path), err)
	}
}

// MarshalRecord is v as the captures keep a record: indented JSON and a
// newline.
func MarshalRecord(v any) ([]byte, error) {
	b, err := json.MarshalIndent(v, "", "  ")
	return append(b, '\n'), err
}

// ReadLines is the file's complete lines (a last line still being written
// is left out).
func ReadLines(path string) ([]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var lines []string
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	if len(b) > 0 && b[len(b)-1] != '\n' && len(lines) > 0 {
		lines = lines[:len(lines)-1]
	}
	return lines, sc.Err()
}

// LineOf is the 1-based number of the first of lines containing s, or 0.
func LineOf(lines []string, s string) int {
	for i, l := range lines {
		if strings.Contains(l, s) {
			return i + 1
		}
	}
	return 0
}

// WaitFor waits until every needle appears in the file, for a process
// that writes its log line after the client is gone, and returns the
// file's lines.
func WaitFor(ctx context.Context, path string, needles ...string) ([]string, error) {
	for {
		lines, err := ReadLines(path)
		missing := ""
		for _, n := range needles {
			if LineOf(lines, n) == 0 {
				missing = n
				break
			}
		}
		if err == nil && missing == "" {
			return lines, nil
		}
		select {
		case <-ctx.Done():
			return lines, fmt.Errorf("%s: no line with %q: %w", path, missing, ctx.Err())
		case <-time.After(25 * time.Millisecond):
		}
	}
}

// WaitLogged waits until every request of sent (by its request id)
// appears in every log, failing t after 15 seconds.
func WaitLogged(t testing.TB, sent []Sent, logs ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	for _, l := range logs {
		if _, err := WaitFor(ctx, l, RequestIDs(sent)...); err != nil {
			t.Fatal(err)
		}
	}
}

// SyncWriter serialises the writes of several loggers (or goroutines) to
// one file, so that their lines do not interleave.
type SyncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

// NewSyncWriter serialises writes to w.
func NewSyncWriter(w io.Writer) *SyncWriter { return &SyncWriter{w: w} }

func (s *SyncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}
