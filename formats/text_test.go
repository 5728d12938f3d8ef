package formats_test

import (
	"strings"
	"testing"
	"time"

	"github.com/idem-cli/idem/formats"
	"github.com/idem-cli/idem/ingest"
	"github.com/idem-cli/idem/model"
)

func TestTextFormats(t *testing.T) {
	tests := []struct {
		name string
		line string
		want model.Observation
	}{
		{
			name: "apache common",
			line: `127.0.0.1 - frank [10/Oct/2000:13:55:36 -0700] "GET /apache_pb.gif HTTP/1.0" 200 2326`,
			want: model.Observation{Format: "combined", Tier: model.TierProxy, Method: "GET", Route: "/apache_pb.gif", Status: 200, Outcome: model.OutcomeOK,
				Client: "127.0.0.1", Time: time.Date(2000, 10, 10, 20, 55, 36, 0, time.UTC)},
		},
		{
			name: "combined with 499 and named extras",
			line: `195.2.252.67 - - [06/Jun/2016:03:40:53 -0400] "POST /xmlrpc.php HTTP/1.0" 499 0 "-" "Mozilla/4.0" rt=1.001 us="201" rid="r-1" key="k-1"`,
			want: model.Observation{Format: "combined", Tier: model.TierProxy, Method: "POST", Route: "/xmlrpc.php", UpstreamStatus: 201, Outcome: model.OutcomeClientClosed,
				Detail: "499 client closed request", Client: "195.2.252.67", RequestID: "r-1", Key: "k-1", Duration: 1001 * time.Millisecond, EndOrStart: true,
				Time: time.Date(2016, 6, 6, 7, 40, 51, 999000000, time.UTC)},
		},
		{
			name: "ingress-nginx default",
			line: `192.168.0.139 - - [27/Nov/2020:10:04:38 +0000] "GET /api/v2.0/projects?page=1&page_size=15 HTTP/2.0" 200 760 "https://x/" "Mozilla/5.0" 50 1.279 [app-harbor-core-80] [] 10.244.4.100:8080 760 1.279 200 e0726b2e0c22976ac8ccd04d52d7c83b`,
			want: model.Observation{Format: "ingress-nginx", Tier: model.TierProxy, Method: "GET", Route: "/api/v2.0/projects", Status: 200, UpstreamStatus: 200, Outcome: model.OutcomeOK,
				Client: "192.168.0.139", RequestID: "e0726b2e0c22976ac8ccd04d52d7c83b", Duration: 1279 * time.Millisecond, Labels: "upstream=app-harbor-core-80",
				Time: time.Date(2020, 11, 27, 10, 4, 36, 721000000, time.UTC)},
		},
		{
			// $request_length (301) is not the upstream status; the upstream
			// fields are lists when nginx tried two upstreams; $req_id is the
			// propagated X-Request-ID, a UUID.
			name: "ingress-nginx 499 with a retried upstream and a propagated request id",
			line: `10.1.2.3 - - [30/Nov/2026:09:14:04 +0000] "POST /v1/orders HTTP/1.1" 499 0 "-" "okhttp/4.12.0" 301 2.398 [shop-api-8080] [] 10.244.1.7:8080, 10.244.2.9:8080 0, 0 1.000, 1.397 502, 201 c9b2decb-ebc7-4a9b-99d6-69712772ef41`,
			want: model.Observation{Format: "ingress-nginx", Tier: model.TierProxy, Method: "POST", Route: "/v1/orders", UpstreamStatus: 201, Outcome: model.OutcomeClientClosed,
				Detail: "upstream_status 502, 201", UpstreamTries: 2, Client: "10.1.2.3", RequestID: "c9b2decb-ebc7-4a9b-99d6-69712772ef41", Duration: 2398 * time.Millisecond,
				Labels: "upstream=shop-api-8080", Time: time.Date(2026, 11, 30, 9, 14, 1, 602000000, time.UTC)},
		},
		{
			// The example of Envoy's docs (default format).
			name: "envoy default text access log",
			line: `[2016-04-15T20:17:00.310Z] "POST /api/v1/locations HTTP/2" 204 - 154 0 226 100 "10.0.35.28" "nsq2http" "cc21d9b0-cf5c-432b-8c7e-98aeb7988cd2" "locations" "tcp://10.0.2.1:80"`,
			want: model.Observation{Format: "envoy-text", Tier: model.TierProxy, Method: "POST", Route: "/api/v1/locations", Status: 204, Outcome: model.OutcomeOK,
				Client: "10.0.35.28", RequestID: "cc21d9b0-cf5c-432b-8c7e-98aeb7988cd2", Duration: 226 * time.Millisecond,
				Time: time.Date(2016, 4, 15, 20, 17, 0, 310000000, time.UTC)},
		},
		{
			// The example of Istio's docs (its default format): without a
			// forwarded-for, the client is the downstream address, its
			// port (the connection's) left out.
			name: "istio default text access log",
			line: `[2020-11-25T21:26:18.409Z] "GET /status/418 HTTP/1.1" 418 - via_upstream - "-" 0 135 4 4 "-" "curl/7.73.0-DEV" "84961386-6d84-929d-98bd-c5aee93b5c88" "httpbin:8000" "127.0.0.1:80" inbound|8000|| 127.0.0.1:41854 10.44.1.27:80 10.44.1.23:37652 outbound_.8000_._.httpbin.default.svc.cluster.local default`,
			want: model.Observation{Format: "envoy-text", Tier: model.TierProxy, Method: "GET", Route: "/status/418", Status: 418, Outcome: model.OutcomeOK,
				RequestID: "84961386-6d84-929d-98bd-c5aee93b5c88", Detail: "via_upstream", Duration: 4 * time.Millisecond, Client: "10.44.1.23",
				Time: time.Date(2020, 11, 25, 21, 26, 18, 409000000, time.UTC)},
		},
		{
			name: "istio: the client went away (DC)",
			line: `[2026-11-30T09:14:02.114Z] "POST /v1/orders HTTP/1.1" 0 DC downstream_remote_disconnect - "-" 312 0 2398 - "198.51.100.23" "okhttp/4.12.0" "c9b2decb-ebc7-4a9b-99d6-69712772ef41" "shop.example.com" "10.44.1.27:8080" outbound|8080||api.shop.svc.cluster.local 10.44.1.23:37652 10.44.1.27:8080 198.51.100.23:51544 - default`,
			want: model.Observation{Format: "envoy-text", Tier: model.TierProxy, Method: "POST", Route: "/v1/orders", Outcome: model.OutcomeClientClosed,
				Client: "198.51.100.23", RequestID: "c9b2decb-ebc7-4a9b-99d6-69712772ef41", Detail: "DC downstream_remote_disconnect", Duration: 2398 * time.Millisecond,
				Time: time.Date(2026, 11, 30, 9, 14, 2, 114000000, time.UTC)},
		},
		{
			// "$upstream_status" "$http_x_request_id" "$http_idempotency_key"
			// appended: no upstream answered the 499, so the first is "-".
			name: "combined 499 with a quoted - upstream status",
			line: `127.0.0.1 - - [01/Dec/2026:10:15:49 +0000] "POST /v1/orders HTTP/1.1" 499 0 "-" "idem-harness/1" 0.452 "-" "8c3463b0-2bed-4921-9ca1-93847ba2c635" "02150d0d-e15a-44c5-a835-e5e49425234d"`,
			want: model.Observation{Format: "combined", Tier: model.TierProxy, Method: "POST", Route: "/v1/orders", Outcome: model.OutcomeClientClosed,
				Detail: "499 client closed request", Client: "127.0.0.1", RequestID: "8c3463b0-2bed-4921-9ca1-93847ba2c635", Key: "02150d0d-e15a-44c5-a835-e5e49425234d",
				Duration: 452 * time.Millisecond, EndOrStart: true, Time: time.Date(2026, 12, 1, 10, 15, 48, 548000000, time.UTC)},
		},
		{
			name: "apache vhost_combined",
			line: `shop.example.com:443 203.0.113.9 - - [30/Nov/2026:09:14:04 +0000] "POST /v1/orders HTTP/1.1" 201 312 "-" "curl/8.5.0"`,
			want: model.Observation{Format: "combined", Tier: model.TierProxy, Method: "POST", Route: "/v1/orders", Status: 201, Outcome: model.OutcomeOK,
				Client: "203.0.113.9", Labels: "vhost=shop.example.com:443", Time: time.Date(2026, 11, 30, 9, 14, 4, 0, time.UTC)},
		},
		{
			name: "combined behind a logger's prefix (morgan through winston)",
			line: `info: [orders] ::ffff:10.0.0.7 - - [30/Nov/2026:09:14:04 +0000] "POST /v1/orders HTTP/1.1" 201 57 "-" "node-fetch/1.0"`,
			want: model.Observation{Format: "combined", Tier: model.TierProxy, Method: "POST", Route: "/v1/orders", Status: 201, Outcome: model.OutcomeOK,
				Client: "::ffff:10.0.0.7", Time: time.Date(2026, 11, 30, 9, 14, 4, 0, time.UTC)},
		},
		{
			name: "haproxy httplog, client gave up waiting for headers",
			line: `Feb  6 12:14:14 localhost haproxy[14389]: 10.0.1.2:33317 [06/Feb/2009:12:14:14.655] http-in static/srv1 10/0/30/-1/5000 -1 0 - - CH-- 1/1/1/1/0 0/0 {5d41402abc4b2a76b9719d911017c592|0b5d3c1e-5b7a-4d1e-9a63-2f1f3c9b8e41} {} "POST /pay HTTP/1.1"`,
			want: model.Observation{Format: "haproxy", Tier: model.TierProxy, Method: "POST", Route: "/pay", Outcome: model.OutcomeClientClosed, Detail: "CH--",
				Client: "10.0.1.2", RequestID: "5d41402abc4b2a76b9719d911017c592", Key: "0b5d3c1e-5b7a-4d1e-9a63-2f1f3c9b8e41", Duration: 5 * time.Second, Time: time.Date(2009, 2, 6, 12, 14, 14, 655000000, time.UTC)},
		},
		{
			name: "haproxy doc example",
			line: `haproxy[14389]: 10.0.1.2:33317 [06/Feb/2009:12:14:14.655] http-in static/srv1 10/0/30/69/109 200 2750 - - ---- 1/1/1/1/0 0/0 {1wt.eu} {} "GET /index.html HTTP/1.1"`,
			// {1wt.eu} is the captured Host header: never a request id.
			want: model.Observation{Format: "haproxy", Tier: model.TierProxy, Method: "GET", Route: "/index.html", Status: 200, UpstreamStatus: 200, Outcome: model.OutcomeOK, Detail: "----",
				Client: "10.0.1.2", Duration: 109 * time.Millisecond, Time: time.Date(2009, 2, 6, 12, 14, 14, 655000000, time.UTC)},
		},
		{
			// A capture of HAProxy 2.6 (retry-on all-retryable-errors,
			// option redispatch): app1 let the response time out, app2
			// answered; %rc +1 says the retry went to another server.
			name: "haproxy retried the request on another server",
			line: `127.0.0.1:60834 [02/Dec/2026:10:19:38.161] fe app/app2 0/1001/2/2/1005 201 133 - - ---- 1/1/0/0/+1 0/0 {08036dbc-7ce5-443f-ba5c-b15e8fe4783d|670e21f0-d58b-4320-b5f1-2c452dd8d927} "POST /v1/orders HTTP/1.1"`,
			want: model.Observation{Format: "haproxy", Tier: model.TierProxy, Method: "POST", Route: "/v1/orders", Status: 201, UpstreamStatus: 201, Outcome: model.OutcomeOK,
				Detail: "---- retries +1", UpstreamTries: 2, Client: "127.0.0.1", RequestID: "08036dbc-7ce5-443f-ba5c-b15e8fe4783d",
				Key: "670e21f0-d58b-4320-b5f1-2c452dd8d927", Duration: 1005 * time.Millisecond, Time: time.Date(2026, 12, 2, 10, 19, 38, 161000000, time.UTC)},
		},
		{
			// The server refused every connection: the retries never
			// reached it, and no tries are claimed.
			name: "haproxy retried connections the server refused",
			line: `127.0.0.1:41002 [02/Dec/2026:10:21:07.310] fe app/app2 0/0/-1/-1/2012 503 217 - - SC-- 1/1/0/0/+3 0/0 {5d41402abc4b2a76b9719d911017c592|0b5d3c1e-5b7a-4d1e-9a63-2f1f3c9b8e41} "POST /v1/orders HTTP/1.1"`,
			want: model.Observation{Format: "haproxy", Tier: model.TierProxy, Method: "POST", Route: "/v1/orders", Status: 503, Outcome: model.OutcomeNotDelivered,
				Detail: "SC-- retries +3", Client: "127.0.0.1", RequestID: "5d41402abc4b2a76b9719d911017c592", Key: "0b5d3c1e-5b7a-4d1e-9a63-2f1f3c9b8e41",
				Duration: 2012 * time.Millisecond, Time: time.Date(2026, 12, 2, 10, 21, 7, 310000000, time.UTC)},
		},
		{
			name: "haproxy captures Host and User-Agent before the request id",
			line: `haproxy[14389]: 10.0.1.2:33317 [30/Nov/2026:09:14:02.114] fe be/srv1 0/0/1/40/41 201 312 - - ---- 1/1/1/1/0 0/0 {shop.example.com|Mozilla/5.0 (X11; Linux x86_64)|c9b2decb-ebc7-4a9b-99d6-69712772ef41|0b5d3c1e-5b7a-4d1e-9a63-2f1f3c9b8e41} "POST /v1/orders HTTP/1.1"`,
			want: model.Observation{Format: "haproxy", Tier: model.TierProxy, Method: "POST", Route: "/v1/orders", Status: 201, UpstreamStatus: 201, Outcome: model.OutcomeOK, Detail: "----",
				Client: "10.0.1.2", RequestID: "c9b2decb-ebc7-4a9b-99d6-69712772ef41", Key: "0b5d3c1e-5b7a-4d1e-9a63-2f1f3c9b8e41",
				Duration: 41 * time.Millisecond, Time: time.Date(2026, 11, 30, 9, 14, 2, 114000000, time.UTC)},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Each line on its own, through the parser: what a file's first
			// line makes the reader do is ingest's concern.
			p := formats.NewParser(nil, nil)
			var res formats.Result
			p.Into(&res)
			p.Line([]byte(tt.line), model.Source{File: "-", Line: 1})
			if len(res.Obs) != 1 {
				t.Fatalf("%d observations, skipped %+v", len(res.Obs), res.Skips)
			}
			got := res.Obs[0]
			tt.want.Source = model.Source{File: "-", Line: 1}
			if !got.Time.Equal(tt.want.Time) {
				t.Errorf("time %s, want %s", got.Time, tt.want.Time)
			}
			got.Time, tt.want.Time = time.Time{}, time.Time{}
			if got != tt.want {
				t.Errorf("observation\n got: %+v\nwant: %+v", got, tt.want)
			}
		})
	}
}

