"""An order service logging with structlog's JSONRenderer, for idem's
capture harness. Usage: python3 server.py LOG LEDGER

Access and effect lines carry the propagated X-Request-Id (a new uuid4 hex
when there is none), bound with structlog.contextvars. Prints
"listening PORT" once it serves 127.0.0.1.
"""

import json
import sys
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import structlog

log_path, ledger_path = sys.argv[1], sys.argv[2]
log_file = open(log_path, "a", buffering=1, encoding="utf-8")
structlog.configure(
    processors=[
        structlog.contextvars.merge_contextvars,
        structlog.processors.add_log_level,
        structlog.processors.TimeStamper(fmt="iso"),
        structlog.processors.JSONRenderer(),
    ],
    logger_factory=structlog.PrintLoggerFactory(file=log_file),
)
log = structlog.get_logger()
lock = threading.Lock()
orders = {}
count = [0]


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass  # structlog writes the access line

    def do_POST(self):
        start = time.monotonic()
        structlog.contextvars.clear_contextvars()
        rid = self.headers.get("X-Request-Id") or uuid.uuid4().hex
        structlog.contextvars.bind_contextvars(request_id=rid)
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        if self.path != "/v1/orders":
            self.send_response(404)
            self.end_headers()
            return
        time.sleep(int(self.headers.get("X-Harness-Delay-Ms") or 0) / 1000)
        key = self.headers.get("Idempotency-Key") or ""
        with lock:
            oid = orders.get(key) if key else None
            created = oid is None
            if created:
                count[0] += 1
                oid = "ord_structlog_%d" % count[0]
                if key:
                    orders[key] = oid
        if created:
            log.info("order created", order_id=oid, idempotency_key=key or None)
        else:
            log.info("order replayed", order_id=oid, idempotency_key=key, decision="replay")
        body = json.dumps({"order_id": oid}).encode()
        try:
            self.send_response(201)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.send_header("X-Request-Id", rid)
            if not created:
                self.send_header("Idempotent-Replayed", "true")
            self.end_headers()
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up; the order stands
        log.info("request", method="POST", path=self.path, status=201,
                 duration_ms=round((time.monotonic() - start) * 1000, 3))
        done = {"step": self.headers.get("X-Harness-Step"), "request_id": rid, "key": key,
                "order_id": oid, "created": created, "status": 201}
        with lock, open(ledger_path, "a", encoding="utf-8") as f:
            f.write(json.dumps(done) + "\n")


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print("listening %d" % server.server_address[1], flush=True)
server.serve_forever()
