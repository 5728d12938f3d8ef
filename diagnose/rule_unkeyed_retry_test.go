package diagnose_test

import (
	"github.com/idem-cli/idem/diagnose"
	"github.com/idem-cli/idem/model"
)

// unkeyedTwice is a write without a key whose response was lost (or not,
// as firstStatus and firstOutcome say) and its resend, both run.
func unkeyedTwice(method string, firstStatus int, firstOutcome model.Outcome, resendAt float64, resendFrom string) []ob {
	return []ob{
		proxy("r1").req(method, "/v1/orders").from("10.0.0.7").at(0).took(30).status(firstStatus).outcome(firstOutcome),
		server("r1").req(method, "/v1/orders").at(0.1).status(201).fp("sha256:aaaa"),
		server("r1").at(0.5).effect("ord_1"),
		proxy("r2").req(method, "/v1/orders").from(resendFrom).at(resendAt).took(1).status(201).outcome(model.OutcomeOK),
		server("r2").req(method, "/v1/orders").at(resendAt + 0.1).status(201).fp("sha256:aaaa"),
		server("r2").at(resendAt + 0.5).effect("ord_2"),
	}
}

// unhashedTwice is unkeyedTwice where no tier logged a payload.
func unhashedTwice(firstStatus int, firstOutcome model.Outcome, resendFrom string) []ob {
	obs := unkeyedTwice("POST", firstStatus, firstOutcome, 31, resendFrom)
	for i := range obs {
		obs[i].o.Fingerprint = ""
	}
	return obs
}

var unkeyedRetryCases = ruleCases{
	rule: "unkeyed-retry",
	fire: []ruleCase{
		{name: "no payload logged: the same caller resent after the proxy's 504", obs: unhashedTwice(504, model.OutcomeUpstreamTimeout, "10.0.0.7"),
			want: []want{{severity: diagnose.Critical, keys: []string{"(none)"}, conf: diagnose.Inferred, lacks: "log a body hash",
				says: "POST /v1/orders without an Idempotency-Key was sent 2 times by 10.0.0.7"}}},
		{name: "a POST resent after the proxy gave up", obs: unkeyedTwice("POST", 504, model.OutcomeUpstreamTimeout, 31, "10.0.0.7"),
			want: []want{{severity: diagnose.Critical, keys: []string{"(none)"}, says: "made effects (ord_1, ord_2)"}}},
		{name: "a PATCH resent by the browser, no effect lines", obs: []ob{
			client("r1").req("PATCH", "/v1/profile").at(0).took(2).outcome(model.OutcomeTimeout),
			server("r1").req("PATCH", "/v1/profile").at(0.1).status(200).fp("sha256:aaaa"),
			client("r2").req("PATCH", "/v1/profile").at(3).took(0.2).status(200),
			server("r2").req("PATCH", "/v1/profile").at(3.1).status(200).fp("sha256:aaaa"),
		}, want: []want{{severity: diagnose.Critical, keys: []string{"(none)"}, says: "PATCH /v1/profile without an Idempotency-Key was sent 2 times"}}},
		{name: "another client's write of the same payload came in between", obs: []ob{
			proxy("r1").post().from("10.0.0.7").at(0).took(30).status(504).outcome(model.OutcomeUpstreamTimeout),
			server("r1").post().at(0.1).status(201).fp("sha256:aaaa"),
			server("r1").at(0.5).effect("ord_1"),
			proxy("r9").post().from("10.0.0.9").at(10).took(1).status(201),
			server("r9").post().at(10.1).status(201).fp("sha256:aaaa"),
			server("r9").at(10.5).effect("ord_9"),
			proxy("r2").post().from("10.0.0.7").at(31).took(1).status(201),
			server("r2").post().at(31.1).status(201).fp("sha256:aaaa"),
			server("r2").at(31.5).effect("ord_2"),
		}, want: []want{{severity: diagnose.Critical, keys: []string{"(none)"}, says: "made effects (ord_1, ord_2)"}}},
		{name: "the resend reached only the server, its client unknown", obs: []ob{
			proxy("r1").post().from("10.0.0.7").at(0).took(30).status(504).outcome(model.OutcomeUpstreamTimeout),
			server("r1").post().at(0.1).status(201).fp("sha256:aaaa"),
			server("r1").at(0.5).effect("ord_1"),
			server("r2").post().at(31.1).status(201).fp("sha256:aaaa"),
			server("r2").at(31.5).effect("ord_2"),
		}, want: []want{{severity: diagnose.Critical, keys: []string{"(none)"}, says: "sent 2 times"}}},
	},
	quiet: []ruleCase{
		// No payload logged: one field away from a likely retry.
		{name: "no payload logged: the first response arrived", obs: unhashedTwice(201, model.OutcomeOK, "10.0.0.7")},
		{name: "no payload logged: another caller resent", obs: unhashedTwice(504, model.OutcomeUpstreamTimeout, "10.0.0.8")},
		{name: "no payload logged and no tier says who sent them", obs: func() []ob {
			obs := unhashedTwice(504, model.OutcomeUpstreamTimeout, "")
			obs[0].o.Client = ""
			return obs
		}()},
		{name: "a PUT may be repeated", obs: unkeyedTwice("PUT", 504, model.OutcomeUpstreamTimeout, 31, "10.0.0.7")},
		{name: "the first response arrived", obs: unkeyedTwice("POST", 201, model.OutcomeOK, 31, "10.0.0.7")},
		{name: "the resend came from another client", obs: unkeyedTwice("POST", 504, model.OutcomeUpstreamTimeout, 31, "10.0.0.8")},
		{name: "the resend came after the retry window", obs: unkeyedTwice("POST", 504, model.OutcomeUpstreamTimeout, 601, "10.0.0.7")},
		{name: "only the last of the writes lost its response", obs: []ob{
			proxy("r1").post().from("10.0.0.7").at(0).took(1).status(201),
			server("r1").post().at(0.1).status(201).fp("sha256:aaaa"),
			server("r1").at(0.5).effect("ord_1"),
			proxy("r2").post().from("10.0.0.7").at(31).took(30).status(504).outcome(model.OutcomeUpstreamTimeout),
			server("r2").post().at(31.1).status(201).fp("sha256:aaaa"),
			server("r2").at(31.5).effect("ord_2"),
		}},
	},
}
