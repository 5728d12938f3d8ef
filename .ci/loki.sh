#!/usr/bin/env bash
# Builds Grafana Loki v3 (the single binary: every role in one process)
# from the Go module proxy into a cache directory outside the repository,
# once; logstore/lokitest finds it there and the tests start their own
# instance on 127.0.0.1 with filesystem storage in a temporary directory.
# Loki's go.mod replaces github.com/grafana/loki/pkg/push with a nested
# directory the module zip leaves out, so "go install …@version" refuses
# it: the module is copied out of the module cache, that replace dropped
# (the proxy serves pkg/push as its own module, whose checksum go.sum
# then lacks until it is downloaded), and built there (seven
# minutes or more on two busy cores).
set -euo pipefail
cd "$(dirname "$0")/.."
version=v3.7.8
cache="${XDG_CACHE_HOME:-$HOME/.cache}/idem-ci/loki-$version"
bin="$cache/loki"
if [ ! -x "$bin" ]; then
  echo "building loki $version into $cache"
  mkdir -p "$cache"
  work=$(mktemp -d)
  dir=$(cd "$work" && go mod download -json "github.com/grafana/loki/v3@$version" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
  cp -r "$dir/." "$work/src" && chmod -R u+w "$work/src"
  (cd "$work/src" && go mod edit -dropreplace github.com/grafana/loki/pkg/push &&
    go mod download github.com/grafana/loki/pkg/push &&
    GOTOOLCHAIN=local GOFLAGS=-buildvcs=false go build -o "$bin.tmp" ./cmd/loki && mv "$bin.tmp" "$bin")
  rm -rf "$work"
fi
echo "loki $version: $bin"
