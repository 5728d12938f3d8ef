package ingest

import (
	"bytes"
	"context"
	"testing"
	"time"
)

// FuzzRead feeds a whole input (lines, documents, compressed or not): it
// must not panic or hang, and every line is observed, ignored or skipped.
func FuzzRead(f *testing.F) {
	f.Add([]byte("{\"a\":1}\n{broken\n"))
	f.Add([]byte("[{\"request_id\":\"r\",\"method\":\"GET\",\"status\":200}]"))
	f.Add([]byte("{\n \"log\": {\"entries\": [{\"startedDateTime\":\"2026-11-30T09:14:02Z\",\"request\":{\"method\":\"POST\"},\"response\":{\"status\":0}}]}}"))
	f.Add([]byte{0x1f, 0x8b, 0x08, 0x00})
	f.Add([]byte{0x28, 0xb5, 0x2f, 0xfd, 0x00})
	f.Fuzz(func(t *testing.T, data []byte) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		var n counter
		inputs, err := Read(ctx, []string{"-"}, Options{Stdin: bytes.NewReader(data), MaxLineBytes: 1 << 16}, &n)
		if err != nil {
			t.Fatalf("Read: %v", err)
		}
		if inputs[0].Observations != n.N {
			t.Fatalf("observations counted %d, delivered %d", inputs[0].Observations, n.N)
		}
	})
}
