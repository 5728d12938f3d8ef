"""The client of the chi capture: Python requests with urllib3's Retry
retrying a 503 on its own, logging what urllib3 logs at DEBUG through
logging.basicConfig (its default layout, on standard error).

usage: client.py BASE STEPS_JSON; prints what each step ended with.
"""
import json
import logging
import sys

import requests
from requests.adapters import HTTPAdapter
from urllib3.util.retry import Retry

logging.basicConfig(level=logging.DEBUG)

base, steps = sys.argv[1], json.loads(sys.argv[2])
session = requests.Session()
# allowed_methods=None: urllib3 retries a POST too (it does not by default).
retry = Retry(total=2, status_forcelist=[503], allowed_methods=None, backoff_factor=0, raise_on_status=False)
session.mount("http://", HTTPAdapter(max_retries=retry))
out = []
for step in steps:
    headers = {"X-Harness-Step": step["step"]}
    if step.get("key"):
        headers["Idempotency-Key"] = step["key"]
    r = session.request(step["method"], base + step["path"], headers=headers, data=step.get("body") or None, timeout=10)
    out.append({"step": step["step"], "status": r.status_code})
print(json.dumps(out))
