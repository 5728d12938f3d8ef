#!/usr/bin/env bash
# Installs the third-party Idempotency-Key servers the replay tests run
# against (express, express-idempotency, @node-idempotency/core) from the
# committed package-lock.json. The tests start each server themselves on
# 127.0.0.1. Idempotent: nothing is installed when it already is.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=replay/testdata/servers
if ! { command -v node >/dev/null && command -v npm >/dev/null; }; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends nodejs npm
fi
# node_modules/.installed-lock is the lock file the last install used.
if ! cmp -s "$dir/package-lock.json" "$dir/node_modules/.installed-lock" 2>/dev/null; then
  npm ci --prefix "$dir" --no-audit --no-fund --loglevel=error
  cp "$dir/package-lock.json" "$dir/node_modules/.installed-lock"
fi
