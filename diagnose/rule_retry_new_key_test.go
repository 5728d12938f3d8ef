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
	},
	quiet: []ruleCase{
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
