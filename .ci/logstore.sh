#!/usr/bin/env bash
# Builds VictoriaLogs (single binary: single node, vlstorage, vlinsert and
# vlselect roles) from the Go module proxy into a cache directory outside the
# repository, once. The logstore tests find it through IDEM_VICTORIALOGS and
# start their own instances on 127.0.0.1.
set -euo pipefail
version=v1.52.1
cache="${XDG_CACHE_HOME:-$HOME/.cache}/idem-ci/victorialogs-$version"
bin="$cache/victoria-logs"
if [ ! -x "$bin" ]; then
  echo "building victoria-logs $version into $cache"
  mkdir -p "$cache"
  GOBIN="$cache" GOFLAGS=-buildvcs=false go install "github.com/VictoriaMetrics/VictoriaLogs/app/victoria-logs@$version"
fi
"$bin" -version 2>/dev/null | head -1 || true
export IDEM_VICTORIALOGS="$bin"
