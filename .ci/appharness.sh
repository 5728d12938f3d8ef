#!/usr/bin/env bash
# Installs what internal/appharness's capture tests run on: pino and
# pino-http from the committed lock file, and Debian's python3-structlog
# (for Debian's python3). Idempotent: installs only what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! /usr/bin/python3 -c 'import structlog' 2>/dev/null; then
  echo "installing: python3-structlog"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends python3-structlog
fi
bash .ci/npm-ci.sh internal/appharness/testdata/node
bash .ci/npm-ci.sh internal/appharness/testdata/nodelog  # winston, express-winston, restify, bunyan
