-- A PostgreSQL store as the gateway made it before its schema had a
-- version and before keys were stored under their whole digest (key_hash
-- held the first 64 bits of the key's SHA-256): its schema statements as
-- that gateway ran them, and the rows it wrote for order-1, order-2 and
-- article-7:r1:publish (completed) and order-3 (in progress when the
-- process was killed). Expiries are cleared so the records never expire.
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
INSERT INTO idem_keys (scope, key_hash, fingerprint, state, owner, lease_ns, status, headers, body, result_id, created_ns, expires_ns) VALUES ('/v1/demo-requests', 'sha256:0bafe22156d2698c', 'sha256:c555647d18a22b4388e206af0925bc0d59204ba227ab5c3a8014d545ea2b011c', 'completed', 'gw-c544a71f4074/1/r-order-1', 0, 201, E'\\x436f6e74656e742d547970653a206170706c69636174696f6e2f6a736f6e0d0a', E'\\x7b226964223a2264725f303030303031222c22737461747573223a2263726561746564227d', 'dr_000001', 1796182541677790642, 0);
INSERT INTO idem_keys (scope, key_hash, fingerprint, state, owner, lease_ns, status, headers, body, result_id, created_ns, expires_ns) VALUES ('/v1/demo-requests', 'sha256:3d5e3106cd72ba03', 'sha256:3b82db1bb4db4f69e321b821c6d56478f8368198182011bfc3be3f1abf1d8599', 'completed', 'gw-c544a71f4074/2/r-order-2', 0, 201, E'\\x436f6e74656e742d547970653a206170706c69636174696f6e2f6a736f6e0d0a', E'\\x7b226964223a2264725f303030303032222c22737461747573223a2263726561746564227d', 'dr_000002', 1796182542693917105, 0);
INSERT INTO idem_keys (scope, key_hash, fingerprint, state, owner, lease_ns, status, headers, body, result_id, created_ns, expires_ns) VALUES ('/v1/operations/publish', 'sha256:94f839e13cb6ab73', 'sha256:6d965fea6320a9f6653145e719e751cf30aa7b058ac403cc18b90dc49a4d0ee9', 'completed', 'gw-c544a71f4074/3/e9bbcfbf9517bb1691af7971881a1e99', 0, 201, E'\\x436f6e74656e742d547970653a206170706c69636174696f6e2f6a736f6e0d0a', E'\\x7b226964223a22726370745f303030303033222c22737461747573223a2263726561746564227d', 'rcpt_000003', 1796182543733759960, 0);
INSERT INTO idem_keys (scope, key_hash, fingerprint, state, owner, lease_ns, status, headers, body, result_id, created_ns, expires_ns) VALUES ('/v1/demo-requests', 'sha256:28ec9a8ff249fd5f', 'sha256:09bc3b6c5809881c979e64d757c946619b3039fa7ca0c01d8ed22f071b8a17c3', 'in_progress', 'gw-c544a71f4074/4/c8290651a1c2c194efb9f553f840a53f', 1796182546700666039, 0, E'\\x', E'\\x', '', 1796182544700666039, 0);
INSERT INTO idem_effects (seq, result_id, route, key_hash, request_id, at_ns) VALUES (1, 'dr_000001', '/v1/demo-requests', 'sha256:0bafe22156d2698c', 'r-order-1', 1796182542523315301);
INSERT INTO idem_effects (seq, result_id, route, key_hash, request_id, at_ns) VALUES (2, 'dr_000002', '/v1/demo-requests', 'sha256:3d5e3106cd72ba03', 'r-order-2', 1796182543500973733);
INSERT INTO idem_effects (seq, result_id, route, key_hash, request_id, at_ns) VALUES (3, 'rcpt_000003', '/v1/operations/publish', 'sha256:94f839e13cb6ab73', 'e9bbcfbf9517bb1691af7971881a1e99', 1796182544539805580);
UPDATE idem_seq SET value = 3 WHERE name = 'result';
