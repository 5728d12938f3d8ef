package diagnose_test

import (
	"github.com/idem-cli/idem/diagnose"
	"github.com/idem-cli/idem/model"
)

var attemptScopedKeyCases = ruleCases{
	rule: "attempt-scoped-key",
	fire: []ruleCase{
		{name: "each attempt of an activity made its own key and receipt", obs: []ob{
			worker("").activity("article-107", "5", 1).key("article-107:r1:publish:attempt-1").at(0).effect("rcpt_A"),
			worker("").activity("article-107", "5", 2).key("article-107:r1:publish:attempt-2").at(30).effect("rcpt_B"),
		}, want: []want{{severity: diagnose.Critical, keys: []string{"article-107:r1:publish:attempt-1", "article-107:r1:publish:attempt-2"},
			says: "one per attempt"}}},
		{name: "keys with a try suffix at the server, one effect", obs: []ob{
			server("r1").key("sub-9-try1").post().at(0).status(201),
			server("r1").key("sub-9-try1").at(0.1).effect("ord_1"),
			server("r2").key("sub-9-try2").post().at(5).status(500),
		}, want: []want{{severity: diagnose.Warning, keys: []string{"sub-9-try1", "sub-9-try2"}, says: "made 1 effect"}}},
		{name: "an activity's attempts under unrelated keys", obs: []ob{
			worker("").activity("article-107", "5", 1).key("run-5a4d:publish").at(0).effect("rcpt_A"),
			worker("").activity("article-107", "5", 2).key("run-77e1:publish").at(30).effect("rcpt_B"),
		}, want: []want{{severity: diagnose.Critical, keys: []string{"run-5a4d:publish", "run-77e1:publish"}, says: "(article-107/5)"}}},
		{name: "a camelCase attempt suffix", obs: []ob{
			server("r1").key("sendMailAttempt1").post().at(0).status(202),
			server("r1").key("sendMailAttempt1").at(0.1).effect("mail_1"),
			server("r2").key("sendMailAttempt2").post().at(5).status(202),
			server("r2").key("sendMailAttempt2").at(5.1).effect("mail_2"),
		}, want: []want{{severity: diagnose.Critical, keys: []string{"sendMailAttempt1", "sendMailAttempt2"}, says: "One operation (sendMail)"}}},
		{name: "the first attempt's key has no suffix, the retry's has one", obs: []ob{
			proxy("r1").key("sub-9:publish").post().at(0).took(30).status(504).outcome(model.OutcomeUpstreamTimeout),
			server("r1").key("sub-9:publish").post().at(0.1).status(201),
			server("r1").key("sub-9:publish").at(0.5).effect("rcpt_A"),
			server("r2").key("sub-9:publish:attempt-2").post().at(31).status(201),
			server("r2").key("sub-9:publish:attempt-2").at(31.5).effect("rcpt_B"),
		}, want: []want{{severity: diagnose.Critical, keys: []string{"sub-9:publish", "sub-9:publish:attempt-2"}, says: "One operation (sub-9:publish)"}}},
	},
	quiet: []ruleCase{
		{name: "two activities of one workflow, a key each", obs: []ob{
			worker("").activity("article-107", "5", 1).key("article-107:r1:publish").at(0).effect("rcpt_A"),
			worker("").activity("article-107", "6", 1).key("article-107:r1:notify").at(30).effect("mail_A"),
		}},
		{name: "two attempts of an activity under one attempt-free key", obs: []ob{
			worker("").activity("article-107", "5", 1).key("article-107:r1:publish").at(0),
			worker("").activity("article-107", "5", 2).key("article-107:r1:publish").at(30).effect("rcpt_A"),
		}},
		{name: "keys ending in a word that holds 'try' are not attempts", obs: []ob{
			server("r1").key("ledger-entry-41").post().at(0).status(201),
			server("r1").key("ledger-entry-41").at(0.1).effect("ent_41"),
			server("r2").key("ledger-entry-42").post().at(5).status(201),
			server("r2").key("ledger-entry-42").at(5.1).effect("ent_42"),
		}},
		{name: "a suffixed key rode on a request id that carried another key first", obs: []ob{
			server("r1").key("k-2").post().at(0).status(409).decision("in_progress"),
			server("r1").key("k-1-try3").post().at(0.1).status(409).decision("in_progress"),
			server("r2").key("k-1:attempt-2").post().at(5).status(409).decision("in_progress"),
		}},
	},
}