func TestCustomPattern(t *testing.T) {
	cfg := &formats.Config{Patterns: []formats.PatternConfig{{Name: "legacy", Tier: "server",
		Regex: `^(?P<time>\S+) (?P<method>[A-Z]+) (?P<route>\S+) status=(?P<status>\d+) rid=(?P<request_id>\S+) key=(?P<key>\S+)$`}}}
	if err := cfg.Compile(); err != nil {
		t.Fatal(err)
	}
	obs, _ := readString(t, "legacy", "2026-11-30T10:00:00Z POST /v1/x status=201 rid=r-1 key=k-1\n", ingest.Options{Config: cfg})
	if len(obs) != 1 || obs[0].Format != "legacy" || obs[0].Tier != model.TierServer || obs[0].Key != "k-1" || obs[0].Status != 201 {
		t.Fatalf("custom pattern: %+v", obs)
	}
	for _, bad := range []formats.PatternConfig{{Regex: `(`}, {Regex: `(?P<nope>x)`}, {Regex: `no groups`}, {Regex: `(?P<key>x)`, Tier: "galaxy"}} {
		c := &formats.Config{Patterns: []formats.PatternConfig{bad}}
		if err := c.Compile(); err == nil {
			t.Errorf("pattern %+v accepted", bad)
		}
	}
}

