# Logs an order service's effects through Python's logging at
# logging.basicConfig()'s default format, to standard error: for each
# step of the plan (argv[1], JSON), the order it made or replayed.
import json, logging, sys

logging.basicConfig(level=logging.INFO)
log = logging.getLogger("orders")
log.info("starting orders")
for s in json.loads(sys.argv[1]):
    if s["created"]:
        log.info("order created order_id=%s idempotency_key=%s", s["order_id"], s["key"])
    else:
        log.info("replaying stored response order_id=%s idempotency_key=%s", s["order_id"], s["key"])
