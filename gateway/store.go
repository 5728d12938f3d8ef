package gateway

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"net/textproto"
	"sort"
	"strings"
	"time"
)

// record is the durable key record: what a replay needs, never a bare
// "seen" flag.
type record struct {
	Scope string
	// Digest names the key in the store: KeyDigest of the key, or, in a
	// record written before whole digests were stored, its first 64 bits.
	Digest      string
	Fingerprint string
	State       string // in_progress or completed
	// Owner is "<instance>/<n>/<request id>": the process and the
	// delivery that hold the reservation (and, once completed, that ran
	// the effect).
	Owner string
	// Lease is when an in_progress reservation's owner is presumed gone.
	Lease    time.Time
	Status   int
	Header   http.Header // the whitelisted response headers
	Body     []byte      // the response body, byte for byte
	ResultID string
	Created  time.Time
	Expires  time.Time // zero: kept forever
}

// Record states.
const (
	stateInProgress = "in_progress"
	stateCompleted  = "completed"
)

// expired reports whether a completed record has outlived its retention.
func (r *record) expired(now time.Time) bool {
	return r.State == stateCompleted && !r.Expires.IsZero() && !now.Before(r.Expires)
}

// effect is one business change the gateway made.
type effect struct {
	Seq      int64     `json:"seq"` // its place in the order effects were made, from 1
	ResultID string    `json:"result_id"`
	Route    string    `json:"route"`
	KeyHash  string    `json:"key_hash,omitempty"`
	Request  string    `json:"request_id"`
	Time     time.Time `json:"time"`
}

// completion is what Store.Complete commits: the effect, and (unless the
// key is ignored) the key record's terminal state, in one transaction.
type completion struct {
	Scope, Digest string
	KeyHash       string // the effect's: the key's hash as the log has it
	Owner         string // must still hold the reservation
	Request       string
	Prefix        string // of the new result id: dr, rcpt
	Time          time.Time
	Expires       time.Time
	Dedup         bool // false: record the effect only (the no-dedup fault)
	// Blind completes the record whoever holds it: the non-atomic fault's
	// last-writer-wins save.
	Blind bool
	// Respond builds the stored answer from the new result id.
	Respond func(resultID string) (status int, header http.Header, body []byte)
}

// store keeps key records and effects. Every method is one transaction;
// implementations must make Reserve atomic per (scope, key) and Complete
// all-or-nothing and durable before it returns.
type store interface {
	// Reserve inserts rec (in_progress) unless a live record holds its
	// (scope, key); an expired completed record is replaced. It returns
	// the record that holds the key and whether it is rec.
	Reserve(ctx context.Context, rec record, now time.Time) (record, bool, error)
	// Get returns the record of (scope, key), if any.
	Get(ctx context.Context, scope, digest string) (record, bool, error)
	// Put writes rec whatever holds the key: the non-atomic fault's
	// check-then-write, never used by the correct path.
	Put(ctx context.Context, rec record) error
	// TakeOver moves an in_progress reservation from one owner to another,
	// only if from still holds it.
	TakeOver(ctx context.Context, scope, digest, from, to string, lease time.Time) (bool, error)
	// Complete commits the effect and the completed record together. It
	// fails with ErrNotOwner, committing nothing, when c.Owner no longer
	// holds the reservation.
	Complete(ctx context.Context, c completion) (record, error)
	// Release deletes an in_progress reservation held by owner.
	Release(ctx context.Context, scope, digest, owner string) error
	// Sweep deletes completed records expired at now.
	Sweep(ctx context.Context, now time.Time) (int64, error)
	// Records returns every record of a key, in every scope.
	Records(ctx context.Context, digest string) ([]record, error)
	// Effects returns up to limit effects, the first made after the one
	// numbered after, in the order they were made.
	Effects(ctx context.Context, after int64, limit int) ([]effect, error)
	// EffectCount returns how many effects were made.
	EffectCount(ctx context.Context) (int64, error)
	// Exclusive reports whether this process is the only one using the
	// store, so a reservation owned by another process has a dead owner.
	Exclusive() bool
	// Persistent reports whether the store outlives the process.
	Persistent() bool
	// Health reports whether the store would take a write now.
	Health(ctx context.Context) error
	Close() error
}

