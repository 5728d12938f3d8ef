package formats

import (
	"strconv"
	"strings"

	"github.com/idem-cli/idem/trace"
)

// Envoy's and Istio's JSON access logs.
var envoyFormat = &Format{
	Name: "envoy", Aliases: []string{"istio"}, Kind: KindJSON, Tier: trace.TierProxy,
	Doc: "Envoy / Istio JSON access logs (response_flags)",
	match: func(r *record) bool {
		return r.has("response_flags") || r.has("response_code") && r.hasAny("upstream_host", "start_time", "upstream_cluster")
	},
	extract: extractEnvoy,
}

func extractEnvoy(p *Parser, r *record, o *trace.Observation) bool {
	o.Time, _ = trace.ParseTime(r.str("start_time", "START_TIME", "timestamp"))
	o.Duration, _ = trace.ParseDuration(r.str("duration", "DURATION"), trace.Milliseconds)
	o.Method = strings.ToUpper(r.str("method", "request_method"))
	o.Route = routePath(r.str("path", "x_envoy_original_path"))
	o.RequestID = r.str("request_id", "x_request_id")
	o.Key = trace.NormalizeKey(r.str("idempotency_key", "x_idempotency_key", "idempotency-key", "request_idempotency_key"))
	o.Client = r.str("x_forwarded_for", "downstream_remote_address")
	o.Status, _ = intValue(r.str("response_code"))
	flags := r.str("response_flags")
	o.Detail = strings.TrimSpace(flags + " " + r.str("response_code_details"))
	o.Outcome = envoyOutcome(o.Status, flags)
	if o.Outcome == trace.OutcomeClientClosed && o.Status != 0 && o.Status < 300 {
		// "200 DC": the response started, then the client went away.
		o.Outcome = trace.OutcomeClientClosed
	}
	return o.Method != "" || o.RequestID != ""
}

// envoyOutcome reads Envoy's response flags (several may be joined by ",").
func envoyOutcome(status int, flags string) trace.Outcome {
	for _, f := range strings.Split(flags, ",") {
		switch strings.TrimSpace(f) {
		case "DC", "DR", "DownstreamConnectionTermination", "DownstreamRemoteReset":
			return trace.OutcomeClientClosed
		case "UT", "UMSDR", "SI", "UpstreamRequestTimeout", "UpstreamMaxStreamDurationReached", "StreamIdleTimeout":
			return trace.OutcomeUpstreamTimeout
		case "UC", "UR", "LR", "UpstreamConnectionTermination", "UpstreamRemoteReset", "LocalReset":
			return trace.OutcomeUpstreamReset
		case "UF", "UH", "UO", "NR", "NC", "UpstreamConnectionFailure", "NoHealthyUpstream", "UpstreamOverflow", "NoRouteFound", "NoClusterFound":
			return trace.OutcomeNotDelivered
		}
	}
	if status == 0 {
		return trace.OutcomeClientClosed
	}
	return proxyOutcome(status)
}

// envoyTextFormat is Envoy's default text access log, which most Istio
// users have (Istio's default adds the response code details, connection
// termination details and the upstream transport failure reason after the
// flags, and the upstream cluster and addresses at the end):
//
//	[%START_TIME%] "%REQ(:METHOD)% %REQ(X-ENVOY-ORIGINAL-PATH?:PATH)% %PROTOCOL%"
//	%RESPONSE_CODE% %RESPONSE_FLAGS% [details…] %BYTES_RECEIVED% %BYTES_SENT%
//	%DURATION% %RESP(X-ENVOY-UPSTREAM-SERVICE-TIME)% "%REQ(X-FORWARDED-FOR)%"
//	"%REQ(USER-AGENT)%" "%REQ(X-REQUEST-ID)%" "%REQ(:AUTHORITY)%" "%UPSTREAM_HOST%" …
//
// Its flags map to outcomes as in the JSON access log.
var envoyTextFormat = &Format{
	Name: "envoy-text", Aliases: []string{"istio-text"}, Kind: KindText, Tier: trace.TierProxy,
	Doc:   "Envoy / Istio default text access logs",
	Setup: "Envoy logs %REQ(X-REQUEST-ID)% by default; add \"%REQ(IDEMPOTENCY-KEY)%\" at the end of the format to log the key.",
	text:  readEnvoyText,
}

func readEnvoyText(p *Parser, s string, src trace.Source) bool {
	if !strings.HasPrefix(s, "[") {
		return false
	}
	end := strings.IndexByte(s, ']')
	if end < 0 || end+3 > len(s) || s[end+1] != ' ' || s[end+2] != '"' {
		return false
	}
	start, ok := trace.ParseTime(s[1:end])
	if !ok {
		return false
	}
	f := albFields(s[end+2:])
	if len(f) < 10 {
		return false
	}
	method, path := splitRequestLine(f[0])
	code, err := strconv.Atoi(f[1])
	if method == "" || err != nil {
		return false
	}
	// Three numbers in a row are the bytes received, bytes sent and the
	// duration; what stands between the flags and them are details.
	d := -1
	for i := 3; i+2 < len(f); i++ {
		if isUint(f[i]) && isUint(f[i+1]) && isUint(f[i+2]) {
			d = i
			break
		}
	}
	if d < 0 || d+7 >= len(f) {
		return false
	}
	var o trace.Observation
	o.Source, o.Format, o.Tier = src, "envoy-text", trace.TierProxy
	o.Time, o.Method, o.Route, o.Status = start, method, path, code
	o.Duration, _ = trace.ParseDuration(f[d+2], trace.Milliseconds)
	if xff := f[d+4]; xff != "-" {
		o.Client = strings.TrimSpace(strings.Split(xff, ",")[0])
	}
	if rid := f[d+6]; rid != "-" {
		o.RequestID = rid
	}
	flags := f[2]
	details := []string{}
	if flags != "-" {
		details = append(details, flags)
	}
	for _, x := range f[3:d] {
		if x != "-" && x != "" {
			details = append(details, x)
		}
	}
	o.Detail = strings.Join(details, " ")
	if flags == "-" {
		flags = ""
	}
	o.Outcome = envoyOutcome(o.Status, flags)
	// A key appended to the format ("%REQ(IDEMPOTENCY-KEY)%") follows the
	// upstream host or the fields Istio adds after it.
	for _, x := range f[d+9:] {
		if k := strings.Trim(x, `"`); idShaped(k) && strings.Count(k, "-") >= 2 && !strings.Contains(k, ":") {
			o.Key = trace.NormalizeKey(k)
			break
		}
	}
	if o.Status == 0 {
		o.Outcome = envoyOutcome(0, flags)
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
