# payments.awk writes a second benchmark workload, independently of
# loggen: a payments API's nginx access log in the layout of Grafana's
# public play site (the request line and $time_local rather than
# $request_method and $time_iso8601, ", " between members, thirty-odd
# variables, the client's address in X-Forwarded-For), with another mix of
# faults than loggen's: 3.5% of intents go wrong, in six ways (a million
# intents give a JSON report of about 55 MB); -v faults=3 makes it one in
# ten. With -v truth=FILE it also writes what it did to each intent that
# went wrong, a line each: the way (lost-same-key, gateway-timeout,
# lost-new-key, key-reused, double-click, upstream-failed), the key, for
# lost-new-key the retry's new key, and for key-reused the milliseconds
# from the first request's start to the second's.
#
#   awk -v intents=1000000 -v seed=2 -f internal/tools/loggen/payments.awk > payments-1m.jsonl
#
# Lines come out in the order nginx writes them, at each request's end:
# a retry's line waits in a per-millisecond bucket until its time.
BEGIN {
  if (intents == "") intents = 1000
  if (seed == "") seed = 2
  if (faults == "") faults = 1
  # The share of intents that go each way, cumulated: lost then retried
  # with the key, a gateway timeout, lost then retried under a new key, a
  # key reused, a double click, an upstream failure.
  split("0.015 0.022 0.027 0.030 0.033 0.035", edge, " ")
  for (k = 1; k <= 6; k++) edge[k] *= faults
  srand(seed)
  base = 1796083200 # 2026-12-01T00:00:00Z
  split("Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36|" \
    "payments-android/3.18.0 (Pixel 8; Android 15)|okhttp/4.12.0|python-requests/2.32.3|Stripe/v1 RubyBindings/13.2.0|" \
    "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148", ua, "|")
  nua = 6
  split("Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec", mon, " ")
  now = 0     # microseconds since base
  flushed = -1 # the last millisecond bucket written
  for (i = 0; i < intents; i++) {
    now += int(-log(1 - rand()) * 1000) + 1
    flush(int(now / 1000))
    key = uuid(); client = ip()
    r = rand()
    if (r < edge[1]) { # the response is lost; the client retries with the same key and gets the stored answer
      said("lost-same-key", key)
      emit(now, "POST", "/v1/payments", 499, "201", 10.0, key, client)
      later(now + 10000000 + int(rand() * 3000000), "POST", "/v1/payments", 200, "200", 0.012, key, client)
    } else if (r < edge[2]) { # the gateway times out on the upstream, which committed; same-key retry
      said("gateway-timeout", key)
      emit(now, "POST", "/v1/payments", 504, "504", 60.0, key, client)
      later(now + 60000000 + int(rand() * 5000000), "POST", "/v1/payments", 200, "200", 0.015, key, client)
    } else if (r < edge[3]) { # lost, and retried under a new key: a second charge
      emit(now, "POST", "/v1/payments", 499, "201", 10.0, key, client)
      t = now + 10000000 + int(rand() * 3000000); key2 = uuid() # in the order the arguments were drawn before
      said("lost-new-key", key " " key2)
      later(t, "POST", "/v1/payments", 201, "201", 0.210, key2, client)
    } else if (r < edge[4]) { # the key reused for another payment
      emit(now, "POST", "/v1/payments", 201, "201", 0.180, key, client)
      t = now + 30000000 + int(rand() * 60000000)
      said("key-reused", key " " int((t - 8000 - (now - 180000)) / 1000))
      later(t, "POST", "/v1/payments", 422, "422", 0.008, key, client)
    } else if (r < edge[5]) { # a double click: the second request while the first runs
      said("double-click", key)
      d = int(rand() * 80000) + 5000
      later(now + d + 9000, "POST", "/v1/payments", 409, "409", 0.009, key, client)
      later(now + 250000, "POST", "/v1/payments", 201, "201", 0.250, key, client)
    } else if (r < edge[6]) { # the upstream fails before committing; same-key retry
      said("upstream-failed", key)
      emit(now, "POST", "/v1/payments", 502, "502", 0.004, key, client)
      later(now + 1000000 + int(rand() * 1000000), "POST", "/v1/payments", 201, "201", 0.190, key, client)
    } else {
      emit(now, "POST", "/v1/payments", 201, "201", 0.150 + rand() * 0.2, key, client)
    }
    if (rand() < 0.3) later(now + 400000 + int(rand() * 2000000), "GET", "/v1/payments/pay_" hex(6), 200, "200", 0.006, "", client)
    if (rand() < 0.05) emit(now, "GET", "/healthz", 200, "200", 0.001, "", "10.0.0." (1 + int(rand() * 3)))
  }
  flush(int(now / 1000) + 200000)
}

