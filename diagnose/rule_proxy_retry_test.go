package diagnose_test

import (
	"github.com/idem-cli/idem/diagnose"
	"github.com/idem-cli/idem/model"
)

// nginxRetried is nginx's one line of a POST it sent to two upstreams
// (the first timed out after 1 s), and the server's lines of what each
// upstream made: effects names their result ids, at 0.1 and 1.1 s.
func nginxRetried(effects ...string) []ob {
	obs := []ob{proxy("r1").key("k-1").post().at(0).took(1.05).status(201).upstream(201).tries(2).detail("upstream_status 504, 201")}
	for i, id := range effects {
		obs = append(obs, server("r1").key("k-1").post().at(0.1+float64(i)).effect(id))
	}
	return obs
}

var proxyRetryCases = ruleCases{
	rule: "proxy-retry",
	fire: []ruleCase{
		{name: "nginx tried two upstreams, each made an order", obs: nginxRetried("ord_1", "ord_101"),
			want: []want{{severity: diagnose.Critical, keys: []string{"k-1"},
				says: "sent delivery r1 to the server 2 times on its own (upstream_status 504, 201): the server made 2 effects for it (ord_1, ord_101)"}}},
		{name: "nginx tried two upstreams, one order logged", obs: nginxRetried("ord_101"),
			want: []want{{severity: diagnose.Warning, keys: []string{"k-1"}, says: "the server made one effect for it (ord_101) and the logs show no other"}}},
		{name: "no attempt count, two orders while the proxy waited", obs: []ob{
			proxy("r1").key("k-1").post().at(0).took(1.05).status(201),
			server("r1").key("k-1").post().at(0.1).effect("ord_1"),
			server("r1").key("k-1").post().at(1.02).effect("ord_101"),
		}, want: []want{{severity: diagnose.Critical, keys: []string{"k-1"}, says: "2 times on its own: the server made 2 effects for it (ord_1, ord_101)"}}},
		{name: "a PATCH retried by Envoy", obs: []ob{
			proxy("r1").key("k-1").req("PATCH", "/v1/orders/1").at(0).took(2).status(200).tries(3),
		}, want: []want{{severity: diagnose.Warning, keys: []string{"k-1"}, says: "3 times on its own"}}},
	},
	quiet: []ruleCase{
		{name: "one upstream tried, one order", obs: []ob{
			proxy("r1").key("k-1").post().at(0).took(1.05).status(504).upstream(504),
			server("r1").key("k-1").post().at(0.1).effect("ord_1"),
		}},
		{name: "a GET retried on the next upstream", obs: []ob{
			proxy("r1").req("GET", "/v1/orders/1").at(0).took(1.05).status(200).upstream(200).tries(2),
		}},
		// Two sends of one request id are the client's: request-id-reused.
		{name: "the proxy logged two requests under one id", obs: []ob{
			proxy("r1").key("k-1").post().at(0).took(0.2).status(201),
			server("r1").key("k-1").post().at(0.1).effect("ord_1"),
			proxy("r1").key("k-1").post().at(0.5).took(0.2).status(201),
			server("r1").key("k-1").post().at(0.6).effect("ord_2"),
		}},
		{name: "the second order began after the proxy had answered", obs: []ob{
			proxy("r1").key("k-1").post().at(0).took(0.2).status(201),
			server("r1").key("k-1").post().at(0.1).effect("ord_1"),
			server("r1").key("k-1").post().at(3).effect("ord_2"),
		}},
		{name: "one order logged twice", obs: []ob{
			proxy("r1").key("k-1").post().at(0).took(1.05).status(201),
			server("r1").key("k-1").post().at(0.1).effect("ord_1"),
			server("r1").key("k-1").post().at(0.2).effect("ord_1"),
		}},
		{name: "the client sent twice under one id", obs: []ob{
			line(model.TierClient, "r1").key("k-1").post().at(0).status(201),
			line(model.TierClient, "r1").key("k-1").post().at(0.5).status(201),
			proxy("r1").key("k-1").post().at(0).took(1.05).status(201).tries(2),
		}},
	},
}
