#!/usr/bin/env bash
# Installs what internal/serverharness's capture tests run: express,
# express-idempotency, @node-idempotency/core and its memory adapter, pino
# and pino-http from the committed lock file
# (nginx and node come from .ci/harness.sh and .ci/run). The test starts
# the app and nginx itself on 127.0.0.1. Idempotent: nothing is installed
# when the lock file's install is already there.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=internal/serverharness/testdata/node
if ! { command -v node >/dev/null && command -v npm >/dev/null; }; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends nodejs npm
fi
# node_modules/.installed-lock is the lock file the last install used.
if ! cmp -s "$dir/package-lock.json" "$dir/node_modules/.installed-lock" 2>/dev/null; then
  npm ci --prefix "$dir" --no-audit --no-fund --loglevel=error
  cp "$dir/package-lock.json" "$dir/node_modules/.installed-lock"
fi
