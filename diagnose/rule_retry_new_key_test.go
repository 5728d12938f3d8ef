package diagnose_test

import (
	"github.com/idem-cli/idem/diagnose"
	"github.com/idem-cli/idem/model"
)

// newKeyRetry is a timed-out order and its retry a minute later under
// another key, both run: the retry's start, client and payload vary.
func newKeyRetry(retryAt float64, retryFrom, retryFP string) []ob {
	return []ob{
		proxy("r1").key("k-1").post().from("10.0.0.7").at(0).took(30).status(504).outcome(model.OutcomeUpstreamTimeout),
		server("r1").key("k-1").post().at(0.1).status(201).fp("sha256:aaaa"),
		server("r1").key("k-1").at(0.5).effect("ord_1"),
		proxy("r2").key("k-2").post().from(retryFrom).at(retryAt).status(201),
		server("r2").key("k-2").post().at(retryAt + 0.1).status(201).fp(retryFP),
		server("r2").key("k-2").at(retryAt + 0.5).effect("ord_2"),
	}
}

// chargeAfter504 is a double charge without a fingerprint: the proxy
// answered 504 while the server made ch_1 (its log has no status), and
// retryAt seconds later the same caller's POST under a new key, which
// made what the last line names.
func chargeAfter504(retryAt float64, retryFrom string, first int, second ob) []ob {
	return []ob{
		proxy("r1").key("k-1").req("POST", "/pay").from("10.0.0.7").at(0).took(30).status(first).outcome(map[bool]model.Outcome{true: model.OutcomeUpstreamTimeout, false: model.OutcomeOK}[first >= 500]),
		server("r1").key("k-1").at(12).effect("ch_1"),
		proxy("r2").key("k-2").req("POST", "/pay").from(retryFrom).at(retryAt).took(0.5).status(201),
		second,
	}
}

