package formats

import (
	"strings"
	"time"

	"github.com/idem-cli/idem/formats/grammar"
	"github.com/idem-cli/idem/model"
)

// Envoy's and Istio's JSON access logs.
var envoyFormat = &format{
	Name: "envoy", Aliases: []string{"istio"}, Kind: kindJSON, Tier: model.TierProxy,
	Doc:   "Envoy / Istio JSON access logs (response_flags)",
	Setup: "json_format with \"request_id\": \"%REQ(X-REQUEST-ID)%\", \"idempotency_key\": \"%REQ(IDEMPOTENCY-KEY)%\", \"response_flags\": \"%RESPONSE_FLAGS%\", \"start_time\": \"%START_TIME%\", \"duration\": \"%DURATION%\" beside the method, path and code.",
	match: func(r *record) bool {
		return r.has("response_flags") || r.has("response_code") && r.hasAny("upstream_host", "start_time", "upstream_cluster")
	},
	extract: extractEnvoy,
	// start_time is when the request started, duration is milliseconds;
	// code 0 with DC: the client went away before any response.
	Samples: []sample{{
		Origin: "an Istio sidecar's JSON access log in a public blog on access log cases (ssup2.github.io), as in fixtures/formats/envoy.jsonl",
		Line: `{"start_time":"2025-12-14T15:31:56.209Z","method":"GET","path":"/delay/10000","protocol":"HTTP/1.1","response_code":"0","response_flags":"DC",` +
			`"response_code_details":"downstream_remote_disconnect","connection_termination_details":"-","upstream_transport_failure_reason":"-",` +
			`"bytes_received":"0","bytes_sent":"0","duration":"1870","upstream_service_time":"-","x_forwarded_for":"-","user_agent":"curl/8.14.1",` +
			`"request_id":"c9b2decb-ebc7-9ab4-99d6-69712772ef41","authority":"mock-server:8080","upstream_host":"10.244.1.4:8080"}`,
		Want: model.Observation{Tier: model.TierProxy, Format: "envoy", Method: "GET", Route: "/delay/10000",
			Outcome: model.OutcomeClientClosed, RequestID: "c9b2decb-ebc7-9ab4-99d6-69712772ef41",
			Time: mustTime("2025-12-14T15:31:56.209Z"), Duration: 1_870_000_000},
	}, {
		Origin: "an Istio upstream timeout (504 UT response_timeout) quoted publicly, keyed as Istio's JSON in fixtures/formats/envoy.jsonl",
		Line: `{"start_time":"2025-05-15T20:00:21.626Z","method":"GET","path":"/items","protocol":"HTTP/1.1","response_code":"504","response_flags":"UT",` +
			`"response_code_details":"response_timeout","bytes_received":"0","bytes_sent":"24","duration":"501","upstream_service_time":"-",` +
			`"x_forwarded_for":"172.18.0.1","user_agent":"curl/8.7.1","request_id":"cb846eff-07ac-902e-9890-7af478c84166",` +
			`"authority":"catalog.istioinaction.io:30000","upstream_host":"10.10.0.13:3000"}`,
		Want: model.Observation{Tier: model.TierProxy, Format: "envoy", Method: "GET", Route: "/items", Status: 504,
			Outcome: model.OutcomeUpstreamTimeout, RequestID: "cb846eff-07ac-902e-9890-7af478c84166", Client: "172.18.0.1",
			Time: mustTime("2025-05-15T20:00:21.626Z"), Duration: 501_000_000},
	}, {
		Origin: "an Istio ingress gateway's typed JSON line in a public write-up on 503 UC resets during uploads",
		Line: `{"duration":1441,"response_code_details":"upstream_reset_before_response_started{connection_termination}","response_flags":"UC","protocol":"HTTP/2",` +
			`"user_agent":"curl/7.58.0","route_name":null,"request_id":"d0784d05-2b65-4121-b309-a28fe69c91b0","upstream_service_time":null,` +
			`"connection_termination_details":null,"upstream_transport_failure_reason":null,"path":"/chang/reproduce503/round1/random300M_1","method":"PUT",` +
			`"response_code":503,"bytes_received":268435456,"bytes_sent":95,"start_time":"2021-12-07T08:37:28.358Z"}`,
		Want: model.Observation{Tier: model.TierProxy, Format: "envoy", Method: "PUT", Route: "/chang/reproduce503/round1/random300M_1", Status: 503,
			Outcome: model.OutcomeUpstreamReset, RequestID: "d0784d05-2b65-4121-b309-a28fe69c91b0",
			Time: mustTime("2021-12-07T08:37:28.358Z"), Duration: 1_441_000_000},
	}},
}

