package gateway

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	_ "github.com/jackc/pgx/v5/stdlib" // pgx through database/sql: one sqlStore for both databases
)

// postgresSchema is version 1, the tables as they were first made; the
// migrations after it bring them to schemaVersion.
const postgresSchema = `
CREATE TABLE idem_keys (
  scope TEXT NOT NULL,
  key_hash TEXT NOT NULL,
  fingerprint TEXT NOT NULL,
  state TEXT NOT NULL,
  owner TEXT NOT NULL,
  lease_ns BIGINT NOT NULL DEFAULT 0,
  status BIGINT NOT NULL DEFAULT 0,
  headers BYTEA NOT NULL DEFAULT '',
  body BYTEA NOT NULL DEFAULT '',
  result_id TEXT NOT NULL DEFAULT '',
  created_ns BIGINT NOT NULL,
  expires_ns BIGINT NOT NULL DEFAULT 0,
  PRIMARY KEY (scope, key_hash)
);
CREATE INDEX idem_keys_by_hash ON idem_keys (key_hash);
CREATE INDEX idem_keys_by_expiry ON idem_keys (expires_ns) WHERE expires_ns > 0;
CREATE TABLE idem_effects (
  seq BIGINT PRIMARY KEY,
  result_id TEXT NOT NULL UNIQUE,
  route TEXT NOT NULL,
  key_hash TEXT NOT NULL,
  request_id TEXT NOT NULL,
  at_ns BIGINT NOT NULL
);
CREATE TABLE idem_seq (name TEXT PRIMARY KEY, value BIGINT NOT NULL);
INSERT INTO idem_seq (name, value) VALUES ('result', 0);
`

// openPostgres opens a store in the PostgreSQL database at url (a
// postgres:// URL, as pgx reads it). Several gateways may share it: the
// primary key on (scope, key_digest) makes the reservation atomic across
// processes, and an in_progress reservation is recovered only once its
// lease has passed, since its owner may be alive in another process.
func openPostgres(ctx context.Context, url string) (store, error) {
	db, err := sql.Open("pgx", url)
	if err != nil {
		return nil, storageErr("open", err)
	}
	db.SetMaxOpenConns(32)
	db.SetMaxIdleConns(32)
	db.SetConnMaxIdleTime(5 * time.Minute)
	pctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	if err := db.PingContext(pctx); err != nil {
		db.Close()
		return nil, storageErr("connect", err)
	}
	if err := migratePostgres(pctx, db); err != nil {
		db.Close()
		return nil, err
	}
	st := &sqlStore{db: db, dollar: true, persistent: true}
	if err := st.findLegacy(pctx); err != nil {
		db.Close()
		return nil, err
	}
	return st, nil
}

// The schema's version is recorded in idem_schema. A replica that starts
// on a current schema only reads it: it takes no lock that live requests
// need, so any number of replicas may start while others serve. (Running
// CREATE … IF NOT EXISTS at every start did not: CREATE INDEX locks its
// table against writes even when the index exists, and deadlocked with
// live commits.) An older schema is migrated once, by the replica that
// holds the advisory lock; the others wait for it, then find it current.

// schemaVersion is the layout this code reads and writes: 1 the first
// tables, 2 keys named by their whole digest (key_digest, was key_hash).
const schemaVersion = 2

// schemaLock is the advisory lock that serialises migrations.
const schemaLock = 7103562

// errSchemaNewer is a store migrated by a newer idem: this one would
// misread it.
var errSchemaNewer = errors.New("the store was migrated by a newer idem gateway; run that version")

