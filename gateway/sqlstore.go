package gateway

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// sqlStore is a Store over database/sql: the key table has a primary key
// on (scope, key_digest), and Complete inserts the effect and completes the
// key record in one transaction. SQLite and PostgreSQL share every
// statement; only the schema's types and the placeholders differ.
type sqlStore struct {
	db         *sql.DB
	dollar     bool // PostgreSQL's $1 placeholders instead of ?
	exclusive  bool
	persistent bool
	closeExtra func() error // releases the file lock after the database
	// guard, when set, says whether the path still names the open file:
	// a state file deleted or replaced under the gateway would take every
	// write after it into a file no one will open again.
	guard func() error
	// legacy is set while the store may hold records named by the first
	// 64 bits of their key's digest, written before whole digests were
	// stored (see adopt).
	legacy atomic.Bool
}

const recordColumns = "scope, key_digest, fingerprint, state, owner, lease_ns, status, headers, body, result_id, created_ns, expires_ns"

// q rewrites ? placeholders for the dialect.
func (s *sqlStore) q(query string) string {
	if !s.dollar {
		return query
	}
	var b strings.Builder
	n := 0
	for _, c := range query {
		if c == '?' {
			n++
			b.WriteString("$" + strconv.Itoa(n))
			continue
		}
		b.WriteRune(c)
	}
	return b.String()
}

