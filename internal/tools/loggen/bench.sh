#!/usr/bin/env bash
# Reproduces the figures in docs/performance.md: generates the workloads
# with loggen, then times idem, DuckDB, jq, gojq, the member walk
# (internal/tools/floor: reading and extracting alone), a literal search
# for the key's name (grep -c: the floor, a pass over the bytes) and
# reading the file (cat) side by side on the same files, with peak memory
# and CPU time from /usr/bin/time (gojq 0.12.17: 0.12.20 needs a module
# version the proxy does not serve; DuckDB from the lock file in duckdb/,
# with npm ci). Run from the repository root:
#   bash internal/tools/loggen/bench.sh [DIR]
# or, for one small workload of N intents and its one table (minutes, not
# an hour):
#   INTENTS=N bash internal/tools/loggen/bench.sh [DIR]
set -euo pipefail
dir=${1:-/tmp/idem-bench}
mkdir -p "$dir"
go build -o "$dir/idem" ./cmd/idem
go build -o "$dir/loggen" ./internal/tools/loggen
go build -o "$dir/floor" ./internal/tools/floor
here=$(dirname "$0")
[ -d "$here/duckdb/node_modules/@duckdb/node-api" ] || npm ci --prefix "$here/duckdb" --no-audit --no-fund --loglevel=error

gen() { [ -s "$dir/$2" ] || "$dir/loggen" -intents "$1" -seed 1 ${3:+-compress $3} -o "$dir/$2"; }
if [ -z "${INTENTS:-}" ]; then
  GOBIN="$dir" go install github.com/itchyny/gojq/cmd/gojq@v0.12.17
  gen 100000 nginx-100k.jsonl
  gen 500000 nginx-500k.jsonl
  gen 1000000 nginx-1m.jsonl
  gen 1000000 nginx-1m.jsonl.gz gzip
  gen 1000000 nginx-1m.jsonl.zst zstd
fi

# median prints the middle of its arguments, as numbers.
median() { printf '%s\n' "$@" | sort -n | sed -n "$(( ($# + 1) / 2 ))p"; }

# once runs a command and keeps its wall time, peak RSS and user and
# system time in runs.txt under NAME.
once() { # name, command...
  local name=$1 w m u s; shift
  /usr/bin/time -f '%e %M %U %S' "$@" > /dev/null 2> "$dir/time.txt" || true
  read -r w m u s < <(tail -1 "$dir/time.txt")
  echo "$name|$w|$m|$u|$s" >> "$dir/runs.txt"
}

# row prints NAME's runs in runs.txt as a row: the median wall time, the
# fastest and slowest, the median CPU time (user and system: steadier
# than the wall when other work shares the cores) and the largest peak
# RSS; single runs on a shared machine vary by 20%.
row() { # name
  local name=$1 walls=() cpus=() rss=0 n w m u s
  while IFS='|' read -r n w m u s; do
    [ "$n" = "$name" ] || continue
    walls+=("$w")
    cpus+=("$(awk -v u="$u" -v s="$s" 'BEGIN {printf "%.2f", u + s}')")
    ((m > rss)) && rss=$m
  done < "$dir/runs.txt"
  local med lo hi cpu
  med=$(median "${walls[@]}")
  lo=$(printf '%s\n' "${walls[@]}" | sort -n | head -1)
  hi=$(printf '%s\n' "${walls[@]}" | sort -n | tail -1)
  cpu=$(median "${cpus[@]}")
  printf '| %s | %s s | %s–%s s | %s s | %d MB |\n' "$name" "$med" "$lo" "$hi" "$cpu" $((rss / 1024))
  echo "$name|$med|$cpu" >> "$dir/medians.txt"
}

# measure runs a command RUNS times (3 unless set; 1 for the slow
# slurping runs) and prints its row.
measure() { # name, command...
  local i
  : > "$dir/runs.txt"
  for ((i = 0; i < ${RUNS:-3}; i++)); do
    once "$@"
  done
  row "$1"
}

