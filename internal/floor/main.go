// Command floor measures the least work any diagnosis of a JSON-lines
// access log must do, as a yardstick for idem's own figures in
// docs/performance.md: read the file in 1 MB blocks, cut it into lines,
// find the bounds of every string on every line (on every core), and
// count each line's request id and idempotency key in two hash tables.
// It checks no JSON structure, reads no time, status or route, builds no
// intent, runs no rule and writes no report.
//
//	go run ./internal/floor nginx-1m.jsonl
package main

import (
	"bytes"
	"flag"
	"fmt"
	"hash/maphash"
	"io"
	"os"
	"runtime"
	"sync"
	"time"
)

func main() {
	idName := flag.String("id", "request_id", "the member that holds the request id")
	keyName := flag.String("key", "http_idempotency_key", "the member that holds the key")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: floor [-id NAME] [-key NAME] FILE")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() != 1 {
		flag.Usage()
		os.Exit(2)
	}
	f, err := os.Open(flag.Arg(0))
	if err != nil {
		fmt.Fprintln(os.Stderr, "floor:", err)
		os.Exit(2)
	}
	defer f.Close()
	start := time.Now()
	ids, keys, lines, err := run(f, *idName, *keyName)
	if err != nil {
		fmt.Fprintln(os.Stderr, "floor:", err)
		os.Exit(2)
	}
	fmt.Printf("%d lines, %d request ids, %d keys in %v\n", lines, ids, keys, time.Since(start).Round(time.Millisecond))
}

var seed = maphash.MakeSeed()

// batch is a block of whole lines and the hashes of their two ids.
type batch struct {
	text   []byte
	hashes []uint64
}

func run(r io.Reader, idName, keyName string) (ids, keys, lines int, err error) {
	blocks := make(chan *batch, 4)
	done := make(chan *batch, 4)
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for b := range blocks {
				for text := b.text; len(text) > 0; {
					nl := bytes.IndexByte(text, '\n')
					if nl < 0 {
						nl = len(text) - 1
					}
					id, key := members(text[:nl], idName, keyName)
					b.hashes = append(b.hashes, maphash.Bytes(seed, id), maphash.Bytes(seed, key))
					text = text[nl+1:]
				}
				done <- b
			}
		})
	}
	go func() { wg.Wait(); close(done) }()
	go func() {
		defer close(blocks)
		var carry []byte
		for {
			buf := make([]byte, 1<<20+len(carry))
			n := copy(buf, carry)
			m, rerr := io.ReadFull(r, buf[n:])
			buf = buf[:n+m]
			if rerr != nil {
				if len(buf) > 0 {
					blocks <- &batch{text: buf}
				}
				if rerr != io.EOF && rerr != io.ErrUnexpectedEOF {
					err = rerr
				}
				return
			}
			last := bytes.LastIndexByte(buf, '\n') + 1
			carry = append(carry[:0], buf[last:]...)
			blocks <- &batch{text: buf[:last]}
		}
	}()
	idSet := make(map[uint64]struct{}, 1<<20)
	keySet := make(map[uint64]struct{}, 1<<20)
	for b := range done {
		for i := 0; i < len(b.hashes); i += 2 {
			idSet[b.hashes[i]] = struct{}{}
			keySet[b.hashes[i+1]] = struct{}{}
		}
		lines += len(b.hashes) / 2
	}
	return len(idSet), len(keySet), lines, err
}

// members finds the string values of the two named members of a flat JSON
// object by walking every string on the line, escapes included.
func members(line []byte, idName, keyName string) (id, key []byte) {
	var name []byte
	for i := 0; i < len(line); {
		q := bytes.IndexByte(line[i:], '"')
		if q < 0 {
			return id, key
		}
		s := i + q + 1
		e := s
		for {
			k := bytes.IndexByte(line[e:], '"')
			if k < 0 {
				return id, key
			}
			e += k
			n := 0 // backslashes before the quote: an odd count escapes it
			for n < e-s && line[e-1-n] == '\\' {
				n++
			}
			if n%2 == 0 {
				break
			}
			e++
		}
		str := line[s:e]
		i = e + 1
		if i < len(line) && line[i] == ':' {
			name = str
			continue
		}
		switch string(name) {
		case idName:
			id = str
		case keyName:
			key = str
		}
	}
	return id, key
}
