#!/usr/bin/env bash
# Builds Jaeger v2 (one binary) from the Go module proxy into a cache
# directory outside the repository, once, and installs the Node
# OpenTelemetry packages from the committed lock file: what
# internal/kit/spanharness's captures run. Jaeger's go.mod has a replace
# directive, so "go install …@version" refuses it: the module is copied
# out of the module cache and built there (about ten minutes on two
# cores). The tests start Jaeger themselves, in memory, on 127.0.0.1.
set -euo pipefail
cd "$(dirname "$0")/.."
version=v1.76.0
cache="${XDG_CACHE_HOME:-$HOME/.cache}/idem-ci/jaeger-$version"
bin="$cache/jaeger"
if [ ! -x "$bin" ]; then
  echo "building jaeger $version into $cache"
  mkdir -p "$cache"
  work=$(mktemp -d)
  dir=$(cd "$work" && go mod download -json "github.com/jaegertracing/jaeger@$version" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')
  cp -r "$dir/." "$work/src" && chmod -R u+w "$work/src"
  (cd "$work/src" && GOTOOLCHAIN=local GOFLAGS=-buildvcs=false go build -o "$bin" ./cmd/jaeger)
  rm -rf "$work"
fi
exec bash .ci/npm-ci.sh internal/kit/spanharness/testdata/node
