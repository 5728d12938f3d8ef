package gateway

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"

	_ "modernc.org/sqlite" // the pure-Go SQLite driver: no cgo, one static binary
)

// sqliteSchema is version 1, the tables as they were first made (and made
// again at every start, before versions were recorded); sqliteMigrations
// bring them to schemaVersion.
const sqliteSchema = `
CREATE TABLE IF NOT EXISTS idem_keys (
  scope TEXT NOT NULL,
  key_hash TEXT NOT NULL,
  fingerprint TEXT NOT NULL,
  state TEXT NOT NULL,
  owner TEXT NOT NULL,
  lease_ns INTEGER NOT NULL DEFAULT 0,
  status INTEGER NOT NULL DEFAULT 0,
  headers BLOB NOT NULL DEFAULT x'',
  body BLOB NOT NULL DEFAULT x'',
  result_id TEXT NOT NULL DEFAULT '',
  created_ns INTEGER NOT NULL,
  expires_ns INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (scope, key_hash)
);
CREATE INDEX IF NOT EXISTS idem_keys_by_hash ON idem_keys (key_hash);
CREATE INDEX IF NOT EXISTS idem_keys_by_expiry ON idem_keys (expires_ns) WHERE expires_ns > 0;
CREATE TABLE IF NOT EXISTS idem_effects (
  seq INTEGER PRIMARY KEY,
  result_id TEXT NOT NULL UNIQUE,
  route TEXT NOT NULL,
  key_hash TEXT NOT NULL,
  request_id TEXT NOT NULL,
  at_ns INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS idem_seq (name TEXT PRIMARY KEY, value INTEGER NOT NULL);
INSERT INTO idem_seq (name, value) VALUES ('result', 0) ON CONFLICT (name) DO NOTHING;
`

// openSQLite opens (or creates) the SQLite database at path; "" keeps it
// in memory. The file is locked (flock on the database file itself, so
// the lock follows the file's identity, whatever path or link names it)
// for as long as the store is open: a reservation held by another process
// then always has a dead owner. An old JSON state file at path is migrated
// once; the JSON is kept beside it as path.json-v1.
func openSQLite(ctx context.Context, path string) (store, error) {
	if path == "" {
		return openSQLiteDSN(ctx, ":memory:", nil, false)
	}
	// SQLite names its WAL after the path it opens; open the file by its
	// real name, so that a crash's WAL is found whichever link names it.
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
	}
	// The lock on the file follows its inode, so a gateway started after
	// the file was deleted would lock a new one: a second lock, on a file
	// beside it that is never deleted, keeps one gateway per path.
	pathLock, err := lockFile(path + ".lock")
	if err != nil {
		return nil, err
	}
	lock, err := lockFile(path)
	if err != nil {
		unlock(pathLock)
		return nil, err
	}
	head := make([]byte, 16)
	n, _ := io.ReadFull(lock, head)
	if trimmed := bytes.TrimLeft(head[:n], " \t\r\n"); len(trimmed) > 0 && trimmed[0] == '{' {
		// The lock is on the JSON file's inode: hold it while its
		// replacement is built, then lock the new file.
		err := migrateJSON(ctx, path)
		unlock(lock)
		if err != nil {
			unlock(pathLock)
			return nil, err
		}
		if lock, err = lockFile(path); err != nil {
			unlock(pathLock)
			return nil, err
		}
	}
	opened, err := lock.Stat()
	if err != nil {
		unlock(lock)
		unlock(pathLock)
		return nil, fmt.Errorf("cannot read the state %s: %w", path, err)
	}
	st, err := openSQLiteDSN(ctx, sqliteDSN(path), lock, true)
	if err != nil {
		unlock(lock)
		unlock(pathLock)
		return nil, err
	}
	closeLock := st.closeExtra
	st.closeExtra = func() error {
		err := closeLock()
		unlock(pathLock)
		return err
	}
	st.guard = func() error {
		// Device and inode: os.SameFile compares them.
		if now, err := os.Stat(path); err != nil || !os.SameFile(now, opened) {
			return storageErr("check the state file", fmt.Errorf("%s: %w", path, errStateGone))
		}
		return nil
	}
	return st, nil
}