func extractEnvoy(p *Parser, r *record, o *model.Observation) bool {
	o.Time, _ = model.ParseTime(r.str("start_time", "START_TIME", "timestamp"))
	o.Duration, _ = model.ParseDuration(r.str("duration", "DURATION"), model.Milliseconds)
	o.Method = httpMethod(r.str("method", "request_method"))
	o.Route = routePath(r.str("path", "x_envoy_original_path"))
	o.RequestID = r.str("request_id", "x_request_id")
	o.Key = model.NormalizeKey(r.str("idempotency_key", "x_idempotency_key", "idempotency-key", "request_idempotency_key"))
	o.Client = r.str("x_forwarded_for", "downstream_remote_address")
	o.Status, _ = intValue(r.str("response_code"))
	flags := r.str("response_flags")
	o.Detail = strings.TrimSpace(flags + " " + r.str("response_code_details"))
	o.Outcome = envoyOutcome(o.Status, flags)
	if o.Outcome == model.OutcomeClientClosed && o.Status != 0 && o.Status < 300 {
		// "200 DC": the response started, then the client went away.
		o.Outcome = model.OutcomeClientClosed
	}
	return o.Method != "" || o.RequestID != ""
}

// envoyOutcome reads Envoy's response flags (several may be joined by ",").
func envoyOutcome(status int, flags string) model.Outcome {
	for _, f := range strings.Split(flags, ",") {
		switch strings.TrimSpace(f) {
		case "DC", "DR", "DownstreamConnectionTermination", "DownstreamRemoteReset":
			return model.OutcomeClientClosed
		case "UT", "UMSDR", "SI", "UpstreamRequestTimeout", "UpstreamMaxStreamDurationReached", "StreamIdleTimeout":
			return model.OutcomeUpstreamTimeout
		case "UC", "UR", "LR", "UpstreamConnectionTermination", "UpstreamRemoteReset", "LocalReset":
			return model.OutcomeUpstreamReset
		case "UF", "UH", "UO", "NR", "NC", "UpstreamConnectionFailure", "NoHealthyUpstream", "UpstreamOverflow", "NoRouteFound", "NoClusterFound":
			return model.OutcomeNotDelivered
		}
	}
	if status == 0 {
		return model.OutcomeClientClosed
	}
	return proxyOutcome(status)
}

