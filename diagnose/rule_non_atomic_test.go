package diagnose_test

import "github.com/idem-cli/idem/diagnose"

// twoDeliveries is one key sent twice with a payload each; the second
// reaches the server at second and ends with its own last line.
func twoDeliveries(second float64, fp2 string, last ob) []ob {
	return []ob{
		server("r1").key("k-1").post().at(0).took(2).status(201).fp("sha256:aaaa"),
		server("r1").key("k-1").at(1.5).effect("ord_1"),
		server("r2").key("k-1").post().at(second).took(2).status(201).fp(fp2),
		last,
	}
}

var nonAtomicCases = ruleCases{
	rule: "non-atomic-reservation",
	fire: []ruleCase{
		// Two effects the logs cannot order are concurrency's
		// candidate, inferred: key-expired would need the second to
		// start after the first's end.
		{name: "times to the second: two effects a second apart are unorderable, likely concurrent", obs: sameSecond(),
			want: []want{{severity: diagnose.Critical, keys: []string{"k-1"}, conf: diagnose.Inferred, lacks: "times fine enough",
				says: "which the clocks or the logs' resolution cannot order, and both ran the effect; likely concurrent"}}},
		{name: "a proxy's second-resolution start against the server's end is no order", obs: proxyStartServerEnd(),
			want: []want{{severity: diagnose.Critical, keys: []string{"k-1"}, conf: diagnose.Inferred, says: "cannot order"}}},
		{name: "the second delivery arrived while the first ran, and both ran the effect",
			obs:  twoDeliveries(0.5, "sha256:aaaa", server("r2").key("k-1").at(2).effect("ord_2")),
			want: []want{{severity: diagnose.Critical, keys: []string{"k-1"}, says: "made 2 effects (ord_1, ord_2)"}}},
		{name: "no effect lines: two overlapping 201s for one payload", obs: []ob{
			server("r1").key("k-1").post().at(0).took(1).status(201).fp("sha256:aaaa"),
			server("r2").key("k-1").post().at(1).took(1).status(201).fp("sha256:aaaa").decision("new"),
		}, want: []want{{severity: diagnose.Critical, keys: []string{"k-1"}, says: "both ran the effect"}}},
		{name: "no effect lines, no decisions, no result ids: two overlapping 201s are likely, since a held and replayed duplicate reads the same", obs: []ob{
			server("r1").key("k-1").post().at(0).took(1).status(201),
			server("r2").key("k-1").post().at(0.5).took(0.6).status(201),
		}, want: []want{{severity: diagnose.Warning, keys: []string{"k-1"}, says: "before delivery r1 (server start 13:30:00.000Z) had completed at 13:30:01.000Z, and both ran the effect; likely, not proven"}}},
		{name: "the same two 201s from a server that logs its decisions: the second was no replay", obs: []ob{
			server("r1").key("k-1").post().at(0).took(1).status(201).decision("new"),
			server("r2").key("k-1").post().at(0.5).took(0.6).status(201),
		}, want: []want{{severity: diagnose.Critical, keys: []string{"k-1"}, says: "had completed at 13:30:01.000Z, and both ran the effect."}}},
		{name: "after a completed delivery, two more ran together", obs: []ob{
			server("r1").key("k-1").post().at(0).took(0.1).status(201).fp("sha256:aaaa"),
			server("r1").key("k-1").at(0.05).effect("ord_1"),
			server("r2").key("k-1").post().at(10).took(1.2).status(201).fp("sha256:aaaa"),
			server("r2").key("k-1").at(11.1).effect("ord_2"),
			server("r3").key("k-1").post().at(10.3).took(0.01).status(201).fp("sha256:aaaa"),
			server("r3").key("k-1").at(10.305).effect("ord_3"),
		}, want: []want{{severity: diagnose.Critical, keys: []string{"k-1"}, says: "delivery r3 reached the server at 13:30:10.300Z, before delivery r2"}}},
	},
	quiet: []ruleCase{
		// One field away: the server logged the second's start, after
		// the first's effect, on one precise clock: ordered, not
		// concurrent (key-expired's).
		{name: "the server dated the second request after the first's effect", obs: append(proxyStartServerEnd(),
			server("r2").key("k-1").post().at(10.25).took(0.1).status(201))},
		// Fiber's idempotency middleware holds the duplicate on a lock,
		// then answers it with the stored response: two overlapping 201s
		// naming one result, and no effect lines.
		{name: "a server that held the duplicate and replayed it", obs: []ob{
			server("r1").key("k-1").post().at(0).took(2).status(201).result("ord_1").fp("sha256:aaaa"),
			server("r2").key("k-1").post().at(0.5).took(1.6).status(201).result("ord_1").fp("sha256:aaaa"),
		}},
		{name: "the second delivery came after the first had finished",
			obs: twoDeliveries(5, "sha256:aaaa", server("r2").key("k-1").at(6).effect("ord_2"))},
		{name: "the concurrent delivery was answered in progress",
			obs: twoDeliveries(0.5, "sha256:aaaa", server("r2").key("k-1").at(0.6).status(409).decision("in_progress"))},
		{name: "the concurrent delivery carried another payload",
			obs: twoDeliveries(0.5, "sha256:bbbb", server("r2").key("k-1").at(2).effect("ord_2"))},
		{name: "sequential at the proxy, though the proxy's clock runs behind the server's", obs: []ob{
			proxy("r1").key("k-1").post().at(-10).took(1).status(201),
			server("r1").key("k-1").post().at(0).took(0.4).status(201).fp("sha256:aaaa"),
			server("r1").key("k-1").at(0.4).effect("ord_1"),
			proxy("r2").key("k-1").post().at(-8).took(1).status(201),
			server("r2").key("k-1").post().at(2).took(0.4).status(201).fp("sha256:aaaa"),
			server("r2").key("k-1").at(2.4).effect("ord_2"),
		}},
	},
}
