package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"time"
)

// jsonState is the old state file: one JSON document rewritten on every
// change.
type jsonState struct {
	Keys map[string]struct {
		Scope       string          `json:"scope"`
		KeyHash     string          `json:"key_hash"`
		Fingerprint string          `json:"fingerprint"`
		State       string          `json:"state"`
		Status      int             `json:"status"`
		Body        json.RawMessage `json:"body"`
		ResultID    string          `json:"result_id"`
		Owner       string          `json:"owner"`
		Created     time.Time       `json:"created"`
		Expires     time.Time       `json:"expires"`
	} `json:"keys"`
	Effects []effect `json:"effects"`
	Seq     int64    `json:"seq"`
}

// migrateJSON replaces the JSON state at path by a SQLite database with
// the same keys, effects and id sequence. The caller holds the lock on
// path. The JSON is kept as path.json-v1; the swap is a rename, so a crash
// leaves either the old file or the new one.
func migrateJSON(ctx context.Context, path string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("cannot read the state %s: %w", path, err)
	}
	var old jsonState
	if err := json.Unmarshal(b, &old); err != nil {
		return fmt.Errorf("the state %s is neither a database nor a valid JSON state: %w", path, err)
	}
	var recs []record
	for _, k := range old.Keys {
		// The JSON named keys by 64 bits of their digest: the records
		// are adopted by their keys as those of a version 1 database are.
		r := record{Scope: k.Scope, Digest: k.KeyHash, Fingerprint: k.Fingerprint, State: k.State, Status: k.Status,
			ResultID: k.ResultID, Created: k.Created, Expires: k.Expires, Header: http.Header{}}
		if r.State == stateCompleted {
			// The old file re-indented the stored body; the gateway wrote
			// it compact, so compacting gives back the bytes it sent.
			var c bytes.Buffer
			if json.Compact(&c, k.Body) == nil {
				r.Body = c.Bytes()
			} else {
				r.Body = k.Body
			}
			r.Header.Set("Content-Type", "application/json")
			r.Owner = "migrated/" + k.Owner
		} else {
			// Its owner was the process that wrote the file: gone.
			r.State, r.Owner, r.Expires = stateInProgress, "migrated/"+k.Owner, time.Time{}
		}
		recs = append(recs, r)
	}
	tmp := path + ".migrating"
	for _, suffix := range []string{"", "-wal", "-shm"} {
		os.Remove(tmp + suffix)
	}
	st, err := openSQLiteDSN(ctx, sqliteDSN(tmp), nil, true)
	if err != nil {
		return err
	}
	if err := st.importState(ctx, recs, old.Effects, old.Seq); err != nil {
		st.Close()
		return err
	}
	// Fold the WAL into the file before the rename.
	if _, err := st.db.ExecContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
		st.Close()
		return storageErr("checkpoint", err)
	}
	if err := st.Close(); err != nil {
		return storageErr("close", err)
	}
	if err := os.Link(path, path+".json-v1"); err != nil && !os.IsExist(err) {
		return fmt.Errorf("cannot keep the old state as %s: %w", path+".json-v1", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("cannot replace the state %s: %w", path, err)
	}
	return nil
}
