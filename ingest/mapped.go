package ingest

import "errors"

// A big regular file is read through a memory mapping, a window at a
// time, and copied out of it in Read: there is no read system call. A
// read of a megabyte from the page cache takes long enough (0.2 ms) that
// the Go scheduler hands the reading goroutine's processor to another
// thread while it waits; on a machine whose cores the parsers keep busy,
// the threads then take turns on them, and in slow spells a run switched
// threads ten times as often and took a fifth longer. Copying out of the
// mapping costs what the kernel's copy cost, and keeps every other part of
// the reader as it is: batches own their bytes.

// errShrank is why reading stops when a file gets shorter while it is
// read (a log rotated with logrotate's copytruncate, say): the bytes it
// had are gone. Read the rotated copy instead.
var errShrank = errors.New("the file got shorter while it was read (truncated, as logrotate's copytruncate does)")

// mapMin is the smallest file read through a mapping: below it the read
// system calls are few and short.
var mapMin int64 = 4 << 20
