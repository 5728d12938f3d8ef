package diagnose_test

import "github.com/idem-cli/idem/diagnose"

// halfDeliveries is one order seen by nginx under its request id and by
// the server under the one it made itself; the server's id varies.
func halfDeliveries(serverID string, serverAt float64) []ob {
	return []ob{
		proxy("7f3c9a1e").key("k-1").post().at(0).took(0.24).status(201),
		server(serverID).key("k-1").post().at(serverAt).took(0.2).status(201),
		server(serverID).key("k-1").at(serverAt + 0.1).effect("ord_1"),
	}
}

var requestIDNotPropagatedCases = ruleCases{
	rule: "request-id-not-propagated",
	fire: []ruleCase{
		{name: "the server made its own xid while the proxy's trip ran", obs: halfDeliveries("ctmf1q8lr5kg00b3c9v0", 0.01),
			want: []want{{severity: diagnose.Info, keys: []string{"k-1"}, says: "logged no request id in common"}}},
		{name: "a retry too, each trip split in two", obs: append(halfDeliveries("xid-1", 0.01),
			proxy("8a4dab2f").key("k-1").post().at(30).took(0.2).status(201),
			server("xid-2").key("k-1").post().at(30.01).took(0.18).status(201),
		), want: []want{{severity: diagnose.Info, keys: []string{"k-1"}, says: "each trip shows as two deliveries"}}},
	},
	quiet: []ruleCase{
		{name: "the server logged the proxy's id", obs: halfDeliveries("7f3c9a1e", 0.01)},
		{name: "the server's line came after the proxy's trip ended", obs: halfDeliveries("xid-1", 5)},
		{name: "only the proxy logged", obs: []ob{proxy("7f3c9a1e").key("k-1").post().at(0).took(0.24).status(201)}},
	},
}