: > "$dir/medians.txt"
echo "| command | wall (median) | range | CPU (median) | peak RSS |"
echo "|---|---:|---:|---:|---:|"
# workload times idem and what it is held against on FILE, under a
# header naming it LABEL, each row's name after PREFIX; gojq too when
# asked. They take turns run by run (idem, DuckDB, the walk, jq, then
# again), so that a change in the machine's speed falls on all of them
# alike and their ratios hold: the machine's spells move every one of
# them by a fifth or more within minutes.
workload() { # file, label, prefix, [gojq]
  local file=$1 label=$2 prefix=$3 size lines i
  size=$(du -mL "$file" | cut -f1)
  lines=$(wc -l < "$file")
  echo "| **$label: $size MB, $lines lines** | | | | |"
  local names=("${prefix}idem diagnose -o json" "${prefix}DuckDB: keys that repeat, min/max status (2 threads)"
    "${prefix}member walk (ten fields extracted, both cores)" "${prefix}jq -r '.http_idempotency_key'"
    "${prefix}grep -c '\"http_idempotency_key\"' (the floor: a literal search)" "${prefix}cat > /dev/null (reading the bytes)")
  [ "${4:-}" = gojq ] && names+=("${prefix}gojq -r '.http_idempotency_key'")
  : > "$dir/runs.txt"
  for ((i = 0; i < ${RUNS:-3}; i++)); do
    once "${names[0]}" "$dir/idem" diagnose -o json --fail-on critical "$file"
    once "${names[1]}" node "$here/duckdb/groupby.mjs" "$file" 2
    once "${names[2]}" "$dir/floor" "$file"
    once "${names[3]}" jq -r '.http_idempotency_key' "$file"
    once "${names[4]}" grep -c '"http_idempotency_key"' "$file"
    once "${names[5]}" cat "$file"
    if [ "${4:-}" = gojq ]; then
      once "${names[6]}" "$dir/gojq" -r '.http_idempotency_key' "$file"
    fi
  done
  for n in "${names[@]}"; do
    row "$n"
  done
}
if [ -n "${INTENTS:-}" ]; then # one small workload, its table alone
  gen "$INTENTS" "nginx-$INTENTS.jsonl"
  workload "$dir/nginx-$INTENTS.jsonl" "nginx-$INTENTS.jsonl" ""
  exit 0
fi
for f in nginx-100k nginx-500k nginx-1m; do
  workload "$dir/$f.jsonl" "$f.jsonl" "" gojq
done
# The second workload, from a generator of its own (payments.awk: another
# layout of nginx's variables and another mix of faults, 3.5% of intents
# gone wrong), timed the same way.
[ -s "$dir/payments-1m.jsonl" ] || awk -v intents=1000000 -v seed=2 -f "$here/payments.awk" > "$dir/payments-1m.jsonl"
workload "$dir/payments-1m.jsonl" "payments-1m.jsonl (payments.awk)" "payments: "
"$dir/idem" diagnose -o json --fail-on critical "$dir/payments-1m.jsonl" > "$dir/payments-1m.report.json" || true
# The summary's count: counting "rule" keys counted the rules not
# evaluated too.
echo "| (its JSON report: $(du -mL "$dir/payments-1m.report.json" | cut -f1) MB, $(grep -o '"findings":[0-9]*' "$dir/payments-1m.report.json" | head -1 | cut -d: -f2) findings) | | | | |"
for f in nginx-100k nginx-1m; do
  echo "| **$f.jsonl, grouping by key** | | | | |"
  RUNS=1 measure "jq -s 'group_by(.http_idempotency_key)'" jq -s 'group_by(.http_idempotency_key) | length' "$dir/$f.jsonl"
  RUNS=1 measure "gojq -s 'group_by(.http_idempotency_key)'" "$dir/gojq" -s 'group_by(.http_idempotency_key) | length' "$dir/$f.jsonl"
done
echo "| **compressed nginx-1m** | | | | |"
measure "idem diagnose -o json (gzip)" "$dir/idem" diagnose -o json --fail-on critical "$dir/nginx-1m.jsonl.gz"
measure "zcat (decompression alone)" sh -c "zcat '$dir/nginx-1m.jsonl.gz' > /dev/null"
measure "idem diagnose -o json (zstd)" "$dir/idem" diagnose -o json --fail-on critical "$dir/nginx-1m.jsonl.zst"