func nanos(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

func fromNanos(n int64) time.Time {
	if n == 0 {
		return time.Time{}
	}
	return time.Unix(0, n).UTC()
}

func recordArgs(r record) []any {
	body := r.Body
	if body == nil {
		body = []byte{}
	}
	return []any{r.Scope, r.Digest, r.Fingerprint, r.State, r.Owner, nanos(r.Lease), int64(r.Status),
		encodeHeader(r.Header), body, r.ResultID, nanos(r.Created), nanos(r.Expires)}
}

type scanner interface{ Scan(dest ...any) error }

func scanRecord(row scanner) (record, error) {
	var r record
	var lease, created, expires, status int64
	var header []byte
	if err := row.Scan(&r.Scope, &r.Digest, &r.Fingerprint, &r.State, &r.Owner, &lease, &status, &header, &r.Body, &r.ResultID, &created, &expires); err != nil {
		return record{}, err
	}
	r.Lease, r.Created, r.Expires, r.Status = fromNanos(lease), fromNanos(created), fromNanos(expires), int(status)
	r.Header = decodeHeader(header)
	if r.Body == nil {
		r.Body = []byte{}
	}
	return r, nil
}

func storageErr(op string, err error) error {
	if err == nil {
		return nil
	}
	return &storageError{Op: op, Err: err}
}

const upsert = "INSERT INTO idem_keys (" + recordColumns + ") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) " +
	"ON CONFLICT (scope, key_digest) DO UPDATE SET fingerprint = excluded.fingerprint, state = excluded.state, " +
	"owner = excluded.owner, lease_ns = excluded.lease_ns, status = excluded.status, headers = excluded.headers, " +
	"body = excluded.body, result_id = excluded.result_id, created_ns = excluded.created_ns, expires_ns = excluded.expires_ns"

// intact fails when the store's file is no longer the one its path names:
// every write checks it first, so the store fails closed.
func (s *sqlStore) intact() error {
	if s.guard == nil {
		return nil
	}
	return s.guard()
}

// Health reports whether the store takes writes now: its file is the one
// its path names, and the database answers.
func (s *sqlStore) Health(ctx context.Context) error {
	if err := s.intact(); err != nil {
		return err
	}
	return storageErr("ping", s.db.PingContext(ctx))
}

func (s *sqlStore) Reserve(ctx context.Context, rec record, now time.Time) (record, bool, error) {
	if err := s.intact(); err != nil {
		return record{}, false, err
	}
	// One statement: the primary key decides, and only an expired
	// completed record gives way.
	query := s.q(upsert + " WHERE idem_keys.state = 'completed' AND idem_keys.expires_ns > 0 AND idem_keys.expires_ns <= ?")
	if err := s.adopt(ctx, rec.Scope, rec.Digest); err != nil {
		return record{}, false, err
	}
	for attempt := 0; attempt < 5; attempt++ {
		res, err := s.db.ExecContext(ctx, query, append(recordArgs(rec), now.UnixNano())...)
		if err != nil {
			return record{}, false, storageErr("reserve", err)
		}
		if n, err := res.RowsAffected(); err != nil {
			return record{}, false, storageErr("reserve", err)
		} else if n == 1 {
			return rec, true, nil
		}
		got, ok, err := s.get(ctx, rec.Scope, rec.Digest)
		if err != nil || ok {
			return got, false, err
		}
		// The holder was released between the two statements: try again.
	}
	return record{}, false, storageErr("reserve", errors.New("the key kept changing hands"))
}

func (s *sqlStore) Get(ctx context.Context, scope, digest string) (record, bool, error) {
	if err := s.adopt(ctx, scope, digest); err != nil {
		return record{}, false, err
	}
	return s.get(ctx, scope, digest)
}

func (s *sqlStore) get(ctx context.Context, scope, digest string) (record, bool, error) {
	row := s.db.QueryRowContext(ctx, s.q("SELECT "+recordColumns+" FROM idem_keys WHERE scope = ? AND key_digest = ?"), scope, digest)
	r, err := scanRecord(row)
	if errors.Is(err, sql.ErrNoRows) {
		return record{}, false, nil
	}
	if err != nil {
		return record{}, false, storageErr("read", err)
	}
	return r, true, nil
}

func (s *sqlStore) Put(ctx context.Context, rec record) error {
	if err := s.intact(); err != nil {
		return err
	}
	_, err := s.db.ExecContext(ctx, s.q(upsert), recordArgs(rec)...)
	return storageErr("write", err)
}

func (s *sqlStore) TakeOver(ctx context.Context, scope, digest, from, to string, lease time.Time) (bool, error) {
	if err := s.intact(); err != nil {
		return false, err
	}
	res, err := s.db.ExecContext(ctx, s.q("UPDATE idem_keys SET owner = ?, lease_ns = ? WHERE scope = ? AND key_digest = ? AND state = 'in_progress' AND owner = ?"),
		to, nanos(lease), scope, digest, from)
	if err != nil {
		return false, storageErr("take over", err)
	}
	n, err := res.RowsAffected()
	return n == 1, storageErr("take over", err)
}

func (s *sqlStore) Complete(ctx context.Context, c completion) (record, error) {
	if err := s.intact(); err != nil {
		return record{}, err
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return record{}, storageErr("begin", err)
	}
	defer tx.Rollback()
	var seq int64
	if err := tx.QueryRowContext(ctx, "UPDATE idem_seq SET value = value + 1 WHERE name = 'result' RETURNING value").Scan(&seq); err != nil {
		return record{}, storageErr("next id", err)
	}
	resultID := fmt.Sprintf("%s_%06d", c.Prefix, seq)
	status, header, body := c.Respond(resultID)
	if _, err := tx.ExecContext(ctx, s.q("INSERT INTO idem_effects (seq, result_id, route, key_hash, request_id, at_ns) VALUES (?, ?, ?, ?, ?, ?)"),
		seq, resultID, c.Scope, c.KeyHash, c.Request, nanos(c.Time)); err != nil {
		return record{}, storageErr("record the effect", err)
	}
	rec := record{Scope: c.Scope, Digest: c.Digest, State: stateCompleted, Owner: c.Owner, Status: status,
		Header: whitelist(header), Body: body, ResultID: resultID, Expires: c.Expires}
	if c.Dedup {
		query := "UPDATE idem_keys SET state = 'completed', owner = ?, lease_ns = 0, status = ?, headers = ?, body = ?, result_id = ?, expires_ns = ? " +
			"WHERE scope = ? AND key_digest = ?"
		args := []any{c.Owner, int64(status), encodeHeader(rec.Header), body, resultID, nanos(c.Expires), c.Scope, c.Digest}
		if !c.Blind {
			query += " AND owner = ? AND state = 'in_progress'"
			args = append(args, c.Owner)
		}
		res, err := tx.ExecContext(ctx, s.q(query), args...)
		if err != nil {
			return record{}, storageErr("complete the key", err)
		}
		if n, err := res.RowsAffected(); err != nil {
			return record{}, storageErr("complete the key", err)
		} else if n != 1 && !c.Blind {
			return record{}, errNotOwner
		}
	}
	// Once more, as late as can be: a commit into a deleted file would be
	// acknowledged and lost.
	if err := s.intact(); err != nil {
		return record{}, err
	}
	if err := tx.Commit(); err != nil {
		return record{}, storageErr("commit", err)
	}
	return rec, nil
}

func (s *sqlStore) Release(ctx context.Context, scope, digest, owner string) error {
	if err := s.intact(); err != nil {
		return err
	}
	_, err := s.db.ExecContext(ctx, s.q("DELETE FROM idem_keys WHERE scope = ? AND key_digest = ? AND owner = ? AND state = 'in_progress'"), scope, digest, owner)
	return storageErr("release", err)
}

func (s *sqlStore) Sweep(ctx context.Context, now time.Time) (int64, error) {
	res, err := s.db.ExecContext(ctx, s.q("DELETE FROM idem_keys WHERE state = 'completed' AND expires_ns > 0 AND expires_ns <= ?"), now.UnixNano())
	if err != nil {
		return 0, storageErr("sweep", err)
	}
	n, err := res.RowsAffected()
	return n, storageErr("sweep", err)
}

func (s *sqlStore) Records(ctx context.Context, digest string) ([]record, error) {
	// A record not yet adopted is shown under the bits it was written
	// with; looking does not adopt it.
	short := digest
	if s.legacy.Load() && shortDigest(digest) != "" {
		short = shortDigest(digest)
	}
	rows, err := s.db.QueryContext(ctx, s.q("SELECT "+recordColumns+" FROM idem_keys WHERE key_digest IN (?, ?) ORDER BY scope"), digest, short)
	if err != nil {
		return nil, storageErr("read", err)
	}
	defer rows.Close()
	var out []record
	for rows.Next() {
		r, err := scanRecord(rows)
		if err != nil {
			return nil, storageErr("read", err)
		}
		out = append(out, r)
	}
	return out, storageErr("read", rows.Err())
}

func (s *sqlStore) Effects(ctx context.Context, after int64, limit int) ([]effect, error) {
	rows, err := s.db.QueryContext(ctx, s.q("SELECT seq, result_id, route, key_hash, request_id, at_ns FROM idem_effects WHERE seq > ? ORDER BY seq LIMIT ?"),
		after, limit)
	if err != nil {
		return nil, storageErr("read", err)
	}
	defer rows.Close()
	out := []effect{}
	for rows.Next() {
		var e effect
		var at int64
		if err := rows.Scan(&e.Seq, &e.ResultID, &e.Route, &e.KeyHash, &e.Request, &at); err != nil {
			return nil, storageErr("read", err)
		}
		e.Time = fromNanos(at)
		out = append(out, e)
	}
	return out, storageErr("read", rows.Err())
}

// adopt gives a record written under the first 64 bits of digest (before
// whole digests were stored) the whole digest, so that from then on only
// this key finds it. Which key wrote it is lost with the other 192 bits:
// the first key with those bits to come claims it, as the old store
// answered any of them with it; no other key can reach it afterwards.
func (s *sqlStore) adopt(ctx context.Context, scope, digest string) error {
	short := shortDigest(digest)
	if !s.legacy.Load() || short == "" {
		return nil
	}
	_, err := s.db.ExecContext(ctx, s.q("UPDATE idem_keys SET key_digest = ? WHERE scope = ? AND key_digest = ? "+
		"AND NOT EXISTS (SELECT 1 FROM idem_keys k WHERE k.scope = ? AND k.key_digest = ?)"), digest, scope, short, scope, digest)
	return storageErr("adopt an old record", err)
}

// findLegacy sets legacy when the store holds a record not named by a
// whole digest. None can appear later: the migration that renamed the
// column keeps older gateways, which wrote them, out.
func (s *sqlStore) findLegacy(ctx context.Context) error {
	var n int
	err := s.db.QueryRowContext(ctx, s.q("SELECT count(*) FROM (SELECT 1 FROM idem_keys WHERE length(key_digest) <> ? LIMIT 1) AS old"),
		len(digestPrefix)+64).Scan(&n)
	if err != nil {
		return storageErr("read", err)
	}
	s.legacy.Store(n > 0)
	return nil
}

func (s *sqlStore) EffectCount(ctx context.Context) (int64, error) {
	var n int64
	err := s.db.QueryRowContext(ctx, "SELECT count(*) FROM idem_effects").Scan(&n)
	return n, storageErr("read", err)
}

func (s *sqlStore) Exclusive() bool  { return s.exclusive }
func (s *sqlStore) Persistent() bool { return s.persistent }

func (s *sqlStore) Close() error {
	err := s.db.Close()
	if s.closeExtra != nil {
		if e := s.closeExtra(); err == nil {
			err = e
		}
	}
	return err
}

// importState writes records, effects and the id sequence into an empty
// store in one transaction (the JSON migration).
func (s *sqlStore) importState(ctx context.Context, recs []record, effects []effect, seq int64) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return storageErr("begin", err)
	}
	defer tx.Rollback()
	for _, r := range recs {
		if _, err := tx.ExecContext(ctx, s.q(upsert), recordArgs(r)...); err != nil {
			return storageErr("import a key", err)
		}
	}
	for i, e := range effects {
		if _, err := tx.ExecContext(ctx, s.q("INSERT INTO idem_effects (seq, result_id, route, key_hash, request_id, at_ns) VALUES (?, ?, ?, ?, ?, ?)"),
			int64(i+1), e.ResultID, e.Route, e.KeyHash, e.Request, nanos(e.Time)); err != nil {
			return storageErr("import an effect", err)
		}
	}
	if int64(len(effects)) > seq {
		seq = int64(len(effects))
	}
	if _, err := tx.ExecContext(ctx, s.q("UPDATE idem_seq SET value = ? WHERE name = 'result'"), seq); err != nil {
		return storageErr("import the sequence", err)
	}
	return storageErr("commit", tx.Commit())
}