func TestLabelsChooseTheTier(t *testing.T) {
	line := `{"time":"2026-11-30T10:00:00Z","level":"INFO","msg":"charge sent","request_id":"r-1","idempotency_key":"k","result_id":"ch_1"}`
	wrap := func(app string) string {
		return `{"labels":{"app":"` + app + `"},"line":` + quoteJSON(line) + `,"timestamp":"2026-11-30T10:00:00Z"}` + "\n"
	}
	for app, want := range map[string]model.Tier{"payments-worker": model.TierWorker, "ingress-nginx": model.TierProxy, "orders-api": model.TierServer, "psp-provider": model.TierProvider} {
		obs, _ := readString(t, app, wrap(app), ingest.Options{})
		if len(obs) != 1 || obs[0].Tier != want || !strings.Contains(obs[0].Labels, "app="+app) {
			t.Errorf("app=%s: %+v, want tier %s", app, obs, want)
		}
	}
	cfg := &formats.Config{Tiers: map[string]string{"orders-api": "worker"}}
	if err := cfg.Compile(); err != nil {
		t.Fatal(err)
	}
	if obs, _ := readString(t, "cfg", wrap("orders-api"), ingest.Options{Config: cfg}); obs[0].Tier != model.TierWorker {
		t.Errorf("the config's tiers did not apply: %s", obs[0].Tier)
	}
	// A canonical line says its own tier; labels do not override it.
	canon := `{"labels":{"app":"ingress-nginx"},"line":` + quoteJSON(`{"time":"2026-11-30T10:00:00Z","tier":"provider","request_id":"r","event":"effect","result_id":"x"}`) + `}` + "\n"
	if obs, _ := readString(t, "canon", canon, ingest.Options{}); obs[0].Tier != model.TierProvider {
		t.Errorf("labels overrode a canonical tier: %s", obs[0].Tier)
	}
	// Text an application printed inside an envelope is not a bad line.
	text := `{"labels":{"app":"orders-api"},"line":"server listening on :8080"}` + "\n"
	if _, in := readString(t, "text", text, ingest.Options{}); in.Skipped != 0 || in.Ignored != 1 {
		t.Errorf("plain text in an envelope: skipped %d ignored %d", in.Skipped, in.Ignored)
	}
}

