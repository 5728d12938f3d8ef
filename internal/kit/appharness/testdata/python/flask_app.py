"""An order service on Flask under gunicorn, logging JSON with
python-json-logger, for idem's capture harness.

gunicorn --bind 127.0.0.1:PORT flask_app:app, with IDEM_LOG, IDEM_LEDGER
and IDEM_NAME in the environment. The service keeps an Idempotency-Key
store: it replays a retry and answers 422 to the same key with another
payload, before any effect. It logs through the standard library's
logging, the request's fields as extra; the request line is written in
after_request. Every line is python-json-logger's
JsonFormatter("%(asctime)s %(levelname)s %(name)s %(message)s"), or, with
IDEM_FORMATTER=structlog, structlog's stdlib bridge: ProcessorFormatter
with ExtraAdder, add_log_level, add_logger_name, TimeStamper(fmt="iso")
and JSONRenderer.
"""

import hashlib
import json
import logging
import os
import threading
import time

from flask import Flask, g, jsonify, request

handler = logging.FileHandler(os.environ["IDEM_LOG"])
if os.environ.get("IDEM_FORMATTER") == "structlog":
    import structlog

    handler.setFormatter(
        structlog.stdlib.ProcessorFormatter(
            foreign_pre_chain=[
                structlog.stdlib.ExtraAdder(),
                structlog.stdlib.add_log_level,
                structlog.stdlib.add_logger_name,
                structlog.processors.TimeStamper(fmt="iso"),
            ],
            processors=[structlog.stdlib.ProcessorFormatter.remove_processors_meta, structlog.processors.JSONRenderer()],
        )
    )
else:
    from pythonjsonlogger import jsonlogger

    handler.setFormatter(jsonlogger.JsonFormatter("%(asctime)s %(levelname)s %(name)s %(message)s"))
log = logging.getLogger("orders")
log.addHandler(handler)
log.setLevel(logging.INFO)
log.propagate = False

LEDGER = os.environ["IDEM_LEDGER"]
PREFIX = "ord_" + os.environ["IDEM_NAME"].replace("-", "_")
lock = threading.Lock()
by_key = {}
count = [0]
app = Flask(__name__)


def fingerprint(body):
    canonical = json.dumps(body, sort_keys=True, separators=(",", ":"))
    return "sha256:" + hashlib.sha256(canonical.encode()).hexdigest()


@app.before_request
def started():
    g.start = time.monotonic()


@app.after_request
def finished(response):
    log.info(
        "request finished",
        extra={
            "request_id": request.headers.get("X-Request-Id", ""),
            "method": request.method,
            "path": request.path,
            "status": response.status_code,
            "duration_ms": round((time.monotonic() - g.start) * 1000, 3),
            "idempotency_key": request.headers.get("Idempotency-Key") or None,
        },
    )
    return response


@app.post("/v1/orders")
def place():
    time.sleep(int(request.headers.get("X-Harness-Delay-Ms") or 0) / 1000)
    rid = request.headers.get("X-Request-Id", "")
    key = request.headers.get("Idempotency-Key", "")
    fp = fingerprint(request.get_json(force=True))
    fields = {"request_id": rid, "idempotency_key": key or None, "fingerprint": fp}
    with lock:
        seen = by_key.get(key) if key else None
        if seen and seen[0] != fp:
            status, order, created = 422, "", False
        elif seen:
            status, order, created = 201, seen[1], False
        else:
            count[0] += 1
            status, order, created = 201, f"{PREFIX}_{count[0]}", True
            if key:
                by_key[key] = (fp, order)
    if status == 422:
        log.warning("idempotency key reused with another payload", extra=fields)
        response = jsonify(error="payload mismatch")
    elif created:
        log.info("order created", extra={**fields, "order_id": order})
        response = jsonify(order_id=order)
    else:
        log.info("order replayed", extra={**fields, "order_id": order, "decision": "replay"})
        response = jsonify(order_id=order)
        response.headers["Idempotent-Replayed"] = "true"
    response.status_code = status
    step = request.headers.get("X-Harness-Step")
    done = {"step": step, "request_id": rid, "key": key, "order_id": order, "created": created, "status": status}

    def record():
        with open(LEDGER, "a", encoding="utf-8") as f:
            f.write(json.dumps(done) + "\n")

    response.call_on_close(record)
    return response