// envoyTextFormat is Envoy's default text access log, and Istio's, which
// most Istio users have (it adds the response code details, the
// connection termination details and the upstream transport failure
// reason after the flags, and the upstream cluster and addresses at the
// end). Its lines are read by those format strings compiled by the
// grammar (envoyTextLayouts): what each operator means is the grammar's
// (grammar/envoy.go: %START_TIME% the start, %DURATION% milliseconds,
// the flags' outcomes as in the JSON access log).
var envoyTextFormat = &format{
	Name: "envoy-text", Aliases: []string{"istio-text"}, Kind: kindText, Tier: model.TierProxy,
	Doc:   "Envoy / Istio default text access logs, read by their stock formats",
	Setup: "Envoy logs %REQ(X-REQUEST-ID)% by default; add \"%REQ(IDEMPOTENCY-KEY)%\" at the end of the format to log the key.",
	text:  readEnvoyText,
	Samples: []sample{{
		Origin: "Envoy documentation, Access logging: the default format's example",
		Line: `[2016-04-15T20:17:00.310Z] "POST /api/v1/locations HTTP/2" 204 - 154 0 226 100 "10.0.35.28" "nsq2http" ` +
			`"cc21d9b0-cf5c-432b-8c7e-98aeb7988cd2" "locations" "tcp://10.0.2.1:80"`,
		Want: model.Observation{Tier: model.TierProxy, Format: "envoy-text", Method: "POST", Route: "/api/v1/locations", Status: 204,
			Outcome: model.OutcomeOK, Client: "10.0.35.28", RequestID: "cc21d9b0-cf5c-432b-8c7e-98aeb7988cd2",
			Time: mustTime("2016-04-15T20:17:00.310Z"), Duration: 226 * time.Millisecond},
	}, {
		Origin: "Istio documentation, Envoy Access Logs (its default text format)",
		Line: `[2020-11-25T21:26:18.409Z] "GET /status/418 HTTP/1.1" 418 - via_upstream - "-" 0 135 4 4 "-" "curl/7.73.0-DEV" ` +
			`"84961386-6d84-929d-98bd-c5aee93b5c88" "httpbin:8000" "127.0.0.1:80" inbound|8000|| 127.0.0.1:41854 10.44.1.27:80 10.44.1.23:37652 ` +
			`outbound_.8000_._.httpbin.default.svc.cluster.local default`,
		Want: model.Observation{Tier: model.TierProxy, Format: "envoy-text", Method: "GET", Route: "/status/418", Status: 418,
			Outcome: model.OutcomeOK, RequestID: "84961386-6d84-929d-98bd-c5aee93b5c88", Detail: "via_upstream", Client: "10.44.1.23",
			Time: mustTime("2020-11-25T21:26:18.409Z"), Duration: 4 * time.Millisecond},
	}, {
		Origin: "Envoy's default access line sent through its application log (the [time][thread][level][access] prefix Envoy's logger writes)",
		Line: `[2026-12-01 09:00:00.412][21][info][access] [2026-12-01T09:00:00.101Z] "POST /v1/orders HTTP/1.1" 201 - 57 15 311 309 "10.0.0.7" "okhttp/4.12.0" ` +
			`"c9b2decb-ebc7-4a9b-99d6-69712772ef41" "orders.shop:8080" "10.244.1.7:8080"`,
		Want: model.Observation{Tier: model.TierProxy, Format: "envoy-text", Method: "POST", Route: "/v1/orders", Status: 201,
			Outcome: model.OutcomeOK, RequestID: "c9b2decb-ebc7-4a9b-99d6-69712772ef41", Client: "10.0.0.7",
			Time: mustTime("2026-12-01T09:00:00.101Z"), Duration: 311 * time.Millisecond},
	}, {
		Origin: "Emissary-ingress's access log: Envoy's line behind \"ACCESS \"",
		Line: `ACCESS [2026-12-01T09:00:00.101Z] "POST /v1/orders HTTP/1.1" 504 UT 57 24 15001 - "10.0.0.7" "okhttp/4.12.0" ` +
			`"c9b2decb-ebc7-4a9b-99d6-69712772ef41" "orders.shop:8080" "10.244.1.7:8080"`,
		Want: model.Observation{Tier: model.TierProxy, Format: "envoy-text", Method: "POST", Route: "/v1/orders", Status: 504,
			Outcome: model.OutcomeUpstreamTimeout, RequestID: "c9b2decb-ebc7-4a9b-99d6-69712772ef41", Client: "10.0.0.7",
			Time: mustTime("2026-12-01T09:00:00.101Z"), Duration: 15001 * time.Millisecond},
	}, {
		Origin: "Envoy's default line in a container runtime's JSON record (Docker's json-file driver)",
		Line: `{"log":"[2026-12-01T09:00:00.101Z] \"POST /v1/orders HTTP/1.1\" 0 DC 57 0 2400 - \"10.0.0.7\" \"okhttp/4.12.0\" ` +
			`\"c9b2decb-ebc7-4a9b-99d6-69712772ef41\" \"orders.shop:8080\" \"10.244.1.7:8080\"\n","stream":"stdout","time":"2026-12-01T09:00:02.502Z"}`,
		Want: model.Observation{Tier: model.TierProxy, Format: "envoy-text", Method: "POST", Route: "/v1/orders",
			Outcome: model.OutcomeClientClosed, RequestID: "c9b2decb-ebc7-4a9b-99d6-69712772ef41", Client: "10.0.0.7", Detail: "DC",
			Time: mustTime("2026-12-01T09:00:00.101Z"), Duration: 2400 * time.Millisecond},
	}},
}

// envoyDefault is Envoy's default format string (configuration, access
// logging, "Default format string"); istioDefault is Istio's
// (meshConfig.accessLogFormat's default, %UPSTREAM_CLUSTER_RAW% since
// Istio 1.22, %UPSTREAM_CLUSTER% before).
const (
	envoyDefault = `[%START_TIME%] "%REQ(:METHOD)% %REQ(X-ENVOY-ORIGINAL-PATH?:PATH)% %PROTOCOL%" %RESPONSE_CODE% %RESPONSE_FLAGS% ` +
		`%BYTES_RECEIVED% %BYTES_SENT% %DURATION% %RESP(X-ENVOY-UPSTREAM-SERVICE-TIME)% "%REQ(X-FORWARDED-FOR)%" "%REQ(USER-AGENT)%" ` +
		`"%REQ(X-REQUEST-ID)%" "%REQ(:AUTHORITY)%" "%UPSTREAM_HOST%"`
	istioDefault = `[%START_TIME%] "%REQ(:METHOD)% %REQ(X-ENVOY-ORIGINAL-PATH?:PATH)% %PROTOCOL%" %RESPONSE_CODE% %RESPONSE_FLAGS% ` +
		`%RESPONSE_CODE_DETAILS% %CONNECTION_TERMINATION_DETAILS% "%UPSTREAM_TRANSPORT_FAILURE_REASON%" %BYTES_RECEIVED% %BYTES_SENT% ` +
		`%DURATION% %RESP(X-ENVOY-UPSTREAM-SERVICE-TIME)% "%REQ(X-FORWARDED-FOR)%" "%REQ(USER-AGENT)%" "%REQ(X-REQUEST-ID)%" ` +
		`"%REQ(:AUTHORITY)%" "%UPSTREAM_HOST%" %UPSTREAM_CLUSTER_RAW% %UPSTREAM_LOCAL_ADDRESS% %DOWNSTREAM_LOCAL_ADDRESS% ` +
		`%DOWNSTREAM_REMOTE_ADDRESS% %REQUESTED_SERVER_NAME% %ROUTE_NAME%`
	// envoyKey is the Setup's key appended, quoted; appended bare, it is
	// the rest of the line, so that a line with more appended is still
	// read (its key only where that rest is one generated id).
	envoyKeyQuoted = ` "%REQ(IDEMPOTENCY-KEY)%"`
	envoyKeyBare   = ` %REQ(IDEMPOTENCY-KEY)%`
)