func quoteJSON(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"', '\\':
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	b.WriteByte('"')
	return b.String()
}

func FuzzParseText(f *testing.F) {
	f.Add(`127.0.0.1 - - [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.0" 200 2326 "-" "x" 0.5 "201" "r" "k"`)
	f.Add(`haproxy[1]: 10.0.1.2:33317 [06/Feb/2009:12:14:14.655] a b/c 1/2/3/4/5 200 1 - - ---- 1/1/1/1/0 0/0 {a|b} "GET / HTTP/1.1"`)
	f.Add(`127.0.0.1:1 [02/Dec/2026:10:19:38.161] fe app/app2 0/1001/2/2/1005 201 133 - - ---- 1/1/0/0/+1 0/0 {a|b} "POST /v1/orders HTTP/1.1"`)
	f.Add(`[pod/x/y] 2026-11-30T10:00:00Z {"a":1}`)
	f.Add(`https 2026-11-30T09:14:04.520000Z app/shop/50dc 203.0.113.7:51234 10.0.2.15:8080 0.000 -1 -1 502 - 412 293 "POST https://s:443/v1/orders HTTP/1.1" "M" - - arn "Root=1-6746d3c4-0f1e2d3c4b5a69788796a5b4" "s" "c" 1 2026-11-30T09:14:02.120000Z "forward" "-" "-"`)
	f.Add(`[2016-04-15T20:17:00.310Z] "POST /api/v1/locations HTTP/2" 204 - 154 0 226 100 "10.0.35.28" "nsq2http" "cc21d9b0" "locations" "tcp://10.0.2.1:80"`)
	f.Add(`10.1.2.3 - - [30/Nov/2026:09:14:04 +0000] "POST /v1/orders HTTP/1.1" 499 0 "-" "ok" 301 2.398 [a-8080] [] 10.0.0.1:8080, 10.0.0.2:8080 0, 0 1.0, 1.3 502, 201 c9b2decb`)
	f.Add("\x1b[36mcaddy-1  | \x1b[0m{\"level\":\"info\"}")
	f.Fuzz(func(t *testing.T, line string) {
		p := formats.NewParser(nil, nil)
		var res formats.Result
		p.Into(&res)
		p.Line([]byte(line), model.Source{File: "f", Line: 1})
	})
}

