#!/usr/bin/env bash
# Installs what internal/kit/serverharness's capture tests run: express,
# express-idempotency, @node-idempotency/core and its memory adapter, pino
# and pino-http from the committed lock file (nginx comes from
# .ci/harness.sh). The tests start the apps and nginx themselves on
# 127.0.0.1.
exec bash "$(dirname "$0")/npm-ci.sh" internal/kit/serverharness/testdata/node
