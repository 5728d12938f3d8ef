// Package logstore reads and writes logs kept in a log store instead of
// files. A diagnosis asks a store two things: which keys, request ids,
// payloads and clients are worth a look (phase 1, counted and grouped by
// the store's own query engine), and every line about them (phase 2). The
// lines come back as they were written, so the readers, formats and rules
// read them as they read files.
//
// What to ask is the plan (plan*.go): phase 1's questions and phase 2's
// fetches, batched, as values (Filter, Group, Lines) that name no store's
// language. A store's dialect is a Reader: it writes those values in its
// own language, sends them, and reads the answers back as Records. A
// Loader is what an export loads lines into. VictoriaLogs (single node or
// cluster, victorialogs*.go) is the one dialect; another store (Loki's
// query_range, Elasticsearch's _search with search_after, ClickHouse) is
// another Reader and Loader, and the plan does not change.
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

// Reader is a store's dialect: it asks the plan's questions in the
// store's language and reads the answers back.
type Reader interface {
	// Name is the store's address without credentials, for messages.
	Name() string
	// Limits say how large a question the store takes.
	Limits() Limits
	// Fields reports which fields the store has within w.
	Fields(ctx context.Context, w Window) (map[string]bool, error)
	// Count reports how many records f selects within w.
	Count(ctx context.Context, f Filter, w Window) (int64, error)
	// Run asks q within w and hands each answer to each: a Group's
	// groups, a Lines' lines. An answer that is not whole is an
	// *IncompleteError.
	Run(ctx context.Context, q Query, w Window, each func(Record) error) error
	// Show writes q as Run sends it (less the scope, Options.Query, in
	// front), for the user to read and the plan to size its batches by.
	Show(q Query) string
	// Rebuild turns a record that a shipper loaded (not idem export:
	// no FieldFile) back into the line it was, and names the source it
	// is cited by.
	Rebuild(r Record) (source, line string)
}

// Loader is a store an export loads lines into.
type Loader interface {
	// Name is the store's address without credentials, for messages.
	Name() string
	// Insert loads JSON lines, one record each: the line as read in
	// _msg, its time in _time (RFC 3339), and the fields phase 1 and 2
	// ask about (see Exporter).
	Insert(ctx context.Context, body io.Reader) error
	// Flush makes what was inserted searchable, where the store can.
	Flush(ctx context.Context)
}

// Store is a log store idem can diagnose from and export to.
type Store interface {
	Reader
	Loader
}

// CountRun reports how many records of one export run r holds.
func CountRun(ctx context.Context, r Reader, run string) (int64, error) {
	return r.Count(ctx, Eq{FieldRun, run}, Window{})
}

// Record is one answer as a dialect hands it over: a line, or a group of
// lines. Every value is a string; a line's text is under _msg and its time
// under _time (RFC 3339), whatever the store calls them.
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
	// Within is how long after the failure its client's requests are
	// fetched: the follow-up horizon the rules read (NearWindow when 0).
	Within time.Duration
}

// NearWindow is how long after a failure a client's other requests are
// fetched unless the rules ask for longer (Collect's near): what the
// likely-retry rules look at.
const NearWindow = time.Minute

// within is nr's horizon.
func (nr *Near) within() time.Duration { return max(nr.Within, NearWindow) }

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
	// with (which service, which environment): VictoriaLogs'.
	Query string
	// Selector is the LogQL stream selector every Loki query starts with,
	// such as {app="payments"} (none: the lines idem export loaded).
	Selector string
	// MaxAnswerBytes and MaxAnswerRecords bound one answer of the store
	// (0: defaultMaxAnswerBytes, defaultMaxAnswerRecords); the address's
	// max_answer_bytes and max_answer_records set them too. An answer
	// past either is an *IncompleteError (errAnswerTooLarge), never a
	// part of it read as the whole.
	MaxAnswerBytes   int64
	MaxAnswerRecords int64
}

// The bounds of one answer: a store (or whatever answers at its address)
// could stream without end. A phase 2 fetch asks for the lines of a batch
// of keys, far below both; a field list is a few hundred names.
const (
	defaultMaxAnswerBytes   = 1 << 30
	defaultMaxAnswerRecords = 10_000_000
	// maxFieldNamesBytes and maxFieldNames bound the list of a store's
	// fields: decoded whole, it costs about three times its size.
	maxFieldNamesBytes = 16 << 20
	maxFieldNames      = 100_000
)

// errAnswerTooLarge is the cause of an IncompleteError when an answer
// passed its bound in bytes or records.
var errAnswerTooLarge = errors.New("the answer passed its bound")

// answerLimitError says which bound an answer passed.
type answerLimitError struct {
	What  string // "bytes", "records", "field names"
	Limit int64
	Set   string // what sets the bound, for the message
}

func (e *answerLimitError) Error() string {
	msg := fmt.Sprintf("the answer passed %d %s", e.Limit, e.What)
	if e.Set != "" {
		msg += " (" + e.Set + ")"
	}
	return msg
}

func (e *answerLimitError) Unwrap() error { return errAnswerTooLarge }

// Open parses a store address and returns its client.
//
//	victorialogs://HOST:PORT[?account=ID&project=ID&tls=1&msg_field=F&time_field=F&max_answer_bytes=N&max_answer_records=N]
//	victorialogs+https://HOST:PORT  (the same as tls=1)
//	loki://HOST:PORT[?tenant=ID&tls=1&parser=json|logfmt&max_entries=N&lookback=D&max_answer_bytes=N&max_answer_records=N]
//	loki+https://HOST:PORT
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
	case "loki", "loki+http", "loki+https":
		return newLoki(u, opts)
	case "":
		return nil, &AddressError{Addr: redactAddr(addr), Err: errors.New("no scheme: write victorialogs://HOST:PORT or loki://HOST:PORT")}
	}
	return nil, &AddressError{Addr: redactAddr(addr), Err: fmt.Errorf("unknown store %q (known: victorialogs, loki)", u.Scheme)}
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