// TestHAProxyCapturesByConfiguredOrder reads captures by the names a
// source's config gives them, so a short id is read and a Host is not.
func TestHAProxyCapturesByConfiguredOrder(t *testing.T) {
	cfg := &formats.Config{Sources: []formats.SourceConfig{{Path: "*", Captures: []string{"Host", "Idempotency-Key", "X-Request-Id"}}}}
	if err := cfg.Compile(); err != nil {
		t.Fatal(err)
	}
	line := `haproxy[1]: 10.0.1.2:33317 [30/Nov/2026:09:14:02.114] fe be/srv1 0/0/1/40/41 201 312 - - ---- 1/1/1/1/0 0/0 {shop.example.com|k-1|r-1} "POST /v1/orders HTTP/1.1"` + "\n"
	obs, _ := readString(t, "captures", line, ingest.Options{Config: cfg})
	if len(obs) != 1 || obs[0].RequestID != "r-1" || obs[0].Key != "k-1" {
		t.Fatalf("captures read as request id %q, key %q; want r-1, k-1", obs[0].RequestID, obs[0].Key)
	}
	obs, _ = readString(t, "no config", line, ingest.Options{})
	if obs[0].RequestID != "" || obs[0].Key != "" {
		t.Errorf("without the capture order, short values were taken for ids: %q %q", obs[0].RequestID, obs[0].Key)
	}
}

