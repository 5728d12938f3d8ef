#!/usr/bin/env bash
# Installs what internal/kit/appharness's capture tests run on: the Node
# packages from the committed lock files, and Debian's python3-structlog,
# python3-flask, python3-pythonjsonlogger and gunicorn (for Debian's
# python3), php-cli and php-monolog, ruby-railties and ruby-lograge, a
# JDK with liblogback-java and liblogstash-logback-encoder-java.
# Idempotent: installs only what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

need=()
/usr/bin/python3 -c 'import structlog' 2>/dev/null || need+=(python3-structlog)
/usr/bin/python3 -c 'import flask' 2>/dev/null || need+=(python3-flask)
/usr/bin/python3 -c 'import pythonjsonlogger' 2>/dev/null || need+=(python3-pythonjsonlogger)
[ -x /usr/bin/gunicorn ] || need+=(gunicorn)
command -v php >/dev/null || need+=(php-cli)
[ -f /usr/share/php/Monolog/autoload.php ] || need+=(php-monolog)
command -v ruby >/dev/null || need+=(ruby)
ruby -e 'require "rails"; require "lograge"' 2>/dev/null || need+=(ruby-railties ruby-lograge)
command -v javac >/dev/null || need+=(default-jdk-headless)
[ -f /usr/share/java/logback-classic.jar ] || need+=(liblogback-java)
[ -f /usr/share/java/logstash-logback-encoder.jar ] || need+=(liblogstash-logback-encoder-java)
if [ ${#need[@]} -gt 0 ]; then
  echo "installing: ${need[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}"
fi
bash .ci/npm-ci.sh internal/kit/appharness/testdata/node
bash .ci/npm-ci.sh internal/kit/appharness/testdata/nodelog  # winston, express-winston, restify, bunyan
