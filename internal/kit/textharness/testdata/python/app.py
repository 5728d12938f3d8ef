"""The uvicorn capture's service: a bare ASGI order service (no
framework), so that the only lines are uvicorn's own access lines. A key
seen before is answered with its first order (200, Idempotent-Replayed).
"""
import json

orders = {}


async def app(scope, receive, send):
    if scope["type"] != "http":
        return
    body = b""
    while True:
        msg = await receive()
        body += msg.get("body", b"")
        if not msg.get("more_body"):
            break
    headers = {k.decode().lower(): v.decode() for k, v in scope["headers"]}
    method, path = scope["method"], scope["path"]
    extra = []
    if method == "POST" and path == "/v1/orders":
        key = headers.get("idempotency-key", "")
        if not key:
            status, out = 400, {"error": "Idempotency-Key required"}
        elif key in orders:
            status, out = 200, {"id": orders[key]}
            extra = [(b"idempotent-replayed", b"true")]
        else:
            orders[key] = "ord_%d" % (len(orders) + 1)
            status, out = 201, {"id": orders[key]}
    elif method == "GET" and path.startswith("/v1/orders/") and path[len("/v1/orders/"):] in orders.values():
        status, out = 200, {"id": path[len("/v1/orders/"):]}
    else:
        status, out = 404, {"error": "not found"}
    payload = json.dumps(out).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(payload)).encode())] + extra})
    await send({"type": "http.response.body", "body": payload})
