package formats

import (
	"time"

	"github.com/idem-cli/idem/model"
)

// echo's Logger middleware (Go, labstack/echo v4), in its default JSON
// format:
//
//	{"time":"${time_rfc3339_nano}","id":"${id}","remote_ip":"${remote_ip}",
//	"host":"${host}","method":"${method}","uri":"${uri}","user_agent":"${user_agent}",
//	"status":${status},"error":"${error}","latency":${latency},
//	"latency_human":"${latency_human}","bytes_in":${bytes_in},"bytes_out":${bytes_out}}
//
// id is the request's X-Request-ID (echo's RequestID middleware sets it);
// time is when the line was written, at the end of the request; latency
// is in nanoseconds.
var echoFormat = &format{
	vocabulary: true,
	Name:       "echo", Kind: kindJSON, Tier: model.TierServer,
	Doc: "echo's Logger middleware (Go): id, remote_ip, uri, status, latency (ns)",
	match: func(r *record) bool {
		// The Logger middleware's lines, and its context logger's (gommon:
		// time, level, prefix, file, line, message).
		return r.has("latency_human") || r.has("remote_ip") && r.has("bytes_in") && r.has("uri") ||
			r.has("prefix") && r.has("file") && r.has("line") && r.has("level")
	},
	extract: extractEcho,
	Samples: []sample{{
		Origin: "echo's Logger middleware, its default JSON format, for a POST with X-Request-ID",
		Line: `{"time":"2026-11-30T09:14:04.5Z","id":"c9b2decb-ebc7-4a9b-99d6-69712772ef41","remote_ip":"10.0.0.7","host":"api:8080",` +
			`"method":"POST","uri":"/v1/orders","user_agent":"curl/8.5.0","status":201,"error":"","latency":1500000000,` +
			`"latency_human":"1.5s","bytes_in":41,"bytes_out":57}`,
		Want: model.Observation{Tier: model.TierServer, Format: "echo", Method: "POST", Route: "/v1/orders", Status: 201, Outcome: model.OutcomeOK,
			RequestID: "c9b2decb-ebc7-4a9b-99d6-69712772ef41", Client: "10.0.0.7",
			Time: mustTime("2026-11-30T09:14:03Z"), Duration: 1500 * time.Millisecond},
	}},
}

func extractEcho(p *Parser, r *record, o *model.Observation) bool {
	ok := extractApp(p, r, o)
	if id := r.str("id"); id != "" && o.RequestID == "" {
		o.RequestID = id
		ok = true
	}
	if o.Client == "" {
		o.Client = r.str("remote_ip")
	}
	if e := r.str("error"); e != "" && o.Detail == "" {
		o.Detail = e
	}
	// The line is written when the response is: extractApp, which read
	// the status and the latency, has taken the latency off.
	return ok
}
