package formats

import (
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
