#!/usr/bin/env bash
# Installs the third-party Idempotency-Key servers the replay tests run
# against (express, express-idempotency, @node-idempotency/core) from the
# committed package-lock.json. The tests start each server themselves on
# 127.0.0.1.
exec bash "$(dirname "$0")/npm-ci.sh" replay/testdata/servers
