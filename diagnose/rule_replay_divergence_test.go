package diagnose_test

import "github.com/idem-cli/idem/diagnose"

// replayOf is an order that made ord_1 with 201, then a replay of its key
// and payload fp with the given status and result id.
func replayOf(fp string, status int, result string) []ob {
	return []ob{
		server("r1").key("k-1").post().at(0).status(201).fp("sha256:aaaa").result("ord_1"),
		server("r1").key("k-1").at(0.1).effect("ord_1"),
		server("r2").key("k-1").post().at(30).status(status).fp(fp).decision("replay").result(result),
	}
}

var replayDivergenceCases = ruleCases{
	rule: "replay-divergence",
	fire: []ruleCase{
		{name: "the replay got 200 instead of 201", obs: replayOf("sha256:aaaa", 200, "ord_1"),
			want: []want{{severity: diagnose.Warning, keys: []string{"k-1"}, says: "got 201 (ord_1); the replay r2"}}},
		{name: "the replay named another result", obs: replayOf("sha256:aaaa", 201, "ord_9"),
			want: []want{{severity: diagnose.Warning, keys: []string{"k-1"}, says: "got 201 (ord_9)"}}},
	},
	quiet: []ruleCase{
		{name: "the replay got the same status and result", obs: replayOf("sha256:aaaa", 201, "ord_1")},
		{name: "the replay carried another payload", obs: replayOf("sha256:bbbb", 200, "ord_1")},
		{name: "the retry was refused with 409", obs: replayOf("sha256:aaaa", 409, "")},
		{name: "the retry was rate limited", obs: replayOf("sha256:aaaa", 429, "")},
		{name: "a failure in the same millisecond before the original", obs: []ob{
			server("r1").key("k-1").post().at(0).status(500).fp("sha256:aaaa"),
			server("r2").key("k-1").post().at(0).status(201).fp("sha256:aaaa").result("ord_1"),
			server("r2").key("k-1").at(0).effect("ord_1"),
		}},
	},
}
