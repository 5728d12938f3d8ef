package gateway

import (
	"context"
	"database/sql"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // pgx through database/sql: one sqlStore for both databases
)

const postgresSchema = `
CREATE TABLE IF NOT EXISTS idem_keys (
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
CREATE INDEX IF NOT EXISTS idem_keys_by_hash ON idem_keys (key_hash);
CREATE INDEX IF NOT EXISTS idem_keys_by_expiry ON idem_keys (expires_ns) WHERE expires_ns > 0;
CREATE TABLE IF NOT EXISTS idem_effects (
  seq BIGINT PRIMARY KEY,
  result_id TEXT NOT NULL UNIQUE,
  route TEXT NOT NULL,
  key_hash TEXT NOT NULL,
  request_id TEXT NOT NULL,
  at_ns BIGINT NOT NULL
);
CREATE TABLE IF NOT EXISTS idem_seq (name TEXT PRIMARY KEY, value BIGINT NOT NULL);
INSERT INTO idem_seq (name, value) VALUES ('result', 0) ON CONFLICT (name) DO NOTHING;
`

// OpenPostgres opens a store in the PostgreSQL database at url (a
// postgres:// URL, as pgx reads it). Several gateways may share it: the
// primary key on (scope, key_hash) makes the reservation atomic across
// processes, and an in_progress reservation is recovered only once its
// lease has passed, since its owner may be alive in another process.
func OpenPostgres(ctx context.Context, url string) (Store, error) {
	db, err := sql.Open("pgx", url)
	if err != nil {
		return nil, storageErr("open", err)
	}
	db.SetMaxOpenConns(32)
	db.SetMaxIdleConns(32)
	db.SetConnMaxIdleTime(5 * time.Minute)
	pctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	if err := db.PingContext(pctx); err != nil {
		db.Close()
		return nil, storageErr("connect", err)
	}
	// Replicas starting together must not race on CREATE TABLE.
	tx, err := db.BeginTx(pctx, nil)
	if err != nil {
		db.Close()
		return nil, storageErr("begin", err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(pctx, "SELECT pg_advisory_xact_lock(7103562)"); err != nil {
		db.Close()
		return nil, storageErr("lock the schema", err)
	}
	if _, err := tx.ExecContext(pctx, postgresSchema); err != nil {
		db.Close()
		return nil, storageErr("create the schema", err)
	}
	if err := tx.Commit(); err != nil {
		db.Close()
		return nil, storageErr("create the schema", err)
	}
	return &sqlStore{db: db, dollar: true, persistent: true}, nil
}
