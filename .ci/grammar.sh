#!/usr/bin/env bash
# Installs what internal/kit/grammarharness runs for real: Apache httpd (with
# mod_unique_id and mod_proxy, in apache2-bin), Tomcat 10 (and the JVM it
# depends on), lighttpd, Varnish and squid, besides the nginx and HAProxy that
# .ci/harness.sh installs. Idempotent: installs only what is missing. The
# tests start their own instances on 127.0.0.1 with configs of their own;
# no packaged service is started.
set -euo pipefail
cd "$(dirname "$0")/.."

need=()
command -v apache2 >/dev/null || [ -x /usr/sbin/apache2 ] || need+=(apache2)
[ -f /usr/share/tomcat10/bin/bootstrap.jar ] || need+=(tomcat10)
command -v lighttpd >/dev/null || [ -x /usr/sbin/lighttpd ] || need+=(lighttpd)
{ command -v varnishd >/dev/null || [ -x /usr/sbin/varnishd ]; } && command -v varnishncsa >/dev/null || need+=(varnish)
command -v squid >/dev/null || [ -x /usr/sbin/squid ] || need+=(squid)
if [ ${#need[@]} -gt 0 ]; then
  echo "grammar: installing ${need[*]}"
  # Keep Debian from starting the packaged services (Apache on 80, Tomcat
  # on 8080, lighttpd on 80, Varnish on 6081, squid on 3128) on install.
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d && chmod +x /usr/sbin/policy-rc.d
    trap 'rm -f /usr/sbin/policy-rc.d' EXIT
  fi
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}"
fi