// TestComposePrefixIsUnwrapped reads docker compose logs lines: the
// prefix and its colours removed, the service kept as a label that names
// the tier.
func TestComposePrefixIsUnwrapped(t *testing.T) {
	lines := "\x1b[36mcaddy-1  | \x1b[0m" + `{"level":"info","ts":1764494042.5,"logger":"http.log.access.log0","msg":"handled request","request":{"remote_ip":"172.18.0.1","client_ip":"172.18.0.1","proto":"HTTP/1.1","method":"POST","host":"localhost","uri":"/v1/orders","headers":{"X-Request-Id":["c9b2decb-ebc7-4a9b-99d6-69712772ef41"],"Idempotency-Key":["0b5d3c1e-5b7a-4d1e-9a63-2f1f3c9b8e41"]}},"duration":0.25,"size":57,"status":201,"resp_headers":{}}` + "\n" +
		`api-1    | 10.0.0.7 - - [30/Nov/2026:09:14:04 +0000] "POST /v1/orders HTTP/1.1" 201 57 "-" "curl/8.5.0"` + "\n" +
		"INFO | started\n"
	obs, in := readString(t, "compose", lines, ingest.Options{})
	if len(obs) != 2 || in.Skipped != 1 {
		t.Fatalf("%d observations, %d skipped (%v); want 2 and the bare INFO line skipped", len(obs), in.Skipped, in.SkipSamples)
	}
	if o := obs[0]; o.Format != "caddy" || o.RequestID != "c9b2decb-ebc7-4a9b-99d6-69712772ef41" || o.Status != 201 || !strings.Contains(o.Labels, "service=caddy") {
		t.Errorf("caddy line: %+v", o)
	}
	if o := obs[1]; o.Format != "combined" || o.Route != "/v1/orders" || !strings.Contains(o.Labels, "service=api") {
		t.Errorf("api line: %+v", o)
	}
}
