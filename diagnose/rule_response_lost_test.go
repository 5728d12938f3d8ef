package diagnose_test

import (
	"github.com/idem-cli/idem/diagnose"
	"github.com/idem-cli/idem/model"
)

var responseLostCases = ruleCases{
	rule: "response-lost",
	fire: []ruleCase{
		// No tier logged the loss: the resend of the key after the
		// proxy's 201 says the caller never got it.
		{name: "the proxy logged 201 after 2.3s, the same key came again 1.2s later", obs: answeredThenResent(),
			want: []want{{severity: diagnose.Info, keys: []string{"k-1"}, conf: diagnose.Inferred, lacks: "the caller's own log of the answer",
				says: "the proxy logged 201 at 13:30:02.300Z; then delivery r2 carried the same key 1.2s later (case.jsonl:3), and the answer took 2.3s"}}},
		{name: "the server alone logged 201, then the key again, and a second effect", obs: []ob{
			server("r1").key("k-1").post().at(0).took(0.3).status(201).effect("ord_1"),
			server("r2").key("k-1").post().at(5).took(0.3).status(201).effect("ord_2").marked("x-stainless-retry-count: 1"),
		}, want: []want{{severity: diagnose.Warning, keys: []string{"k-1"}, conf: diagnose.Inferred, says: "the server logged 201"}}},
		{name: "the proxy gave up after the server committed", obs: []ob{
			proxy("r1").key("k-1").post().at(0).took(30).status(504).outcome(model.OutcomeUpstreamTimeout),
			server("r1").key("k-1").post().at(0.1).status(201),
			server("r1").key("k-1").at(0.5).effect("ord_1"),
		}, want: []want{{severity: diagnose.Warning, keys: []string{"k-1"}, says: "no retry with the same key followed"}}},
		{name: "a retry with the key got the stored result", obs: []ob{
			proxy("r1").key("k-1").post().at(0).took(30).status(504).outcome(model.OutcomeUpstreamTimeout),
			server("r1").key("k-1").post().at(0.1).status(201),
			server("r1").key("k-1").at(0.5).effect("ord_1"),
			proxy("r2").key("k-1").post().at(40).status(201),
			server("r2").key("k-1").post().at(40.1).status(201).decision("replay").result("ord_1"),
		}, want: []want{{severity: diagnose.Info, keys: []string{"k-1"}, says: "got the stored result (201, ord_1), so the contract held."}}},
		// The same-key retry got the stored result, but the caller also
		// retried under a new key: the intent is part of a duplicate, and
		// the loss no longer counts as recovered.
		{name: "a stored result, and a second effect under a new key", obs: []ob{
			proxy("r1").key("k-1").post().from("10.0.0.7").at(0).took(2).status(499).upstream(201).outcome(model.OutcomeClientClosed),
			server("r1").key("k-1").post().at(0.01).took(2.5).status(201).result("ch_1"),
			proxy("r2").key("k-1").post().from("10.0.0.7").at(3).took(0.1).status(201),
			server("r2").key("k-1").post().at(3.01).took(0.05).status(201).result("ch_1").replayed(),
			proxy("r3").key("k-2").post().from("10.0.0.7").at(4).took(0.1).status(201),
			server("r3").key("k-2").post().at(4.01).took(0.05).status(201).result("ch_2"),
		}, want: []want{{severity: diagnose.Warning, keys: []string{"k-1"}, says: "got the stored result (201, ch_1). This key made one effect, but a retry under another key made another: a duplicate (retry-new-key)."}}},
		{name: "nginx logged the server's 201 behind its 499", obs: []ob{
			proxy("r1").key("k-1").post().at(0).took(2).status(499).upstream(201).outcome(model.OutcomeClientClosed),
		}, want: []want{{severity: diagnose.Warning, keys: []string{"k-1"}, says: "the proxy logged the server's 201"}}},
		{name: "the browser timed out while the server answered 201", obs: []ob{
			client("r1").key("k-1").post().at(0).took(2).outcome(model.OutcomeTimeout),
			server("r1").key("k-1").post().at(0.1).took(3).status(201),
		}, want: []want{{severity: diagnose.Warning, keys: []string{"k-1"}, says: "the client gave up after 2s"}}},
		{name: "a retry resent the request id and got 201: one delivery, two trips", obs: []ob{
			proxy("r1").key("k-1").post().at(0).took(0.4).outcome(model.OutcomeClientClosed),
			server("r1").key("k-1").post().at(0.1).took(1.5).status(201),
			server("r1").key("k-1").at(0.5).effect("ord_1"),
			proxy("r1").key("k-1").post().at(0.4).took(0.01).status(201),
		}, want: []want{{severity: diagnose.Info, keys: []string{"k-1"}, says: "resending request id r1, got 201"}}},
		{name: "a 2xx under the lost trip's id while it still ran is no retry", obs: []ob{
			proxy("r1").key("k-1").post().at(0).took(0.4).outcome(model.OutcomeClientClosed),
			server("r1").key("k-1").post().at(0.1).took(1.5).status(201),
			server("r1").key("k-1").at(0.5).effect("ord_1"),
			proxy("r1").key("k-1").post().at(0.2).took(0.01).status(201),
		}, want: []want{{severity: diagnose.Warning, keys: []string{"k-1"}, says: "no retry with the same key followed"}}},
		{name: "a retry with the key got 201 and made no effect, where effects are logged", obs: []ob{
			proxy("r1").key("k-1").post().at(0).took(0.4).outcome(model.OutcomeClientClosed),
			server("r1").key("k-1").post().at(0.1).took(1.5).status(201),
			server("r1").key("k-1").at(1.5).effect("ord_1"),
			proxy("r2").key("k-1").post().at(2).status(201),
			server("r2").key("k-1").post().at(2.01).status(201),
		}, want: []want{{severity: diagnose.Info, keys: []string{"k-1"}, says: "got 201 without a second effect"}}},
		{name: "a retry with the key got 201 and made a second effect", obs: []ob{
			proxy("r1").key("k-1").post().at(0).took(0.4).outcome(model.OutcomeClientClosed),
			server("r1").key("k-1").post().at(0.1).took(1.5).status(201),
			server("r1").key("k-1").at(1.5).effect("ord_1"),
			proxy("r2").key("k-1").post().at(2).status(201),
			server("r2").key("k-1").post().at(2.01).status(201),
			server("r2").key("k-1").at(2.02).effect("ord_2"),
		}, want: []want{{severity: diagnose.Warning, keys: []string{"k-1"}, says: "the intent made 2 effects in all"}}},
		{name: "a retry got the stored result, yet the intent made two effects", obs: []ob{
			proxy("r1").key("k-1").post().at(0).took(30).status(504).outcome(model.OutcomeUpstreamTimeout),
			server("r1").key("k-1").post().at(0.1).status(201),
			server("r1").key("k-1").at(0.5).effect("ord_1"),
			proxy("r2").key("k-1").post().at(40).status(201),
			server("r2").key("k-1").post().at(40.1).status(201).decision("replay").result("ord_1"),
			server("r3").key("k-1").post().at(50).status(201),
			server("r3").key("k-1").at(50.5).effect("ord_2"),
		}, want: []want{{severity: diagnose.Warning, keys: []string{"k-1"}, says: "the intent made 2 effects in all (ord_1, ord_2)"}}},
		// The server's own word, with no client or proxy log at all.
		{name: "the server committed, then could not write its response", obs: []ob{
			server("r1").key("k-1").at(0.5).effect("ord_1"),
			server("r1").key("k-1").post().at(0.1).took(0.5).status(201).outcome(model.OutcomeReset).detail("write: broken pipe"),
		}, want: []want{{severity: diagnose.Warning, keys: []string{"k-1"}, says: "but the server dropped its response (write: broken pipe)"}}},
		{name: "the server saw the client go before it wrote, after committing", obs: []ob{
			server("r1").key("k-1").post().at(0.1).outcome(model.OutcomeReset).detail("context canceled"),
			server("r1").key("k-1").at(0.5).effect("ord_1"),
			server("r2").key("k-1").post().at(3).status(201).decision("replay").result("ord_1").replayed(),
		}, want: []want{{severity: diagnose.Info, keys: []string{"k-1"}, says: "the server dropped its response (context canceled)"}}},
	},
	quiet: []ruleCase{
		// One field away from answeredThenResent: what makes a resend
		// no sign of a lost answer.
		{name: "the answer came at once, and the resend carries no retry mark", obs: []ob{
			server("r1").key("k-1").post().at(0).took(0.3).status(201).effect("ord_1"),
			server("r2").key("k-1").post().at(5).took(0.3).status(201).effect("ord_2"),
		}},
		{name: "the client logged the 201 arrive", obs: append(answeredThenResent(),
			client("r1").key("k-1").post().at(0).took(2.3).status(201))},
		{name: "the resend was refused 422", obs: resentWith(func(b ob) ob { return b.status(422) })},
		{name: "the resend carried another payload", obs: []ob{
			proxy("r1").key("k-1").post().at(0).took(2.3).status(201).fp("sha256:aaaa"),
			proxy("r2").key("k-1").post().at(3.5).took(0.02).status(201).fp("sha256:bbbb"),
		}},
		{name: "the resend began before the answer", obs: resentWith(func(b ob) ob { return b.at(2.2) })},
		{name: "the resend came past --retry-window", obs: resentWith(func(b ob) ob { return b.at(3600) })},
		{name: "the first was answered 500", obs: []ob{
			proxy("r1").key("k-1").post().at(0).took(2.3).status(500),
			proxy("r2").key("k-1").post().at(3.5).took(0.02).status(201),
		}},
		{name: "the server could not write its response, and had committed nothing", obs: []ob{
			server("r1").key("k-1").post().at(0.1).outcome(model.OutcomeReset).detail("write: broken pipe"),
		}},
		{name: "the server committed and wrote its response", obs: []ob{
			server("r1").key("k-1").post().at(0.1).took(0.5).status(201),
			server("r1").key("k-1").at(0.5).effect("ord_1"),
		}},
		{name: "another delivery's response was not written", obs: []ob{
			server("r1").key("k-1").post().at(0.1).outcome(model.OutcomeReset).detail("write: broken pipe"),
			server("r2").key("k-1").post().at(3).took(0.5).status(201),
			server("r2").key("k-1").at(3.2).effect("ord_1"),
		}},
		{name: "the server failed, so nothing was committed", obs: []ob{
			proxy("r1").key("k-1").post().at(0).took(30).status(504).outcome(model.OutcomeUpstreamTimeout),
			server("r1").key("k-1").post().at(0.1).status(500),
		}},
		{name: "the response arrived", obs: []ob{
			proxy("r1").key("k-1").post().at(0).took(1).status(201).outcome(model.OutcomeOK),
			server("r1").key("k-1").post().at(0.1).status(201),
			server("r1").key("k-1").at(0.5).effect("ord_1"),
		}},
		{name: "the delivery that lost its response is not the one that committed", obs: []ob{
			proxy("r1").key("k-1").post().at(0).took(30).status(504).outcome(model.OutcomeUpstreamTimeout),
			proxy("r2").key("k-1").post().at(40).status(201),
			server("r2").key("k-1").post().at(40.1).status(201),
			server("r2").key("k-1").at(40.5).effect("ord_1"),
		}},
	},
}

// answeredThenResent is a proxy's 201 to a key, then the key again 1.2 s
// after that answer, with no tier logging a loss.
func answeredThenResent() []ob {
	return []ob{
		proxy("r1").key("k-1").post().at(0).took(2.3).status(201),
		server("r1").key("k-1").post().at(0.01).took(2.25).status(201).effect("ord_1"),
		proxy("r2").key("k-1").post().at(3.5).took(0.02).status(201),
		server("r2").key("k-1").post().at(3.51).took(0.01).status(201).replayed(),
	}
}

// resentWith is answeredThenResent with the resend's proxy line changed.
func resentWith(change func(ob) ob) []ob {
	obs := answeredThenResent()
	obs[2] = change(obs[2])
	return obs[:3]
}
