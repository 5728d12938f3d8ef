//go:build !linux

package cmd

import "github.com/idem-cli/idem/ingest"

// hugeHeapFor does nothing where huge pages are not asked for this way.
func hugeHeapFor(int64) {}

// hugeHeapOnceRead does nothing here.
func hugeHeapOnceRead(*ingest.Progress) func() { return func() {} }

// readingDone does nothing here.
func readingDone() {}

// hugeAgain does nothing here.
func hugeAgain() {}