// envoyTextLayouts are Istio's format and Envoy's, each with the key
// appended and without, compiled: Istio's first, as it has more fields.
var envoyTextLayouts = compileLayouts(grammar.Envoy, []stockLayout{
	{format: istioDefault + envoyKeyQuoted, detect: true},
	{format: istioDefault, detect: true},
	{format: istioDefault + envoyKeyBare, detect: true},
	{format: envoyDefault + envoyKeyQuoted, detect: true},
	{format: envoyDefault, detect: true},
	{format: envoyDefault + envoyKeyBare, detect: true},
})

func readEnvoyText(p *Parser, s string, src model.Source) bool {
	if rest, ok := envoyWrapped(s); ok {
		// An access line inside Envoy's own log line, or behind
		// Emissary's "ACCESS ": the line itself is read.
		p.unwrapLine([]byte(rest), nil, src)
		return true
	}
	if len(s) < 3 || s[0] != '[' || !strings.Contains(s, `] "`) {
		return false
	}
	v := &p.values
	read := false
	for _, l := range envoyTextLayouts.all {
		if l.prog.Could(s) && l.prog.Read(s, v) == nil {
			read = true
			break
		}
	}
	// Envoy writes every bare operator ("-" for one it does not have):
	// a line with one left empty is not its.
	if !read || v.Unwritten() > 0 {
		return false
	}
	if _, ok := valuesTime(v, grammar.Start, grammar.StartFrac); !ok {
		return false
	}
	var o model.Observation
	o.Source, o.Format, o.Tier = src, "envoy-text", model.TierProxy
	p.observeValues(&o, v, grammar.Envoy)
	if o.Method == "" {
		return false
	}
	// The key is appended to the stock format: it is one only where it
	// is shaped like a generated id.
	if k, _ := v.Get(grammar.Key); !generatedID(k) {
		o.Key = ""
	}
	p.textDone(&o)
	return true
}

// isUint reports whether s is a run of decimal digits.
func isUint(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// envoyWrapped finds an access line inside a wrapper: Envoy's application
// log line ("[2026-12-01 09:00:00.123][15][info][access] …", the thread
// and a [source:line] optional), which some setups send access logs
// through, or the "ACCESS " Emissary-ingress puts before its access lines.
func envoyWrapped(s string) (string, bool) {
	if strings.HasPrefix(s, "ACCESS [") || strings.HasPrefix(s, "ACCESS {") {
		return s[len("ACCESS "):], true
	}
	if len(s) < 20 || s[0] != '[' || s[5] != '-' {
		return "", false
	}
	end := strings.IndexByte(s, ']')
	if end < 0 {
		return "", false
	}
	if _, ok := model.ParseTime(s[1:end]); !ok {
		return "", false
	}
	rest := s[end+1:]
	if strings.HasPrefix(rest, "[") && len(rest) > 2 && rest[1] >= '0' && rest[1] <= '9' { // the thread
		if i := strings.IndexByte(rest, ']'); i > 0 && isUint(rest[1:i]) {
			rest = rest[i+1:]
		}
	}
	for _, level := range []string{"[trace]", "[debug]", "[info]", "[warning]", "[error]", "[critical]"} {
		if strings.HasPrefix(rest, level) {
			rest = rest[len(level):]
			if !strings.HasPrefix(rest, "[access]") {
				return "", false
			}
			rest = strings.TrimLeft(rest[len("[access]"):], " ")
			if strings.HasPrefix(rest, "[") && !strings.HasPrefix(rest, "[2") { // [source/common/…:NN]
				if i := strings.IndexByte(rest, ']'); i > 0 {
					rest = strings.TrimLeft(rest[i+1:], " ")
				}
			}
			return rest, rest != ""
		}
	}
	return "", false
}
