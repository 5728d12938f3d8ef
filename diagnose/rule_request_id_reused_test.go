package diagnose_test

import (
	"time"

	"github.com/idem-cli/idem/diagnose"
	"github.com/idem-cli/idem/model"
)

// sameRequestID is two lines with request id r1: a proxy's at 0 and one
// of tier t with key k at s seconds.
func sameRequestID(t model.Tier, k string, s float64) []ob {
	return []ob{
		proxy("r1").key("k-1").post().at(0).status(201),
		line(t, "r1").key(k).post().at(s).status(201),
	}
}

var requestIDReusedCases = ruleCases{
	rule: "request-id-reused",
	fire: []ruleCase{
		{name: "one request id with two keys", obs: sameRequestID(model.TierProxy, "k-2", 30),
			want: []want{{severity: diagnose.Warning, keys: []string{"k-1", "k-2"}, says: "it carried 2 keys (k-1, k-2)"}}},
		{name: "the proxy saw one request id six minutes apart", obs: sameRequestID(model.TierProxy, "k-1", 360),
			want: []want{{severity: diagnose.Warning, keys: []string{"k-1"}, says: "the proxy saw it at 13:30:00.000Z and again 6m0s later"}}},
		{name: "the server saw it six minutes apart, the proxy's line one minute long", obs: []ob{
			proxy("r1").key("k-1").post().at(0).took(60).status(201),
			server("r1").key("k-1").post().at(0.1).status(504),
			server("r1").key("k-1").post().at(360.1).status(201),
		}, want: []want{{severity: diagnose.Warning, keys: []string{"k-1"}, says: "the server saw it at 13:30:00.100Z and again 6m0s later"}}},
		{name: "two minutes apart against a one-minute gap", obs: sameRequestID(model.TierProxy, "k-1", 120),
			opts: func(o *diagnose.Options) { o.ReuseGap = time.Minute },
			want: []want{{severity: diagnose.Warning, keys: []string{"k-1"}, says: "again 2m0s later"}}},
	},
	quiet: []ruleCase{
		{name: "the proxy saw it twice, five minutes apart", obs: sameRequestID(model.TierProxy, "k-1", 300)},
		// nginx with proxy_read_timeout 400s and proxy_next_upstream
		// timeout non_idempotent: its own retry, proxy-retry's.
		{name: "the proxy's own retry reached the server six minutes apart", obs: []ob{
			proxy("r1").key("k-1").post().at(0).took(360.2).status(201).upstream(201).tries(2).detail("upstream_status 504, 201"),
			server("r1").key("k-1").post().at(0.1).effect("ord_1"),
			server("r1").key("k-1").post().at(360.1).effect("ord_2"),
		}},
		{name: "the proxy and the server, on clocks ten minutes apart", obs: sameRequestID(model.TierServer, "k-1", 600)},
		{name: "the proxy logged the key, the server its hash", obs: []ob{
			proxy("r1").key("k-1").post().at(0).status(201),
			server("r1").keyHashOf("k-1").post().at(0.1).status(201),
		}},
		// A logger's start line, its effect line and its finish line of
		// one request, in any order: one delivery.
		{name: "the server's start, effect and finish lines of one request", obs: []ob{
			server("r1").key("k-1").post().at(0.1).msg("incoming request"),
			server("r1").key("k-1").at(1.2).effect("ord_1"),
			server("r1").key("k-1").post().at(0.1).took(1.2).status(201).msg("request completed"),
		}},
		{name: "the finish line written before the start line", obs: []ob{
			server("r1").key("k-1").post().at(0.1).took(1.2).status(201).msg("request completed"),
			server("r1").key("k-1").post().at(0.1).msg("incoming request"),
		}},
	},
}