func sqliteDSN(path string) string {
	// WAL with synchronous=FULL: a commit returns after its WAL frames are
	// fsynced. IMMEDIATE transactions take the write lock at BEGIN.
	v := url.Values{}
	v.Add("_pragma", "journal_mode(WAL)")
	v.Add("_pragma", "synchronous(FULL)")
	v.Add("_pragma", "busy_timeout(5000)")
	v.Add("_txlock", "immediate")
	return "file:" + (&url.URL{Path: path}).EscapedPath() + "?" + v.Encode()
}

func openSQLiteDSN(ctx context.Context, dsn string, lock *os.File, persistent bool) (*sqlStore, error) {
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, storageErr("open", err)
	}
	// One connection: SQLite serialises writers anyway, and an in-memory
	// database lives as long as its connection.
	db.SetMaxOpenConns(1)
	db.SetMaxIdleConns(1)
	db.SetConnMaxLifetime(0)
	db.SetConnMaxIdleTime(0)
	if err := migrateSQLite(ctx, db); err != nil {
		db.Close()
		return nil, err
	}
	var check string
	if err := db.QueryRowContext(ctx, "PRAGMA quick_check").Scan(&check); err != nil || check != "ok" {
		db.Close()
		if err == nil {
			err = errors.New(check)
		}
		return nil, storageErr("check the database", err)
	}
	s := &sqlStore{db: db, exclusive: true, persistent: persistent}
	if err := s.findLegacy(ctx); err != nil {
		db.Close()
		return nil, err
	}
	if lock != nil {
		s.closeExtra = func() error { return unlock(lock) }
	}
	return s, nil
}

// sqliteMigrations[v] brings a store at version v (its user_version) to
// v+1, as pgMigrations do.
var sqliteMigrations = []string{
	sqliteSchema,
	// Keys named by their whole digest; see pgMigrations.
	`ALTER TABLE idem_keys RENAME COLUMN key_hash TO key_digest;
DROP INDEX idem_keys_by_hash;
CREATE INDEX idem_keys_by_digest ON idem_keys (key_digest);`,
}

// migrateSQLite brings the store to schemaVersion in one transaction. The
// file is this process's alone (its lock), so nothing waits for it.
func migrateSQLite(ctx context.Context, db *sql.DB) error {
	var v int
	if err := db.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v); err != nil {
		return storageErr("read the schema version", err)
	}
	if v > schemaVersion {
		return fmt.Errorf("store schema version %d, this idem reads %d: %w", v, schemaVersion, errSchemaNewer)
	}
	if v == schemaVersion {
		return nil
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return storageErr("begin", err)
	}
	defer tx.Rollback()
	for ; v < schemaVersion; v++ {
		if _, err := tx.ExecContext(ctx, sqliteMigrations[v]); err != nil {
			return storageErr(fmt.Sprintf("migrate the schema to version %d", v+1), err)
		}
	}
	if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", schemaVersion)); err != nil {
		return storageErr("record the schema version", err)
	}
	return storageErr("commit the schema", tx.Commit())
}

// lockFile opens (creating) path and takes an exclusive lock on it, or
// says another process holds it (ErrStateLocked).
func lockFile(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("cannot open the state %s: %w", path, err)
	}
	if held, err := tryLock(f); err != nil {
		f.Close()
		if held {
			return nil, fmt.Errorf("%s: %w", path, errStateLocked)
		}
		return nil, fmt.Errorf("cannot lock the state %s: %w", path, err)
	}
	return f, nil
}

func unlock(f *os.File) error {
	unlockFile(f)
	return f.Close()
}