var retryNewKeyCases = ruleCases{
	rule: "retry-new-key",
	fire: []ruleCase{
		{name: "a timed-out order retried under a new key", obs: newKeyRetry(60, "10.0.0.7", "sha256:aaaa"),
			want: []want{{severity: diagnose.Critical, keys: []string{"k-1", "k-2"}, says: "under 2 different keys", conf: diagnose.Proven}}},
		{name: "three keys, each within the window of the last, no effect lines", obs: []ob{
			server("r1").key("k-1").post().at(0).status(201).fp("sha256:aaaa"),
			server("r2").key("k-2").post().at(300).status(201).fp("sha256:aaaa"),
			server("r3").key("k-3").post().at(590).status(201).fp("sha256:aaaa"),
		}, want: []want{{severity: diagnose.Critical, keys: []string{"k-1", "k-2", "k-3"}, says: "under 3 different keys"}}},
		{name: "only a proxy log: the same client's next write under a new key", obs: []ob{
			proxy("r1").key("k-1").post().from("10.0.0.7").at(0).took(2).status(499).upstream(201).outcome(model.OutcomeClientClosed),
			proxy("r2").key("k-2").post().from("10.0.0.7").at(20).status(201),
		}, want: []want{{severity: diagnose.Warning, keys: []string{"k-1", "k-2"}, says: "likely, not a proven", conf: diagnose.Inferred, lacks: "the payloads"}}},
		// Two result ids are two effects: a fact, said first; only the
		// payloads' being one is likely.
		{name: "no payloads logged, but two result ids after a loss", obs: []ob{
			proxy("r1").key("k-1").post().from("10.0.0.7").at(0).took(2).status(499).upstream(201).outcome(model.OutcomeClientClosed),
			server("r1").key("k-1").post().at(0.01).took(2.5).status(201).result("ch_1"),
			proxy("r2").key("k-2").post().from("10.0.0.7").at(20).took(0.1).status(201),
			server("r2").key("k-2").post().at(20.01).took(0.05).status(201).result("ch_2"),
		}, want: []want{{severity: diagnose.Critical, keys: []string{"k-1", "k-2"}, says: "2 effects: ch_1, ch_2. At "}}},
		{name: "new keys from a counter that ends in 'entry'", obs: []ob{
			server("r1").key("basket-entry-41").post().at(0).status(201).fp("sha256:aaaa"),
			server("r2").key("basket-entry-42").post().at(60).status(201).fp("sha256:aaaa"),
		}, want: []want{{severity: diagnose.Critical, keys: []string{"basket-entry-41", "basket-entry-42"}}}},
		{name: "another client's order of the same payload came in between", obs: append(newKeyRetry(60, "10.0.0.7", "sha256:aaaa"),
			proxy("r9").key("k-9").post().from("10.0.0.9").at(20).status(201),
			server("r9").key("k-9").post().at(20.1).status(201).fp("sha256:aaaa"),
			server("r9").key("k-9").at(20.5).effect("ord_9"),
		), want: []want{{severity: diagnose.Critical, keys: []string{"k-1", "k-2"}, says: "(ord_1, ord_2)"}}},
		{name: "the provider logs its charges, the server only its answers", obs: []ob{
			server("r1").key("k-1").post().at(0).status(201).fp("sha256:aaaa"),
			provider("r1").key("k-1").at(0.2).effect("ch_1"),
			server("r2").key("k-2").post().at(60).status(201).fp("sha256:aaaa"),
			provider("r2").key("k-2").at(60.2).effect("ch_2"),
		}, want: []want{{severity: diagnose.Critical, keys: []string{"k-1", "k-2"}, says: "under 2 different keys"}}},
		// A double charge without a fingerprint: the 504, the same
		// caller, the same route, two result ids first seen, within
		// the retry window though more than a minute apart.
		{name: "a 504, then the same caller's new key five minutes later made a second charge",
			obs: chargeAfter504(300, "10.0.0.7", 504, server("r2").key("k-2").at(300.2).effect("ch_2")),
			want: []want{{severity: diagnose.Critical, keys: []string{"k-1", "k-2"}, says: "2 effects: ch_1, ch_2. At 13:30:00.000Z delivery r1 (key k-1) made its effect, but the proxy timed out waiting for the server",
				conf: diagnose.Inferred, lacks: "the payloads"}}},
		// A line naming the key it retries proves the link: no payload,
		// no caller and no failure needed; the effects count as they are.
		{name: "the new key's line names the old key, each made a charge", obs: []ob{
			server("r1").key("k-1").req("POST", "/pay").at(0).status(201).result("ch_1"),
			server("r2").key("k-2").prev("k-1").req("POST", "/pay").at(3).status(201).result("ch_2"),
		}, want: []want{{severity: diagnose.Critical, keys: []string{"k-1", "k-2"}, says: "named key k-1 as the one it retries (case.jsonl:2): a retry under a new key, as the caller's own line says; the two keys made 2 effects (ch_1, ch_2)", conf: diagnose.Proven}}},
		{name: "the named retry replayed the first charge: no duplicate seen", obs: []ob{
			server("r1").key("k-1").req("POST", "/pay").at(0).status(201).result("ch_1"),
			server("r2").key("k-2").prev("k-1").req("POST", "/pay").at(3).status(201).result("ch_1"),
		}, want: []want{{severity: diagnose.Warning, keys: []string{"k-1", "k-2"}, says: "the logs show 1 effect (ch_1), so no duplicate is seen", conf: diagnose.Proven}}},
		// The inferred case made proven: one finding, by the link.
		{name: "a 504, then a new key whose line names the old one", obs: chargeAfter504(300, "10.0.0.7", 504, server("r2").key("k-2").prev("k-1").at(300.2).effect("ch_2")),
			want: []want{{severity: diagnose.Critical, keys: []string{"k-1", "k-2"}, says: "as the caller's own line says", conf: diagnose.Proven}}},
		// The old key's intent is one plain answered line, which the
		// correlator would only count: naming it builds it.
		{name: "the named key's intent is a plain answer", obs: []ob{
			proxy("r1").key("k-1").req("POST", "/pay").at(0).took(0.1).status(201),
			server("r2").key("k-2").prev("k-1").req("POST", "/pay").at(9).status(201).result("ch_2"),
		}, want: []want{{severity: diagnose.Warning, keys: []string{"k-1", "k-2"}, says: "named key k-1", conf: diagnose.Proven}}},
	},
	quiet: []ruleCase{
		// A line naming its own key is a same-key retry; one naming a
		// key no log holds links to nothing that can be counted.
		{name: "the previous key is the key itself", obs: []ob{
			server("r1").key("k-1").req("POST", "/pay").at(0).status(201).result("ch_1"),
			server("r2").key("k-1").prev("k-1").req("POST", "/pay").at(3).status(201).result("ch_2"),
		}},
		{name: "the previous key is in no log", obs: []ob{
			server("r1").key("k-1").req("POST", "/pay").at(0).status(201).result("ch_1"),
			server("r2").key("k-2").prev("k-0").req("POST", "/pay").at(3).status(201).result("ch_2"),
		}},
		// One field away from a double charge without a fingerprint.
		{name: "no failure before the new key: the 504 was a 201", obs: chargeAfter504(300, "10.0.0.7", 201, server("r2").key("k-2").at(300.2).effect("ch_2"))},
		{name: "the new key came from another caller", obs: chargeAfter504(300, "10.0.0.8", 504, server("r2").key("k-2").at(300.2).effect("ch_2"))},
		{name: "the new key came after the retry window", obs: chargeAfter504(601, "10.0.0.7", 504, server("r2").key("k-2").at(601.2).effect("ch_2"))},
		{name: "the new key's line names the first charge: no second effect", obs: chargeAfter504(300, "10.0.0.7", 504, server("r2").key("k-2").at(300.2).effect("ch_1"))},
		{name: "five minutes later the new key was only answered: no second result id", obs: chargeAfter504(300, "10.0.0.7", 504, server("r2").key("k-2").req("POST", "/pay").at(300.1).status(201))},
		// An effect is a result first seen: the second key's line names
		// the first key's order, as a replay's does, and makes nothing.
		{name: "the second key's effect line names the first key's order", obs: func() []ob {
			obs := newKeyRetry(60, "10.0.0.7", "sha256:aaaa")
			obs[5] = server("r2").key("k-2").at(60.5).effect("ord_1")
			return obs
		}()},
		{name: "the second key came after the retry window", obs: newKeyRetry(601, "10.0.0.7", "sha256:aaaa")},
		// Two clean successes are at most a duplicate submission.
		{name: "every earlier answer reached the client", obs: []ob{
			proxy("r1").key("k-1").post().from("10.0.0.7").at(0).took(0.2).status(201),
			server("r1").key("k-1").post().at(0.01).status(201).fp("sha256:aaaa"),
			server("r1").key("k-1").at(0.1).effect("ord_1"),
			proxy("r2").key("k-2").post().from("10.0.0.7").at(40).took(0.2).status(201),
			server("r2").key("k-2").post().at(40.01).status(201).fp("sha256:aaaa"),
			server("r2").key("k-2").at(40.1).effect("ord_2"),
		}},
		{name: "the second key carried another payload", obs: newKeyRetry(60, "10.0.0.7", "sha256:bbbb")},
		{name: "the second key came from another client", obs: newKeyRetry(60, "10.0.0.8", "sha256:aaaa")},
		{name: "the second key was refused before any effect", obs: []ob{
			server("r1").key("k-1").post().at(0).status(201).fp("sha256:aaaa"),
			server("r1").key("k-1").at(0.5).effect("ord_1"),
			server("r2").key("k-2").post().at(60).status(400).fp("sha256:aaaa"),
		}},
		{name: "only a proxy log: the next write came after a minute", obs: []ob{
			proxy("r1").key("k-1").post().from("10.0.0.7").at(0).took(2).status(499).upstream(201).outcome(model.OutcomeClientClosed),
			proxy("r2").key("k-2").post().from("10.0.0.7").at(62).status(201),
		}},
	},
}
