#!/usr/bin/env bash
# Installs what internal/kit/sdkharness's capture tests run: the client SDKs
# (openai, stripe, @aws-sdk/client-dynamodb) and the express app's
# packages (express, express-idempotency, pino, pino-http) from the
# committed lock file (nginx comes from .ci/harness.sh). The tests start
# the app, nginx and each SDK's script themselves on 127.0.0.1.
exec bash "$(dirname "$0")/npm-ci.sh" internal/kit/sdkharness/testdata/node
