package cmd

import (
	"fmt"
	"os"
	"time"

	"github.com/idem-cli/idem/ingest"
)

// progressMinBytes is how big the inputs must be before progress is shown.
const progressMinBytes = 64 << 20

// inputsSize is how many bytes the input files hold on disk (total, what
// progress counts) and what reading them yields, where a compressed file
// says (expanded, see ingest.Expanded); known is false when one is
// standard input or cannot be looked at.
type inputsSize struct {
	total, expanded int64
	known           bool
}

// sizeOf adds up the sizes of the files at paths (a folder counts for
// nothing), looked at once for everything that asks (progress, the heap's
// huge pages).
func sizeOf(paths []string) inputsSize {
	size := inputsSize{known: true}
	for _, path := range paths {
		st, err := os.Stat(path)
		if path == "-" || err != nil {
			size.known = false
			continue
		}
		if st.Mode().IsRegular() {
			size.total += st.Size()
			size.expanded += ingest.Expanded(path, st.Size())
		}
	}
	return size
}

// startProgress shows reading progress on stderr (bytes and lines per
// second, ETA) while the inputs are read, when stderr is a terminal and the
// inputs are big or of unknown size. It returns the function that stops and
// clears it.
func startProgress(f *Factory, p *ingest.Progress, paths []string, size inputsSize, quiet bool, minBytes int64) func() {
	// Someone typing or pasting at the terminal needs the hint, and no
	// progress line redrawn over what they type.
	if stdinHint(f, paths) || quiet || !f.IO.IsStderrTTY() {
		return func() {}
	}
	if size.known && size.total < minBytes {
		return func() {}
	}
	if size.known {
		p.Total.Store(size.total)
	}
	done := make(chan struct{})
	finished := make(chan struct{})
	start := time.Now()
	go func() {
		defer close(finished)
		tick := time.NewTicker(250 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-done:
				fmt.Fprint(f.IO.ErrOut, "\r\x1b[K")
				return
			case <-tick.C:
				fmt.Fprint(f.IO.ErrOut, "\r\x1b[K"+progressLine(p, time.Since(start)))
			}
		}
	}()
	return func() {
		close(done)
		<-finished
	}
}

// stdinHint tells someone who named - at a terminal that idem is waiting
// for them to type or paste, and how to end, rather than seeming to hang.
// It reports whether it did.
func stdinHint(f *Factory, paths []string) bool {
	if !f.IO.IsStdinTTY() {
		return false
	}
	for _, p := range paths {
		if p == "-" {
			fmt.Fprintln(f.IO.ErrOut, "idem: reading standard input; Ctrl-D to end")
			return true
		}
	}
	return false
}

// progressLine describes progress: "read 412 MB of 866 MB (240 MB/s,
// 430k lines/s), ETA 2s".
func progressLine(p *ingest.Progress, elapsed time.Duration) string {
	secs := elapsed.Seconds()
	if secs <= 0 {
		secs = 1e-9
	}
	b, lines, total := p.Bytes.Load(), p.Lines.Load(), p.Total.Load()
	rate := float64(b) / secs
	s := fmt.Sprintf("idem: read %s", mb(b))
	if total > 0 {
		s += " of " + mb(total)
	}
	s += fmt.Sprintf(" (%s/s, %s lines/s)", mb(int64(rate)), count(float64(lines)/secs))
	if total > 0 && rate > 0 && b < total {
		s += fmt.Sprintf(", ETA %s", time.Duration(float64(total-b)/rate*float64(time.Second)).Round(time.Second))
	}
	return s
}

// mb writes a size in megabytes of 10^6 bytes, the unit ls --si, du --si
// and the docs use, so the figure matches what people compare it with.
func mb(n int64) string { return fmt.Sprintf("%d MB", n/1e6) }

func count(v float64) string {
	switch {
	case v >= 1e6:
		return fmt.Sprintf("%.1fM", v/1e6)
	case v >= 1e3:
		return fmt.Sprintf("%.0fk", v/1e3)
	}
	return fmt.Sprintf("%.0f", v)
}
