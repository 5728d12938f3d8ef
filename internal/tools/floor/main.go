// Command floor is the yardstick for idem's own figures in
// docs/performance.md: the cost of reading a JSON-lines access log and
// extracting what a diagnosis needs, and nothing else. It reads the file
// in 1 MB blocks, cuts them into lines, walks each line's object member
// by member on every core (strings with their escapes, numbers,
// literals, nested values skipped whole) and keeps the bounds of the ten
// members an nginx diagnosis reads: two ids, method, route, status,
// upstream status, two times, duration and client. It parses the
// statuses and hashes the ids so that the work cannot be skipped, and
// stops there: no intent, no rule, no report.
//
//	go run ./internal/tools/floor nginx-1m.jsonl
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
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: floor FILE")
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
	t, err := run(f)
	if err != nil {
		fmt.Fprintln(os.Stderr, "floor:", err)
		os.Exit(2)
	}
	fmt.Printf("%d lines, %d with a key, %d members read, %d not objects in %v\n",
		t.lines, t.keyed, t.members, t.bad, time.Since(start).Round(time.Millisecond))
}

// The members an nginx diagnosis reads, in the order of fields' slots.
var wanted = [nfields]string{"http_x_request_id", "http_idempotency_key", "request_method", "request_uri",
	"status", "upstream_status", "msec", "time_iso8601", "request_time", "remote_addr"}

const (
	fRID = iota
	fKey
	fMethod
	fURI
	fStatus
	fUpstream
	nfields = 10
)

// fields are the bounds of a line's wanted members, as offsets into it.
type fields [nfields][2]int32

var seed = maphash.MakeSeed()

// totals is what a block or the whole file adds up to.
type totals struct {
	lines, keyed, members, bad int
	sum                        uint64 // of hashes and statuses: keeps the work from being optimised away
}

func (t *totals) add(u totals) {
	t.lines += u.lines
	t.keyed += u.keyed
	t.members += u.members
	t.bad += u.bad
	t.sum += u.sum
}

func run(r io.Reader) (totals, error) {
	blocks := make(chan []byte, 4)
	done := make(chan totals, 4)
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for b := range blocks {
				done <- block(b)
			}
		})
	}
	go func() { wg.Wait(); close(done) }()
	var err error
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
					blocks <- buf
				}
				if rerr != io.EOF && rerr != io.ErrUnexpectedEOF {
					err = rerr
				}
				return
			}
			last := bytes.LastIndexByte(buf, '\n') + 1
			carry = append(carry[:0], buf[last:]...)
			blocks <- buf[:last]
		}
	}()
	var t totals
	for u := range done {
		t.add(u)
	}
	return t, err
}

// block walks every line of a block of whole lines.
func block(text []byte) totals {
	var t totals
	var f fields
	for len(text) > 0 {
		nl := bytes.IndexByte(text, '\n')
		if nl < 0 {
			nl = len(text)
		}
		line := text[:nl]
		text = text[min(nl+1, len(text)):]
		n, ok := walk(line, &f)
		t.lines++
		t.members += n
		if !ok {
			t.bad++
			continue
		}
		value := func(i int) []byte { return line[f[i][0]:f[i][1]] }
		if k := value(fKey); len(k) > 0 {
			t.keyed++
			t.sum += maphash.Bytes(seed, k)
		}
		t.sum += maphash.Bytes(seed, value(fRID)) + uint64(status(value(fStatus))) + uint64(status(value(fUpstream)))
	}
	return t
}

// walk reads one line's object member by member, filling f with the
// bounds of the wanted ones (a string's without its quotes) and zero
// bounds for the missing. It returns how many members it read and
// whether the line is one whole object.
func walk(line []byte, f *fields) (int, bool) {
	*f = fields{}
	i := skipSpace(line, 0)
	if i >= len(line) || line[i] != '{' {
		return 0, false
	}
	n := 0
	i = skipSpace(line, i+1)
	if i < len(line) && line[i] == '}' {
		return 0, skipSpace(line, i+1) == len(line)
	}
	for {
		if i >= len(line) || line[i] != '"' {
			return n, false
		}
		ns := i + 1
		ne := endOfString(line, ns)
		if ne < 0 {
			return n, false
		}
		i = skipSpace(line, ne+1)
		if i >= len(line) || line[i] != ':' {
			return n, false
		}
		i = skipSpace(line, i+1)
		vs, ve, next := value(line, i)
		if next < 0 {
			return n, false
		}
		n++
		if slot := lookup(line[ns:ne]); slot >= 0 {
			f[slot] = [2]int32{int32(vs), int32(ve)}
		}
		i = skipSpace(line, next)
		if i >= len(line) {
			return n, false
		}
		switch line[i] {
		case ',':
			i = skipSpace(line, i+1)
		case '}':
			return n, skipSpace(line, i+1) == len(line)
		default:
			return n, false
		}
	}
}

// lookup is the slot of a wanted member's name, or -1.
func lookup(name []byte) int {
	for i, w := range wanted {
		if len(w) == len(name) && string(name) == w {
			return i
		}
	}
	return -1
}

// value finds the value at i: a string's bounds without its quotes, any
// other value's whole. next is where the value ends, or -1.
func value(line []byte, i int) (start, end, next int) {
	if i >= len(line) {
		return 0, 0, -1
	}
	switch c := line[i]; c {
	case '"':
		e := endOfString(line, i+1)
		if e < 0 {
			return 0, 0, -1
		}
		return i + 1, e, e + 1
	case '{', '[':
		e := endOfNested(line, i)
		return i, e, e
	default:
		e := i
		for e < len(line) && line[e] != ',' && line[e] != '}' && line[e] != ' ' && line[e] != ']' {
			e++
		}
		if e == i {
			return 0, 0, -1
		}
		return i, e, e
	}
}

// endOfString is the index of the quote that closes the string whose
// text starts at s, or -1.
func endOfString(line []byte, s int) int {
	for e := s; ; {
		k := bytes.IndexByte(line[e:], '"')
		if k < 0 {
			return -1
		}
		e += k
		n := 0 // backslashes before the quote: an odd count escapes it
		for n < e-s && line[e-1-n] == '\\' {
			n++
		}
		if n%2 == 0 {
			return e
		}
		e++
	}
}

// endOfNested is the index just after the object or array at i, or -1.
func endOfNested(line []byte, i int) int {
	depth := 0
	for i < len(line) {
		switch line[i] {
		case '"':
			e := endOfString(line, i+1)
			if e < 0 {
				return -1
			}
			i = e
		case '{', '[':
			depth++
		case '}', ']':
			depth--
			if depth == 0 {
				return i + 1
			}
		}
		i++
	}
	return -1
}

func skipSpace(line []byte, i int) int {
	for i < len(line) && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r') {
		i++
	}
	return i
}

// status reads a three-digit status, or 0.
func status(b []byte) int {
	if len(b) != 3 || b[0] < '1' || b[0] > '5' || b[1] < '0' || b[1] > '9' || b[2] < '0' || b[2] > '9' {
		return 0
	}
	return int(b[0]-'0')*100 + int(b[1]-'0')*10 + int(b[2]-'0')
}
