# Logs an order service's effects through Python's logging at
# logging.basicConfig()'s default format, to standard error: for each
# step of the plan (argv[1], JSON), the thing it made (named by the
# plan's noun, beside the order it belongs to) or replayed.
import json, logging, sys

logging.basicConfig(level=logging.INFO)
log = logging.getLogger("orders")
log.info("starting orders")
for s in json.loads(sys.argv[1]):
    if s["created"]:
        log.info("%s created %s_id=%s order_id=%s idempotency_key=%s", s["noun"], s["noun"], s["id"], s["parent"], s["key"])
    else:
        log.info("replaying stored response %s_id=%s idempotency_key=%s", s["noun"], s["id"], s["key"])
