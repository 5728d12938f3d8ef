package diagnose_test

import "github.com/idem-cli/idem/diagnose"

// chargedTwice is a first delivery that called the provider and crashed
// before completing, and a retry that called it again and completed.
func chargedTwice(firstCall, retryCall ob, retryEffect string) []ob {
	return []ob{
		server("r1").key("k-1").post().at(0).status(500),
		firstCall,
		server("r2").key("k-1").post().at(10).status(201),
		retryCall,
		server("r2").key("k-1").at(11).effect(retryEffect),
	}
}

var externalDuplicateCases = ruleCases{
	rule: "external-duplicate",
	fire: []ruleCase{
		{name: "a crash between the call and the record, then a second call",
			obs:  chargedTwice(provider("r1").at(0.5).status(200).result("ch_1"), provider("r2").at(10.5).status(200).result("ch_2"), "ord_1"),
			want: []want{{severity: diagnose.Critical, keys: []string{"k-1"}, says: "reached the provider 2 times (ch_1, ch_2"}}},
		{name: "the provider's lines carry only the key", obs: []ob{
			server("r1").key("k-1").post().at(0).status(201),
			server("r1").key("k-1").at(3).effect("ord_1"),
			provider("").key("k-1").at(1).effect("ch_1"),
			provider("").key("k-1").at(2).effect("ch_2"),
		}, want: []want{{severity: diagnose.Critical, keys: []string{"k-1"}, says: "while the server recorded 1 effect"}}},
	},
	quiet: []ruleCase{
		{name: "the provider refused the second call",
			obs: chargedTwice(provider("r1").at(0.5).status(200).result("ch_1"), provider("r2").at(10.5).status(409), "ord_1")},
		{name: "the server recorded two effects as well", obs: append(
			chargedTwice(provider("r1").at(0.5).status(200).result("ch_1"), provider("r2").at(10.5).status(200).result("ch_2"), "ord_2"),
			server("r1").key("k-1").at(0.6).effect("ord_1"))},
		{name: "one call", obs: chargedTwice(provider("r1").at(0.5).status(503), provider("r2").at(10.5).status(200).result("ch_1"), "ord_1")},
	},
}
