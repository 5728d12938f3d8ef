// Package logstore reads and writes logs kept in a log store instead of
// files. A Store answers the two questions a diagnosis asks of it: which
// keys, request ids, payloads and clients are worth a look (phase 1, run by
// the store's own query engine), and every line about them (phase 2). The
// lines come back as they were written, so the readers, formats and rules
// read them as they read files.
//
// VictoriaLogs (single node or cluster) is the store this package speaks
// to; another store's HTTP API (Loki's query_range, Elasticsearch's _search
// with search_after) is another implementation of Store.
package logstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"
	"time"
)

// Store is a log store idem can diagnose from and export to.
type Store interface {
	// Name is the store's address without credentials, for messages.
	Name() string
	// Candidates runs phase 1 in the store.
	Candidates(ctx context.Context, w Window) (*Candidates, error)
	// Fetch streams every record that carries one of the values, or was
	// written near one of the failures, within w (phase 2).
	Fetch(ctx context.Context, sel Selection, w Window, each func(Record) error) error
	// Count reports how many records the store holds within w.
	Count(ctx context.Context, w Window) (int64, error)
	// JoinFields are the fields that tie records to each other (keys,
	// key hashes, request ids), known once Candidates has run.
	JoinFields() []string
	// RawKeyFields are those of JoinFields that hold a raw key.
	RawKeyFields() []string
	// Insert loads JSON lines (see Exporter).
	Insert(ctx context.Context, body io.Reader) error
	// Flush makes what was inserted searchable, where the store can.
	Flush(ctx context.Context)
	// CountRun reports how many records of one export run the store holds.
	CountRun(ctx context.Context, run string) (int64, error)
}

// Record is one log line as the store returns it: every value a string.
type Record map[string]string

// Window bounds a query in time; a zero bound is open.
type Window struct{ Start, End time.Time }

// Widen returns w grown by d on both sides (open bounds stay open).
func (w Window) Widen(d time.Duration) Window {
	if !w.Start.IsZero() {
		w.Start = w.Start.Add(-d)
	}
	if !w.End.IsZero() {
		w.End = w.End.Add(d)
	}
	return w
}

// Within returns w cut to fit inside outer's bounds.
func (w Window) Within(outer Window) Window {
	if !outer.Start.IsZero() && w.Start.Before(outer.Start) {
		w.Start = outer.Start
	}
	if !outer.End.IsZero() && (w.End.IsZero() || w.End.After(outer.End)) {
		w.End = outer.End
	}
	return w
}

// Selection is what phase 2 fetches: records whose field holds one of the
// values, and records of a client near a failure.
type Selection struct {
	Values map[string][]string // field name → values
	// At and Last are, where phase 1 knows them, the first and last time
	// of a value (by field NUL value), and Widen how far around them its
	// lines may be.
	At, Last map[string]time.Time
	Widen    time.Duration
	Near     []Near
	// Unkeyed fetches only lines that carry no raw key: following a
	// request id, the lines with a key were fetched by their key.
	Unkeyed []string
	// Have are the lines already kept that carry a value (by field NUL
	// value): only the value's other lines are fetched.
	Have map[string][]Held
}

// Held is a line already kept: where an export loaded it from (File and
// Line empty for a line loaded by something else).
type Held struct{ File, Line string }

// Empty reports whether the selection selects nothing.
func (s *Selection) Empty() bool {
	for _, v := range s.Values {
		if len(v) > 0 {
			return false
		}
	}
	return len(s.Near) == 0
}

// Near is a failed delivery's client: the lines the same client wrote
// within NearWindow after it may be its retry under a new key or none.
type Near struct {
	Field, Value string
	Time         time.Time
	Also         map[string]string // the same method and route
	Not          map[string]string // not its own key, fetched by the key
}

// NearWindow is how long after a failure a client's other requests are
// fetched: what the likely-retry rules look at.
const NearWindow = time.Minute

// Candidates is phase 1's answer.
type Candidates struct {
	Selection
	// Queries are the filters pushed down to the store, as sent.
	Queries []string
	// Matched is how many records the phase 1 queries matched in the store.
	Matched int64
}

// IncompleteError says that the store did not give a whole answer: a
// storage node down or hung, a refused query, a stream cut short. A
// diagnosis on part of the lines would be wrong, so it stops with this.
type IncompleteError struct {
	Store  string
	Status int    // the HTTP status, when the store answered
	Answer string // the start of the store's answer
	Err    error
}

func (e *IncompleteError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "incomplete result from %s", e.Store)
	if e.Status != 0 {
		fmt.Fprintf(&b, ": the store answered HTTP %d", e.Status)
		if e.Answer != "" {
			fmt.Fprintf(&b, " %q", e.Answer)
		}
	}
	if e.Err != nil {
		fmt.Fprintf(&b, ": %v", e.Err)
	}
	b.WriteString("; nothing was diagnosed, since part of the lines would be missing")
	return b.String()
}

func (e *IncompleteError) Unwrap() error { return e.Err }

// ErrTimeout is the cause of an IncompleteError when the store gave no
// whole answer within the time allowed.
var ErrTimeout = errors.New("no complete answer within the timeout")

// Options configure a store client.
type Options struct {
	// Getenv reads credentials: IDEM_LOGSTORE_TOKEN (bearer), or
	// IDEM_LOGSTORE_USER and IDEM_LOGSTORE_PASSWORD (basic).
	Getenv func(string) string
	// Timeout bounds each request to the store (0: no bound but ctx's).
	Timeout time.Duration
	// Query is a filter in the store's language that every query starts
	// with (which service, which environment).
	Query string
}

// Open parses a store address and returns its client.
//
//	victorialogs://HOST:PORT[?account=ID&project=ID&tls=1&msg_field=F&time_field=F]
//	victorialogs+https://HOST:PORT  (the same as tls=1)
func Open(addr string, opts Options) (Store, error) {
	u, err := url.Parse(addr)
	if err != nil {
		return nil, &AddressError{Addr: redactAddr(addr), Err: errors.New("not a URL")}
	}
	if u.User != nil {
		return nil, &AddressError{Addr: redactAddr(addr), Err: errors.New("credentials do not belong in the address: set IDEM_LOGSTORE_TOKEN, or IDEM_LOGSTORE_USER and IDEM_LOGSTORE_PASSWORD")}
	}
	switch u.Scheme {
	case "victorialogs", "victorialogs+http", "victorialogs+https":
		return newVictoriaLogs(u, opts)
	case "":
		return nil, &AddressError{Addr: redactAddr(addr), Err: errors.New("no scheme: write victorialogs://HOST:PORT")}
	}
	return nil, &AddressError{Addr: redactAddr(addr), Err: fmt.Errorf("unknown store %q (known: victorialogs)", u.Scheme)}
}

// AddressError is a store address that cannot be used.
type AddressError struct {
	Addr string
	Err  error
}

func (e *AddressError) Error() string { return fmt.Sprintf("store address %s: %v", e.Addr, e.Err) }
func (e *AddressError) Unwrap() error { return e.Err }

// redactAddr drops what could be a credential from an address for a message.
func redactAddr(addr string) string {
	if u, err := url.Parse(addr); err == nil {
		u.User = nil
		u.RawQuery = ""
		return u.String()
	}
	if i := strings.LastIndexByte(addr, '@'); i >= 0 {
		return "…" + addr[i:]
	}
	return addr
}
