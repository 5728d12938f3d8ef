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
go build -o "$dir/floor" ./internal/floor
GOBIN="$dir" go install github.com/itchyny/gojq/cmd/gojq@v0.12.17

gen() { [ -s "$dir/$2" ] || "$dir/loggen" -intents "$1" -seed 1 ${3:+-compress $3} -o "$dir/$2"; }
gen 100000 nginx-100k.jsonl
gen 500000 nginx-500k.jsonl
gen 1000000 nginx-1m.jsonl
gen 1000000 nginx-1m.jsonl.gz gzip
gen 1000000 nginx-1m.jsonl.zst zstd

# measure runs a command RUNS times (3 unless set; 1 for the slow
# slurping runs) and prints the median wall time, the fastest and slowest,
# and the largest peak RSS: single runs on a shared machine vary by 15%.
measure() { # name, command...
  local name=$1; shift
  local walls=() rss=0 i
  for ((i = 0; i < ${RUNS:-3}; i++)); do
    /usr/bin/time -f '%e %M' "$@" > /dev/null 2> "$dir/time.txt" || true
    read -r w m < <(tail -1 "$dir/time.txt")
    walls+=("$w")
    ((m > rss)) && rss=$m
  done
  local sorted
  sorted=$(printf '%s\n' "${walls[@]}" | sort -n)
  local med lo hi
  med=$(sed -n "$(( (${#walls[@]} + 1) / 2 ))p" <<< "$sorted")
  lo=$(head -1 <<< "$sorted")
  hi=$(tail -1 <<< "$sorted")
  printf '| %s | %s s | %s–%s s | %d MB |\n' "$name" "$med" "$lo" "$hi" $((rss / 1024))
  echo "$name $med" >> "$dir/medians.txt"
}

: > "$dir/medians.txt"
echo "| command | wall (median) | range | peak RSS |"
echo "|---|---:|---:|---:|"
for f in nginx-100k nginx-500k nginx-1m; do
  size=$(du -m "$dir/$f.jsonl" | cut -f1)
  lines=$(wc -l < "$dir/$f.jsonl")
  echo "| **$f.jsonl: $size MB, $lines lines** | | | |"
  measure "idem diagnose -o json" "$dir/idem" diagnose -o json --fail-on critical "$dir/$f.jsonl"
  measure "jq -r '.http_idempotency_key'" jq -r '.http_idempotency_key' "$dir/$f.jsonl"
  measure "gojq -r '.http_idempotency_key'" "$dir/gojq" -r '.http_idempotency_key' "$dir/$f.jsonl"
  measure "floor (find every string, hash two ids)" "$dir/floor" "$dir/$f.jsonl"
done
for f in nginx-100k nginx-1m; do
  echo "| **$f.jsonl, grouping by key** | | | |"
  RUNS=1 measure "jq -s 'group_by(.http_idempotency_key)'" jq -s 'group_by(.http_idempotency_key) | length' "$dir/$f.jsonl"
  RUNS=1 measure "gojq -s 'group_by(.http_idempotency_key)'" "$dir/gojq" -s 'group_by(.http_idempotency_key) | length' "$dir/$f.jsonl"
done
echo "| **compressed nginx-1m** | | | |"
measure "idem diagnose -o json (gzip)" "$dir/idem" diagnose -o json --fail-on critical "$dir/nginx-1m.jsonl.gz"
measure "zcat (decompression alone)" sh -c "zcat '$dir/nginx-1m.jsonl.gz' > /dev/null"
measure "idem diagnose -o json (zstd)" "$dir/idem" diagnose -o json --fail-on critical "$dir/nginx-1m.jsonl.zst"

# The ratio the target is about, from the medians above (the 1m rows are
# the last idem and jq rows before the grouping runs).
idem=$(grep '^idem diagnose -o json ' "$dir/medians.txt" | sed -n 3p | awk '{print $NF}')
jq=$(grep "^jq -r" "$dir/medians.txt" | sed -n 3p | awk '{print $NF}')
echo
floor=$(grep "^floor" "$dir/medians.txt" | sed -n 3p | awk '{print $NF}')
echo "nginx-1m: jq -r takes $(awk -v a="$jq" -v b="$idem" 'BEGIN {printf "%.1f", a / b}') times as long as idem diagnose"
echo "nginx-1m: ten times faster than jq -r is $(awk -v a="$jq" 'BEGIN {printf "%.2f", a / 10}') s; floor alone takes $floor s"
