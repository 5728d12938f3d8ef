package formats

import (
	"strings"

	"github.com/idem-cli/idem/model"
)

// Traefik's JSON access logs.
var traefikFormat = &format{
	Name: "traefik", Kind: kindJSON, Tier: model.TierProxy,
	Doc:   "Traefik JSON access logs (headers kept with accessLog.fields.headers)",
	Setup: "accessLog.format=json, accessLog.fields.headers.names.X-Request-Id=keep and accessLog.fields.headers.names.Idempotency-Key=keep (headers are dropped by default).",
	match: func(r *record) bool {
		return r.hasAny("DownstreamStatus", "OriginStatus") || r.has("RequestMethod") && r.has("StartUTC")
	},
	extract: extractTraefik,
	// StartUTC is the start, Duration nanoseconds.
	Samples: []sample{{
		Origin: "goaccess-for-nginxproxymanager issue #108, addresses and user agent replaced (fixtures/formats/traefik.jsonl)",
		Line: `{"ClientAddr":"192.0.2.10:63261","ClientHost":"192.0.2.10","ClientPort":"63261","ClientUsername":"-","DownstreamContentSize":287,` +
			`"DownstreamStatus":207,"Duration":8184335,"OriginContentSize":287,"OriginDuration":7349966,"OriginStatus":207,"Overhead":834369,` +
			`"RequestAddr":"sub.example.com","RequestContentSize":366,"RequestCount":17348,"RequestHost":"sub.example.com","RequestMethod":"REPORT",` +
			`"RequestPath":"/dav.php/calendars/","RequestPort":"-","RequestProtocol":"HTTP/2.0","RequestScheme":"https","RetryAttempts":0,` +
			`"RouterName":"https-bk@docker","ServiceAddr":"172.29.0.2:8111","ServiceName":"bk-bk@docker","ServiceURL":"http://172.29.0.2:8111",` +
			`"StartLocal":"2024-12-29T12:42:47.503803974+01:00","StartUTC":"2024-12-29T11:42:47.503803974Z","TLSCipher":"TLS_AES_128_GCM_SHA256",` +
			`"TLSVersion":"1.3","entryPointName":"https","level":"info","msg":"","request_User-Agent":"Mozilla/5.0","time":"2024-12-29T12:42:47+01:00"}`,
		Want: model.Observation{Tier: model.TierProxy, Format: "traefik", Method: "REPORT", Route: "/dav.php/calendars/", Status: 207,
			Outcome: model.OutcomeOK, Client: "192.0.2.10", Time: mustTime("2024-12-29T11:42:47.503803974Z"), Duration: 8_184_335},
	}, {
		Origin: "a Traefik 3.6 access log in a public CrowdSec bouncer issue (#323): a middleware answered 403 after 19.8s, OriginStatus 0",
		Line: `{"ClientAddr":"x.x.x.x:34779","ClientHost":"x.x.x.x","ClientPort":"34779","ClientUsername":"-","DownstreamContentSize":0,"DownstreamStatus":403,` +
			`"Duration":19808199303,"OriginContentSize":0,"OriginDuration":0,"OriginStatus":0,"Overhead":19808199303,"RequestAddr":"netbird.example.com:443",` +
			`"RequestContentSize":0,"RequestCount":131,"RequestHost":"netbird.example.com","RequestMethod":"POST",` +
			`"RequestPath":"/signalexchange.SignalExchange/ConnectStream","RequestPort":"443","RequestProtocol":"HTTP/2.0","RequestScheme":"https",` +
			`"RetryAttempts":0,"RouterName":"websecure-netbird-signal@docker","StartLocal":"2026-04-30T21:33:11.203370405+10:00",` +
			`"StartUTC":"2026-04-30T11:33:11.203370405Z","TLSCipher":"TLS_CHACHA20_POLY1305_SHA256","TLSVersion":"1.3","downstream_Alt-Svc":"h3=\":443\"; ` +
			`ma=2592000","downstream_Content-Type":"","entryPointName":"websecure","level":"info","msg":"","request_Content-Type":"application/grpc",` +
			`"request_Te":"trailers","request_User-Agent":"grpc-go/1.79.3","request_X-Forwarded-Host":"netbird.example.com:443","request_X-Forwarded-Port":"443",` +
			`"request_X-Forwarded-Proto":"https","request_X-Forwarded-Server":"REDACTED","request_X-Is-Trusted":"no","request_X-Real-Ip":"x.x.x.x",` +
			`"request_X-Wiretrustee-Peer-Id":"REDACTED","time":"2026-04-30T21:33:31+10:00"}`,
		Want: model.Observation{Tier: model.TierProxy, Format: "traefik", Method: "POST", Route: "/signalexchange.SignalExchange/ConnectStream",
			Status: 403, Outcome: model.OutcomeOK, Client: "x.x.x.x", Time: mustTime("2026-04-30T11:33:11.203370405Z"), Duration: 19_808_199_303},
	}},
}

// keyFold returns the value of the first member whose name equals one of
// names ignoring case (Traefik writes Go-canonical header names).
func (r *record) keyFold(names ...string) string {
	for _, n := range names {
		for i, k := range r.keys {
			if strings.EqualFold(k, n) {
				if s := present(r.val(i)); s != "" {
					return s
				}
			}
		}
	}
	return ""
}

func extractTraefik(p *Parser, r *record, o *model.Observation) bool {
	o.Time, _ = model.ParseTime(r.str("StartUTC", "StartLocal", "time"))
	o.Duration, _ = model.ParseDuration(r.str("Duration"), model.Nanoseconds)
	o.Method = httpMethod(r.str("RequestMethod"))
	o.Route = routePath(r.str("RequestPath"))
	o.RequestID = r.keyFold("request_X-Request-Id")
	o.Key = model.NormalizeKey(r.keyFold("request_Idempotency-Key"))
	o.Client = r.str("ClientHost")
	o.Status, _ = intValue(r.str("DownstreamStatus"))
	origin, _ := intValue(r.str("OriginStatus"))
	o.Outcome = proxyOutcome(o.Status)
	if o.Status == 499 {
		o.Status = 0
	}
	if n, _ := intValue(r.str("RetryAttempts")); n > 0 {
		o.Detail = "RetryAttempts " + r.str("RetryAttempts")
	}
	if origin > 0 && origin != o.Status {
		o.Detail = strings.TrimSpace(o.Detail + " origin " + r.str("OriginStatus"))
	}
	o.Replayed = strings.EqualFold(r.keyFold("downstream_Idempotent-Replayed", "origin_Idempotent-Replayed"), "true")
	return o.Method != ""
}
