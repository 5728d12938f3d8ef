//go:build darwin || freebsd || netbsd || openbsd || dragonfly

package ingest

import "syscall"

// mapFlags maps a window shared; its pages fault in as they are copied.
const mapFlags = syscall.MAP_SHARED
