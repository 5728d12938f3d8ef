#!/usr/bin/env bash
# The gateway's store tests start their own PostgreSQL (an initdb in a
# temporary directory, on 127.0.0.1): this makes sure its binaries are
# installed. Idempotent; installs Debian's postgresql only when no initdb
# is found, without a cluster or a running service.
set -euo pipefail

have_initdb() {
  command -v initdb >/dev/null && return 0
  for d in /usr/lib/postgresql/*/bin; do
    [ -x "$d/initdb" ] && [ -x "$d/postgres" ] && return 0
  done
  return 1
}

if ! have_initdb; then
  echo "installing: postgresql"
  mkdir -p /etc/postgresql-common
  echo "create_main_cluster = false" > /etc/postgresql-common/createcluster.conf
  printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d && chmod +x /usr/sbin/policy-rc.d
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends postgresql
  rm -f /usr/sbin/policy-rc.d
  have_initdb || { echo "postgresql installed but no initdb found"; exit 1; }
fi
