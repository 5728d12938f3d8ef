#!/usr/bin/env bash
# The HTML report is checked in headless Chromium (Debian's package, run
# from the tests with --headless; it downloads nothing). Installs it only
# when missing.
set -euo pipefail
need=()
command -v chromium >/dev/null || need+=(chromium)
[ -d /usr/share/fonts/truetype/dejavu ] || need+=(fonts-dejavu-core)
if [ ${#need[@]} -gt 0 ]; then
  echo "installing: ${need[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}"
fi
# Screenshots of the HTML reports are kept here as CI artifacts
# (.ci/run exports IDEM_ARTIFACTS with this default).
mkdir -p "${IDEM_ARTIFACTS:-/tmp/idem-artifacts}/html"
echo "screenshots of the HTML reports: ${IDEM_ARTIFACTS:-/tmp/idem-artifacts}/html"
