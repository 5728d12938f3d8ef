package diagnose_test

import "github.com/idem-cli/idem/diagnose"

// reusedKey is an order, then its key again with the payload fp2 and
// what the server did with it.
func reusedKey(fp2 string, answer ...ob) []ob {
	return append([]ob{
		server("r1").key("k-1").post().at(0).took(0.2).status(201).fp("sha256:aaaa"),
		server("r1").key("k-1").at(0.1).effect("ord_1"),
		server("r2").key("k-1").post().at(30).fp(fp2),
	}, answer...)
}

var payloadMismatchCases = ruleCases{
	rule: "payload-mismatch",
	fire: []ruleCase{
		{name: "the second payload ran too",
			obs:  reusedKey("sha256:bbbb", server("r2").key("k-1").at(30.1).effect("ord_2")),
			want: []want{{severity: diagnose.Critical, keys: []string{"k-1"}, says: "ran the second payload too"}}},
		{name: "the second payload was refused with 422",
			obs:  reusedKey("sha256:bbbb", server("r2").key("k-1").at(30.1).status(422).decision("conflict")),
			want: []want{{severity: diagnose.Warning, keys: []string{"k-1"}, says: "answered 422 before the effect"}}},
		{name: "the second payload got the first one's stored result",
			obs:  reusedKey("sha256:bbbb", server("r2").key("k-1").at(30.1).status(201).decision("replay").result("ord_1")),
			want: []want{{severity: diagnose.Critical, keys: []string{"k-1"}, says: "without comparing payloads"}}},
	},
	quiet: []ruleCase{
		{name: "the same payload got the stored result",
			obs: reusedKey("sha256:aaaa", server("r2").key("k-1").at(30.1).status(201).decision("replay").result("ord_1"))},
		{name: "the fingerprints were logged by different tiers", obs: []ob{
			server("r1").key("k-1").post().at(0).status(201).fp("sha256:aaaa"),
			server("r1").key("k-1").at(0.1).effect("ord_1"),
			proxy("r2").key("k-1").post().at(30).status(201).fp("canon:bbbb"),
			server("r2").key("k-1").post().at(30.1).status(201).decision("replay").result("ord_1"),
		}},
		{name: "the other payload came under another key", obs: []ob{
			server("r1").key("k-1").post().at(0).status(201).fp("sha256:aaaa"),
			server("r1").key("k-1").at(0.1).effect("ord_1"),
			server("r2").key("k-2").post().at(30).status(201).fp("sha256:bbbb"),
			server("r2").key("k-2").at(30.1).effect("ord_2"),
		}},
	},
}
