package trace

import (
	"context"
	"os"
	"testing"
	"time"
)

// TestPhases times reading and correlating a big file (IDEM_PHASES=file).
func TestPhases(t *testing.T) {
	path := os.Getenv("IDEM_PHASES")
	if path == "" {
		t.Skip("set IDEM_PHASES to a log file")
	}
	start := time.Now()
	n := 0
	Read(context.Background(), []string{path}, Options{}, func(*Observation) { n++ })
	read := time.Since(start)
	start = time.Now()
	c := NewCorrelator(nil)
	inputs, _ := Read(context.Background(), []string{path}, Options{}, c.Add)
	readAdd := time.Since(start)
	start = time.Now()
	set := c.Set(inputs)
	t.Logf("read %v, read+add %v, set %v (%d intents built of %d)", read, readAdd, time.Since(start), len(set.Intents), set.IntentCount())
}
