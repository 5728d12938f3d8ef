#!/usr/bin/env bash
# Installs what internal/kit/textharness's capture tests run on: Debian's
# python3-requests (with its python3-urllib3) for the client, and
# python3-uvicorn for the server's access line; chi comes from go.mod.
# Idempotent: installs only what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

need=()
/usr/bin/python3 -c 'import requests, urllib3' 2>/dev/null || need+=(python3-requests)
/usr/bin/python3 -c 'import uvicorn' 2>/dev/null || need+=(python3-uvicorn)
if [ ${#need[@]} -gt 0 ]; then
  echo "installing: ${need[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}"
fi
