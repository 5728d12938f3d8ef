package diagnose_test

import "github.com/idem-cli/idem/diagnose"

// completedThenRetried is an order that completed, then its key again an
// hour later (at retryAt seconds) with what the server did.
func completedThenRetried(retryAt float64, retry ...ob) []ob {
	return append([]ob{
		server("r1").key("k-1").post().at(0).took(0.3).status(201).fp("sha256:aaaa"),
		server("r1").key("k-1").at(0.2).effect("ord_1"),
		server("r2").key("k-1").post().at(retryAt).took(0.3).fp("sha256:aaaa"),
	}, retry...)
}

var keyExpiredCases = ruleCases{
	rule: "key-expired",
	fire: []ruleCase{
		{name: "12 ms after completion the key ran again: no dedup, not an expiry",
			obs:  completedThenRetried(0.312, server("r2").key("k-1").at(0.4).status(201), server("r2").key("k-1").at(0.5).effect("ord_2")),
			want: []want{{severity: diagnose.Critical, keys: []string{"k-1"}, says: "never stored or never checked"}}},
		{name: "a second 201 from a server that logs no decision, result id or effect: likely, since a replay reads the same",
			obs: []ob{
				server("r1").key("k-1").post().at(0.1).took(0.3).status(201),
				server("r2").key("k-1").post().at(60.25).took(0.3).status(201),
			},
			want: []want{{severity: diagnose.Warning, keys: []string{"k-1"}, says: "completed at 13:30:00.400Z (no result id logged), and delivery r2 59.85s later was run again and made no result id logged; no delivery in between got the stored result, so the logs cannot tell a key kept for less than 59.85s from one never stored or never checked; likely, not proven"}}},
		{name: "a second 201 naming another result id: a second run",
			obs: []ob{
				server("r1").key("k-1").post().at(0.1).took(0.3).status(201).result("ord_1"),
				server("r2").key("k-1").post().at(60.25).took(0.3).status(201).result("ord_2"),
			},
			want: []want{{severity: diagnose.Critical, keys: []string{"k-1"}, says: "was run again and made ord_2; no delivery in between"}}},
		{name: "an hour later the key ran again",
			obs:  completedThenRetried(3600, server("r2").key("k-1").at(3600.1).decision("new").status(201), server("r2").key("k-1").at(3600.2).effect("ord_2")),
			want: []want{{severity: diagnose.Critical, keys: []string{"k-1"}, says: "was run again and made ord_2"}}},
		{name: "4 s after completion the key ran again, after a replay: a short retention, not no dedup",
			obs: completedThenRetried(4,
				server("r3").key("k-1").post().at(0.5).took(0.01).status(201).fp("sha256:aaaa").replayed(),
				server("r2").key("k-1").at(4.1).status(201), server("r2").key("k-1").at(4.2).effect("ord_2")),
			want: []want{{severity: diagnose.Critical, keys: []string{"k-1"}, says: "delivery r3 at 13:30:00.500Z got the stored result, so the key was stored and checked"}}},
		{name: "a replay naming the first's result, without a marker, shows the key was kept",
			obs: completedThenRetried(4,
				server("r3").key("k-1").post().at(0.5).took(0.01).status(201).fp("sha256:aaaa").result("ord_1"),
				server("r2").key("k-1").at(4.1).status(201), server("r2").key("k-1").at(4.2).effect("ord_2")),
			want: []want{{severity: diagnose.Critical, keys: []string{"k-1"}, says: "was forgotten at most 3.5s after that"}}},
		{name: "a 2xx without an effect, where effects are logged, shows the key was kept (no marker, no result id)",
			obs: completedThenRetried(4,
				server("r3").key("k-1").post().at(0.5).took(0.01).status(201).fp("sha256:aaaa"),
				server("r2").key("k-1").at(4.1).status(201), server("r2").key("k-1").at(4.2).effect("ord_2")),
			want: []want{{severity: diagnose.Critical, keys: []string{"k-1"}, says: "delivery r3 at 13:30:00.500Z got the stored result"}}},
		{name: "times to the second: a replay dated the second before the completion it replays still shows the key was kept",
			obs: []ob{
				server("r1").key("k-1").post().at(10).took(1).status(201).fp("sha256:aaaa"),
				server("r1").key("k-1").at(11).effect("ord_1"),
				server("r3").key("k-1").post().at(10).status(201).fp("sha256:aaaa").replayed(),
				server("r2").key("k-1").post().at(14).took(1).status(201).fp("sha256:aaaa"),
				server("r2").key("k-1").at(15).effect("ord_2"),
			},
			want: []want{{severity: diagnose.Critical, keys: []string{"k-1"}, says: "delivery r2 about 3s later (times to the second) was run again and made ord_2; delivery r3 at 13:30:10.000Z got the stored result, so the key was stored and checked, and was forgotten at most about 4s after that"}}},
		{name: "the server dated the second request after the first's effect, on one precise clock", obs: append(proxyStartServerEnd(),
			server("r2").key("k-1").post().at(10.25).took(0.1).status(201)),
			want: []want{{severity: diagnose.Critical, keys: []string{"k-1"}, says: "was run again and made ord_2"}}},
		{name: "the client saw two requests in turn, but the server dated the rerun before the first's effect: no negative gap",
			obs: []ob{
				client("r1").key("k-1").post().at(0).took(0.3).status(201),
				server("r1").key("k-1").post().at(0.01).took(0.2).status(201).fp("sha256:aaaa"),
				server("r1").key("k-1").at(0.5).effect("ord_1"),
				client("r2").key("k-1").post().at(0.35).took(0.3).status(201),
				server("r2").key("k-1").post().at(0.4).took(0.2).status(201).fp("sha256:aaaa"),
				server("r2").key("k-1").at(0.45).effect("ord_2"),
			},
			want: []want{{severity: diagnose.Critical, keys: []string{"k-1"}, says: "delivery r2 at about the same time (its time reads 100ms earlier: the clocks or the logs' resolution cannot order the two) was run again and made ord_2; no delivery in between got the stored result, so the logs cannot tell a key kept for less than a second or two from one never stored or never checked"}}},
		{name: "an hour later the key was decided new, no effect logged",
			obs:  completedThenRetried(3600, server("r2").key("k-1").at(3600.1).decision("new").status(500)),
			want: []want{{severity: diagnose.Warning, keys: []string{"k-1"}, says: "was decided 'new'"}}},
	},
	quiet: []ruleCase{
		// Times to the second cannot order a retry in the next second
		// against the first's end: that is concurrency's candidate
		// (non-atomic-reservation), never an expiry.
		{name: "times to the second: a retry in the same second or two is unorderable, not an expiry", obs: sameSecond()},
		{name: "a second-resolution proxy start against the server's end, 0.5s apart, is unorderable", obs: proxyStartServerEnd()},
		// An effect is a result first seen: a later line naming the
		// first's order is that order again, however it is worded.
		{name: "an hour later a line marked as an effect names the first's order",
			obs: completedThenRetried(3600, server("r2").key("k-1").at(3600.1).status(201), server("r2").key("k-1").at(3600.2).effect("ord_1"))},
		{name: "an hour later the key got the stored result",
			obs: completedThenRetried(3600, server("r2").key("k-1").at(3600.1).decision("replay").status(201).result("ord_1"))},
		{name: "the second effect ran while the first was running",
			obs: completedThenRetried(0.1, server("r2").key("k-1").at(0.25).effect("ord_2"))},
		{name: "the first delivery never completed", obs: []ob{
			server("r1").key("k-1").post().at(0).took(0.3).status(500).fp("sha256:aaaa").decision("new"),
			server("r2").key("k-1").post().at(3600).took(0.3).status(201).fp("sha256:aaaa").decision("new"),
			server("r2").key("k-1").at(3600.2).effect("ord_1"),
		}},
	},
}

// sameSecond is two effects of one key logged to the second, a second
// apart, with no duration: the logs cannot order them.
func sameSecond() []ob {
	return []ob{
		server("r1").key("k-1").post().at(10).took(0).status(201).fp("sha256:aaaa"),
		server("r1").key("k-1").at(10).effect("ord_1"),
		server("r2").key("k-1").post().at(11).took(0).status(201).fp("sha256:aaaa"),
		server("r2").key("k-1").at(11).effect("ord_2"),
	}
}

// proxyStartServerEnd is a second send whose only start is a proxy's,
// logged to the second, a moment before the first's effect, which only
// the server's log dates, and whose own effect the server logged after
// it: two clocks, and an effect's time is no start.
func proxyStartServerEnd() []ob {
	return []ob{
		server("r1").key("k-1").post().at(10).took(0.1).status(201).fp("sha256:aaaa"),
		server("r1").key("k-1").at(10.2).effect("ord_1"),
		proxy("r2").key("k-1").post().at(10).status(201),
		server("r2").key("k-1").at(10.3).effect("ord_2"),
	}
}