// pgMigrations[v] brings a store at version v to v+1, inside one
// transaction that also records v+1.
var pgMigrations = []func(ctx context.Context, tx *sql.Tx) error{
	// 0 → 1: the tables; a store made before versions were recorded
	// already has them all (they were made in one transaction).
	func(ctx context.Context, tx *sql.Tx) error {
		var exists bool
		if err := tx.QueryRowContext(ctx, "SELECT to_regclass('idem_keys') IS NOT NULL").Scan(&exists); err != nil || exists {
			return err
		}
		_, err := tx.ExecContext(ctx, postgresSchema)
		return err
	},
	// 1 → 2: a key's record is named by its whole digest. The records
	// already there keep the 64 bits they were written with, until their
	// key comes again (sqlStore.adopt). The column is renamed, not added:
	// a gateway of version 1 still running on the store then fails (503,
	// nothing done) instead of writing records this one cannot see, which
	// would run a key twice.
	func(ctx context.Context, tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, "ALTER TABLE idem_keys RENAME COLUMN key_hash TO key_digest; "+
			"ALTER INDEX idem_keys_by_hash RENAME TO idem_keys_by_digest")
		return err
	},
}

type queryer interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// pgVersion reads the schema's version: 0 for an empty database or a store
// made before versions were recorded.
func pgVersion(ctx context.Context, q queryer) (int, error) {
	var exists bool
	if err := q.QueryRowContext(ctx, "SELECT to_regclass('idem_schema') IS NOT NULL").Scan(&exists); err != nil || !exists {
		return 0, err
	}
	var v int
	err := q.QueryRowContext(ctx, "SELECT version FROM idem_schema").Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	return v, err
}

// migratePostgres brings the store to schemaVersion.
func migratePostgres(ctx context.Context, db *sql.DB) error {
	v, err := pgVersion(ctx, db)
	if err != nil {
		return storageErr("read the schema version", err)
	}
	if v == schemaVersion {
		return nil
	}
	if v > schemaVersion {
		return fmt.Errorf("store schema version %d, this idem reads %d: %w", v, schemaVersion, errSchemaNewer)
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		return storageErr("connect", err)
	}
	defer conn.Close()
	// A session lock: it is released if this process dies mid-migration.
	if _, err := conn.ExecContext(ctx, "SELECT pg_advisory_lock($1)", schemaLock); err != nil {
		return storageErr("lock the schema", err)
	}
	defer conn.ExecContext(context.WithoutCancel(ctx), "SELECT pg_advisory_unlock($1)", schemaLock)
	for attempt := 1; ; attempt++ {
		if v, err = pgVersion(ctx, conn); err != nil {
			return storageErr("read the schema version", err)
		}
		if v > schemaVersion {
			return fmt.Errorf("store schema version %d, this idem reads %d: %w", v, schemaVersion, errSchemaNewer)
		}
		if v == schemaVersion {
			return nil
		}
		err := pgMigrate(ctx, conn, v)
		if err == nil {
			attempt = 0
			continue
		}
		if !lockConflict(err) || attempt == 20 {
			return storageErr(fmt.Sprintf("migrate the schema to version %d", v+1), err)
		}
		// A lock live requests hold: give them the table back, then try
		// again.
		select {
		case <-time.After(time.Duration(attempt) * 50 * time.Millisecond):
		case <-ctx.Done():
			return storageErr("migrate the schema", ctx.Err())
		}
	}
}

// pgMigrate runs migration v → v+1 in one transaction. It waits at most
// lock_timeout for a lock, so that live requests never queue behind it for
// long.
func pgMigrate(ctx context.Context, conn *sql.Conn, v int) error {
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, "SET LOCAL lock_timeout = '500ms'"); err != nil {
		return err
	}
	if err := pgMigrations[v](ctx, tx); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, "CREATE TABLE IF NOT EXISTS idem_schema (version INT NOT NULL)"); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, "DELETE FROM idem_schema"); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, "INSERT INTO idem_schema (version) VALUES ($1)", v+1); err != nil {
		return err
	}
	return tx.Commit()
}

// lockConflict reports a migration that met live requests' locks: a
// deadlock or a lock it could not get in time. It is tried again.
func lockConflict(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && (pe.Code == "40P01" || pe.Code == "55P03")
}
