#!/usr/bin/env bash
# Usage: .ci/npm-ci.sh DIR — installs DIR's npm packages from its committed
# package-lock.json with npm ci (node and npm from Debian when missing).
# Idempotent: nothing is installed when DIR's lock file is the one its
# node_modules came from (node_modules/.installed-lock).
set -euo pipefail
cd "$(dirname "$0")/.."
dir=$1
if ! { command -v node >/dev/null && command -v npm >/dev/null; }; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends nodejs npm
fi
if ! cmp -s "$dir/package-lock.json" "$dir/node_modules/.installed-lock" 2>/dev/null; then
  npm ci --prefix "$dir" --no-audit --no-fund --loglevel=error
  cp "$dir/package-lock.json" "$dir/node_modules/.installed-lock"
fi