# said notes in the truth file, when there is one, what an intent was made to show.
function said(way, keys) { if (truth != "") print way, keys > truth }

function hex(n,   s, j) { for (j = 0; j < n; j++) s = s sprintf("%04x", int(rand() * 65536)); return s }
function uuid() { return hex(2) "-" hex(1) "-4" substr(hex(1), 2) "-a" substr(hex(1), 2) "-" hex(3) }
function ip() { return (11 + int(rand() * 200)) "." int(rand() * 256) "." int(rand() * 256) "." (1 + int(rand() * 254)) }

# later holds a line until the millisecond its request ends.
function later(t, method, uri, status, up, rt, key, client,   b) {
  b = int(t / 1000)
  if (b <= flushed) b = flushed + 1
  pending[b] = pending[b] line(t, method, uri, status, up, rt, key, client) "\n"
}

function emit(t, method, uri, status, up, rt, key, client) {
  printf "%s\n", line(t, method, uri, status, up, rt, key, client)
}

function flush(upto,   b) {
  for (b = flushed + 1; b <= upto; b++) if (b in pending) { printf "%s", pending[b]; delete pending[b] }
  if (upto > flushed) flushed = upto
}

function line(t, method, uri, status, up, rt, key, client,   s, secs, h, m, body, len) {
  secs = int(t / 1000000)
  h = int(secs / 3600); m = int(secs / 60) % 60
  body = (method == "POST") ? 180 + int(rand() * 120) : 0
  len = (status == 200 || status == 201) ? 300 + int(rand() * 400) : 90
  s = sprintf("{\"msec\": \"%.3f\", \"connection\": \"%d\", \"connection_requests\": \"%d\", \"pid\": \"%d\", \"request_id\": \"%s\", ",
    base + t / 1000000, 81000000 + int(rand() * 999999), 1 + int(rand() * 9), 20 + int(rand() * 8), hex(8))
  s = s sprintf("\"request_length\": \"%d\", \"remote_addr\": \"%s\", \"remote_user\": \"\", \"time_local\": \"%02d/Dec/2026:%02d:%02d:%02d +0000\", ",
    body + 420, client, 1 + int(h / 24), h % 24, m, secs % 60)
  s = s sprintf("\"request\": \"%s %s HTTP/1.1\", \"request_uri\": \"%s\", \"args\": \"\", \"status\": \"%d\", \"body_bytes_sent\": \"%d\", \"bytes_sent\": \"%d\", ",
    method, uri, uri, status, len, len + 240)
  s = s sprintf("\"http_referer\": \"\", \"http_user_agent\": \"%s\", \"http_x_forwarded_for\": \"%s\", \"http_host\": \"api.pay.example\", ",
    ua[1 + int(rand() * nua)], client)
  s = s sprintf("\"request_time\": \"%.3f\", \"upstream\": \"10.1.%d.%d:8443\", \"upstream_connect_time\": \"0.001\", \"upstream_status\": \"%s\", \"upstream_response_time\": \"%.3f\", ",
    rt, int(rand() * 4), 10 + int(rand() * 20), up, (status == 499) ? rt - 0.002 : rt * 0.97)
  s = s sprintf("\"http_idempotency_key\": \"%s\", \"scheme\": \"https\", \"request_method\": \"%s\", \"server_protocol\": \"HTTP/1.1\", \"ssl_protocol\": \"TLSv1.3\", \"geoip_country_code\": \"%s\"}",
    key == "" ? "" : key, method, (rand() < 0.7) ? "US" : "DE")
  return s
}
