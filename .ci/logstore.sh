#!/usr/bin/env bash
# Builds VictoriaLogs (one binary: single node, vlstorage, vlinsert and
# vlselect roles) from the Go module proxy into a cache directory outside
# the repository, once; the logstore tests find it there and start their
# own instances on 127.0.0.1. Then loads a generated workload (1.32 million
# intents at half the default fault rates: 2,010,358 lines) into a single
# node and a cluster, and 130,000 intents at the default rates into a
# tenant of the single node, and checks the findings and the transfer,
# without the race detector, which the main test run uses and which would
# multiply the time. IDEM_LOGSTORE_INTENTS=130000 runs it in about 35 s.
set -euo pipefail
cd "$(dirname "$0")/.."
version=v1.52.1
cache="${XDG_CACHE_HOME:-$HOME/.cache}/idem-ci/victorialogs-$version"
bin="$cache/victoria-logs"
if [ ! -x "$bin" ]; then
  echo "building victoria-logs $version into $cache"
  mkdir -p "$cache"
  GOBIN="$cache" GOFLAGS=-buildvcs=false go install "github.com/VictoriaMetrics/VictoriaLogs/app/victoria-logs@$version"
fi
echo "== log store workload (${IDEM_LOGSTORE_INTENTS:=1320000} intents)"
IDEM_VICTORIALOGS="$bin" IDEM_LOGSTORE_INTENTS="$IDEM_LOGSTORE_INTENTS" CI="${CI:-true}" \
  go test -count=1 -timeout 20m -run '^TestLogStoreWorkload$' -v ./cmd | grep -E '^(---|ok|FAIL|PASS)|logstore_test' || { echo "log store workload failed"; exit 1; }
