package gateway

import (
	"errors"
	"os"

	"golang.org/x/sys/windows"
)

// Windows locks are mandatory: a lock on bytes SQLite reads (its header
// at 0, its own lock bytes from 1 GiB) would stop the store's own
// connection. The lock is on one byte far past any database's end, which
// no reader touches; locking past the end of a file is allowed.
const lockOffsetLow, lockOffsetHigh = 0xFFFFFFFE, 0x7FFFFFFF

// tryLock takes an exclusive lock on that byte of f without waiting
// (Windows has no flock; LockFileEx is what its own tools use); held
// says another process has it.
func tryLock(f *os.File) (held bool, err error) {
	ol := windows.Overlapped{Offset: lockOffsetLow, OffsetHigh: lockOffsetHigh}
	err = windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, &ol)
	return errors.Is(err, windows.ERROR_LOCK_VIOLATION), err
}

func unlockFile(f *os.File) {
	ol := windows.Overlapped{Offset: lockOffsetLow, OffsetHigh: lockOffsetHigh}
	_ = windows.UnlockFileEx(windows.Handle(f.Fd()), 0, 1, 0, &ol)
}