# Inputs that must cost what they hold, not what they are: lines no
# format reads (an application's text log of a million lines, 84 MB, and
# the same with one line in twenty a combined access-log line), and the
# hostile ones whose memory must follow what is remembered (16 MB of
# newlines in a 16 KB gzip, a million one-byte lines, a million empty
# objects, 100 MB of random bytes).
[ -s "$dir/applog.log" ] || awk 'BEGIN { srand(1); split("INFO WARN DEBUG ERROR", lv, " ")
  for (i = 0; i < 1000000; i++) {
    pre = sprintf("2026-12-01T09:%02d:%02d.%03dZ %s [orders-worker-%d] ", int(i / 60000) % 60, int(i / 1000) % 60, i % 1000, lv[int(rand() * 4) + 1], int(rand() * 8) + 1)
    print pre "cache miss user=u" int(rand() * 99999) " took=" sprintf("%.1f", rand() * 100) "ms" > "'"$dir/applog.log"'"
    if (i % 20 == 7) { n++
      printf "10.0.0.%d - - [01/Dec/2026:09:00:%02d +0000] \"POST /orders HTTP/1.1\" 201 123 \"-\" \"curl/8.0\" rid=r%07d key=k%07d\n", i % 250, i % 60, n, n > "'"$dir/mixed.log"'"
    } else print pre "cache miss user=u" int(rand() * 99999) " took=" sprintf("%.1f", rand() * 100) "ms" > "'"$dir/mixed.log"'"
  } }'
[ -s "$dir/newlines.gz" ] || head -c 16000000 /dev/zero | tr '\0' '\n' | gzip -9 > "$dir/newlines.gz"
# (awk, not yes | head: under pipefail yes's SIGPIPE would end the script)
[ -s "$dir/x.log" ] || awk 'BEGIN { for (i = 0; i < 1000000; i++) print "x" }' > "$dir/x.log"
[ -s "$dir/empty-objects.log" ] || awk 'BEGIN { for (i = 0; i < 1000000; i++) print "{}" }' > "$dir/empty-objects.log"
[ -s "$dir/random.bin" ] || head -c 100000000 /dev/urandom > "$dir/random.bin"
echo "| **what no format reads, and hostile inputs** | | | | |"
# The text logs are held to nginx JSON's CPU per MB, so the three take
# turns, five rounds: run three times in a row after the compressed
# runs, the text logs took a quarter more CPU than the same build did
# taking turns minutes later.
texts=(applog.log mixed.log nginx-100k.jsonl)
: > "$dir/runs.txt"
for ((i = 0; i < 5; i++)); do
  for f in "${texts[@]}"; do
    once "idem diagnose -o json $f" "$dir/idem" diagnose -o json --fail-on critical "$dir/$f"
  done
done
for f in "${texts[@]}"; do
  row "idem diagnose -o json $f"
done
for f in newlines.gz x.log empty-objects.log random.bin; do
  measure "idem diagnose -o json $f" "$dir/idem" diagnose -o json --fail-on critical "$dir/$f"
done
# A browser's HAR export of a million entries (741 MB): what the
# correlator keeps of each must be its compact line, not a copy.
[ -s "$dir/har-1m.har" ] || "$dir/loggen" -format har -intents 647000 -seed 1 -o "$dir/har-1m.har"
measure "idem diagnose -o json har-1m.har" "$dir/idem" diagnose -o json --fail-on critical "$dir/har-1m.har"

# The ratios the targets are about, from the medians of the 1m rows.
# Field 2 is the wall, field 3 the CPU time.
m1() { grep "^$1" "$dir/medians.txt" | sed -n 3p | cut -d'|' -f"$2"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", a / b}'; }
p1() { grep "^payments: $1" "$dir/medians.txt" | cut -d'|' -f"$2"; }
# ratios prints one workload's ratios: its label, the function that
# picks its rows' medians, the field, and what the field is.
ratios() {
  local idem duck walk jq
  idem=$($2 'idem diagnose -o json|' "$3") duck=$($2 'DuckDB' "$3") walk=$($2 'member walk' "$3") jq=$($2 'jq -r' "$3")
  echo "$1 ($4): idem diagnose takes $(ratio "$idem" "$duck") of DuckDB's GROUP BY, $(ratio "$idem" "$jq") of jq -r, $(ratio "$idem" "$walk") times the member walk"
}
echo
for f in 2 3; do
  what=wall; [ "$f" = 3 ] && what=CPU
  ratios nginx-1m m1 "$f" "$what"
  ratios payments-1m p1 "$f" "$what"
done
# CPU per MB of the text logs against nginx JSON's, from the rows taken
# in turns.
perMB() { # file
  local cpu
  cpu=$(grep "^idem diagnose -o json $1|" "$dir/medians.txt" | cut -d'|' -f3)
  awk -v c="$cpu" -v mb="$(du -mL "$dir/$1" | cut -f1)" 'BEGIN {printf "%.2f", c * 1000 / mb}'
}
json=$(perMB nginx-100k.jsonl)
for f in applog.log mixed.log; do
  text=$(perMB "$f")
  echo "$f (CPU per MB): $text ms against nginx JSON's $json ms, $(ratio "$text" "$json") times"
done