// keyDigest is what the store keys a record by: the whole SHA-256 of the
// key. The logs' key_hash (model.HashKey) is its first 64 bits, enough to
// find a key's lines but not to tell keys apart: two keys that share them
// would be one record, and the second would get the first's result.
func keyDigest(key string) string {
	sum := sha256.Sum256([]byte(key))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// shortDigest is the first 64 bits of a whole digest: the name a record
// written before whole digests were stored has. ("" for anything else.)
func shortDigest(digest string) string {
	if len(digest) != len(digestPrefix)+64 || !strings.HasPrefix(digest, digestPrefix) {
		return ""
	}
	return digest[:len(digestPrefix)+16]
}

const digestPrefix = "sha256:"

// Store errors.
var (
	// errStateLocked means another process holds the state file.
	errStateLocked = errors.New("the state is in use by another idem gateway")
	// errStateGone means the state file's path no longer names the file
	// the gateway opened (it was deleted or replaced): the store refuses
	// every write until it does again.
	errStateGone = errors.New("the state file was deleted or replaced under the running gateway")
	// errNotOwner means a reservation changed hands before its commit.
	errNotOwner = errors.New("the reservation is no longer held by this delivery")
)

// storageError is a failed read or write of the store.
type storageError struct {
	Op  string
	Err error
}

func (e *storageError) Error() string { return "store " + e.Op + ": " + e.Err.Error() }
func (e *storageError) Unwrap() error { return e.Err }

// replayHeaders are the response headers a record keeps and replays.
var replayHeaders = []string{"Content-Type", "Location"}

// encodeHeader writes the whitelisted headers as "Name: value" lines, in a
// stable order, so a record stores them as bytes.
func encodeHeader(h http.Header) []byte {
	var b bytes.Buffer
	names := make([]string, 0, len(h))
	for name := range h {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if !validHeaderName(name) {
			continue
		}
		for _, v := range h[name] {
			v = strings.TrimSpace(strings.Map(func(r rune) rune {
				if r == '\r' || r == '\n' {
					return ' '
				}
				return r
			}, v))
			b.WriteString(textproto.CanonicalMIMEHeaderKey(name) + ": " + v + "\r\n")
		}
	}
	return append([]byte{}, b.Bytes()...) // never nil: the column is NOT NULL
}

// validHeaderName accepts an HTTP token.
func validHeaderName(name string) bool {
	if name == "" {
		return false
	}
	for _, c := range []byte(name) {
		if c <= ' ' || c >= 0x7f || strings.IndexByte(`"(),/:;<=>?@[\]{}`, c) >= 0 {
			return false
		}
	}
	return true
}

func decodeHeader(b []byte) http.Header {
	h := http.Header{}
	if len(b) == 0 {
		return h
	}
	r := textproto.NewReader(bufio.NewReader(bytes.NewReader(append(b, '\r', '\n'))))
	m, err := r.ReadMIMEHeader()
	if err != nil && len(m) == 0 {
		return h
	}
	return http.Header(m)
}

// whitelist keeps only the headers a replay may repeat.
func whitelist(h http.Header) http.Header {
	out := http.Header{}
	for _, name := range replayHeaders {
		if v := h.Values(name); len(v) > 0 {
			out[name] = append([]string(nil), v...)
		}
	}
	return out
}

// OpenStore opens the store named by target: "" keeps state in memory
// (an in-memory SQLite database), a postgres:// or postgresql:// URL
// shares a PostgreSQL database between gateways, anything else is a
// SQLite file (an old JSON state file there is migrated once).
func OpenStore(target string) (store, error) {
	return OpenStoreContext(context.Background(), target)
}

// OpenStoreContext is OpenStore with a context for the connection.
func OpenStoreContext(ctx context.Context, target string) (store, error) {
	if strings.HasPrefix(target, "postgres://") || strings.HasPrefix(target, "postgresql://") {
		return openPostgres(ctx, target)
	}
	return openSQLite(ctx, target)
}
