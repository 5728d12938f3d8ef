#!/usr/bin/env bash
# Installs what the capture kit (internal/kit/capture) and the capture
# harnesses (internal/kit/harness, internal/kit/fiberharness) run for real:
# nginx, HAProxy and Caddy in front of a Go backend, and Chromium driven by
# playwright-core. Idempotent: installs only what is missing. The tests
# start their own instances on 127.0.0.1; no packaged service is started.
set -euo pipefail
cd "$(dirname "$0")/.."

need=()
command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] || need+=(nginx)
command -v haproxy >/dev/null || [ -x /usr/sbin/haproxy ] || need+=(haproxy)
command -v caddy >/dev/null || [ -x /usr/bin/caddy ] || need+=(caddy)
command -v chromium >/dev/null || [ -x /usr/bin/chromium ] || need+=(chromium)
command -v curl >/dev/null || need+=(curl)
{ command -v node >/dev/null && command -v npm >/dev/null; } || need+=(nodejs npm)
if [ ${#need[@]} -gt 0 ]; then
  echo "harness: installing ${need[*]}"
  # Keep Debian from starting the packaged services (nginx on 80, HAProxy,
  # Caddy on 80/443) on install.
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d && chmod +x /usr/sbin/policy-rc.d
    trap 'rm -f /usr/sbin/policy-rc.d' EXIT
  fi
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}"
fi
# playwright-core drives Debian's Chromium (executablePath); it never
# downloads a browser of its own.
PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --prefix internal/kit/harness/playwright --no-audit --no-fund --loglevel=error
