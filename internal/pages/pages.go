// Package pages prepares fresh memory for the way it is used: written
// before anything reads it (Written), faulted in ahead (Populate), and on
// huge pages where it is large (Huge, Range).
//
// A fresh page's first access is otherwise often a read (the collector
// scans an object whole, its write barrier reads what a store replaces, a
// bitset is set by reading a word first, an index is probed ahead), which
// maps the kernel's shared zero page; the store after it then faults again
// to copy the page, and unmapping the zero page interrupts the other core
// to flush its TLB (on a virtual machine, an exit on both cores), as does
// zeroing anything made later in that memory. Written first, each page
// faults once.
//
// The reader writes its batches' observation arrays this way, and the
// correlator the slices that the collector or a bitset read first; its
// request-id index, 32 MB on a big input, is populated on a goroutine of
// its own instead (Populate), and its slab's blocks are not written ahead
// at all (see its slab.go).
//
// On a virtual machine a first touch is dear: 10 µs for each 4 KB page,
// measured on one, and about 3 ms for each 2 MB page the first time a
// process touches it (the host backs it then): 1.5 to 2.5 ms a megabyte.
// What a run keeps in memory costs it that much CPU time, so a big table
// or store is advised onto huge pages, and the less a run keeps, the less
// it pays.
package pages

import "unsafe"

// Written writes a zero byte to each page of s, fresh from make, and
// returns it. The bytes are zero already and nothing else reaches the
// slice yet.
func Written[T any](s []T) []T {
	const page = 4096 // the smallest page size: larger pages are touched more than once
	p, n := unsafe.Pointer(unsafe.SliceData(s)), uintptr(cap(s))*unsafe.Sizeof(*new(T))
	for off := uintptr(0); off < n; off += page {
		*(*byte)(unsafe.Add(p, off)) = 0
	}
	return s
}
