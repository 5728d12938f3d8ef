#!/usr/bin/env bash
# Installs what internal/kit/callerharness's capture tests run on: Node
# for the caller's own log. Idempotent: installs only what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

need=()
command -v node >/dev/null || need+=(nodejs)
if [ ${#need[@]} -gt 0 ]; then
  echo "installing: ${need[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}"
fi
