#!/usr/bin/env bash
# Installs what internal/kit/callerharness's capture tests run on: Node
# for the caller's own log; Python 3, Ruby, a JDK with logback for the
# logging libraries' default prefixes. Idempotent: installs only what is
# missing.
set -euo pipefail
cd "$(dirname "$0")/.."

need=()
command -v node >/dev/null || need+=(nodejs)
command -v python3 >/dev/null || need+=(python3)
command -v ruby >/dev/null || need+=(ruby)
command -v javac >/dev/null || need+=(default-jdk-headless)
[ -f /usr/share/java/logback-classic.jar ] || need+=(liblogback-java)
[ -f /usr/share/java/slf4j-api.jar ] || need+=(libslf4j-java)
if [ ${#need[@]} -gt 0 ]; then
  echo "installing: ${need[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}"
fi
