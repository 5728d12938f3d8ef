#!/usr/bin/env bash
# Reproduces the figures in docs/performance.md: generates the workloads
# with loggen, then times idem and jq side by side on the same files, with
# peak memory from /usr/bin/time -v (gojq 0.12.17: 0.12.20 needs a module
# version the proxy does not serve). Run from the repository root:
#   bash internal/loggen/bench.sh [DIR]
set -euo pipefail
dir=${1:-/tmp/idem-bench}
mkdir -p "$dir"
go build -o "$dir/idem" ./cmd/idem
go build -o "$dir/loggen" ./internal/loggen
GOBIN="$dir" go install github.com/itchyny/gojq/cmd/gojq@v0.12.17

gen() { [ -s "$dir/$2" ] || "$dir/loggen" -intents "$1" -seed 1 ${3:+-compress $3} -o "$dir/$2"; }
gen 100000 nginx-100k.jsonl
gen 500000 nginx-500k.jsonl
gen 1000000 nginx-1m.jsonl
gen 1000000 nginx-1m.jsonl.gz gzip
gen 1000000 nginx-1m.jsonl.zst zstd

measure() { # name, command...
  local name=$1; shift
  /usr/bin/time -v "$@" > /dev/null 2> "$dir/time.txt" || true
  local wall rss
  wall=$(grep 'Elapsed (wall clock)' "$dir/time.txt" | awk '{print $NF}')
  rss=$(grep 'Maximum resident' "$dir/time.txt" | awk '{print $NF}')
  printf '| %s | %s | %d MB |\n' "$name" "$wall" $((rss / 1024))
}

echo "| command | wall (m:ss) | peak RSS |"
echo "|---|---:|---:|"
for f in nginx-100k nginx-500k nginx-1m; do
  size=$(du -m "$dir/$f.jsonl" | cut -f1)
  lines=$(wc -l < "$dir/$f.jsonl")
  echo "| **$f.jsonl: $size MB, $lines lines** | | |"
  measure "idem diagnose -o json" "$dir/idem" diagnose -o json --fail-on critical "$dir/$f.jsonl"
  measure "jq -r '.http_idempotency_key'" jq -r '.http_idempotency_key' "$dir/$f.jsonl"
  measure "gojq -r '.http_idempotency_key'" "$dir/gojq" -r '.http_idempotency_key' "$dir/$f.jsonl"
done
for f in nginx-100k nginx-1m; do
  echo "| **$f.jsonl, grouping by key** | | |"
  measure "jq -s 'group_by(.http_idempotency_key)'" jq -s 'group_by(.http_idempotency_key) | length' "$dir/$f.jsonl"
  measure "gojq -s 'group_by(.http_idempotency_key)'" "$dir/gojq" -s 'group_by(.http_idempotency_key) | length' "$dir/$f.jsonl"
done
echo "| **compressed nginx-1m** | | |"
measure "idem diagnose -o json (gzip)" "$dir/idem" diagnose -o json --fail-on critical "$dir/nginx-1m.jsonl.gz"
measure "zcat (decompression alone)" sh -c "zcat '$dir/nginx-1m.jsonl.gz' > /dev/null"
measure "idem diagnose -o json (zstd)" "$dir/idem" diagnose -o json --fail-on critical "$dir/nginx-1m.jsonl.zst"
