package diagnose_test

import "github.com/idem-cli/idem/diagnose"

// twoAttempts is an activity's first attempt, its second at 12 s, and the
// first attempt's report at reportAt with detail and message.
func twoAttempts(reportAt float64, activity, detail, message string) []ob {
	return []ob{
		worker("").activity("article-108", "5", 1).key("article-108:r1:publish").at(0).msg("Publishing article"),
		worker("").activity("article-108", "5", 2).key("article-108:r1:publish").at(12).msg("Publishing article"),
		worker("").activity("article-108", activity, 1).key("article-108:r1:publish").at(reportAt).detail(detail).msg(message),
	}
}

var lateCompletionCases = ruleCases{
	rule: "late-completion",
	fire: []ruleCase{
		{name: "the worker says it completed after the timeout",
			obs:  twoAttempts(15.2, "5", "completed after timeout", "Activity complete after timeout."),
			want: []want{{severity: diagnose.Warning, keys: []string{"article-108:r1:publish"}, says: "attempt 1 reported completion after its timeout"}}},
		{name: "the SDK's own line, without an ActivityID, joins its attempt",
			obs: []ob{
				worker("").activity("article-108", "5", 1).key("article-108:r1:publish").at(0).msg("Publishing article"),
				worker("").activity("article-108", "5", 2).key("article-108:r1:publish").at(12).msg("Publishing article"),
				worker("").activity("article-108", "", 1).at(15.2).detail("completed after timeout").msg("Activity complete after timeout."),
			},
			want: []want{{severity: diagnose.Warning, keys: []string{"article-108:r1:publish"}, says: "attempt 1 reported completion after its timeout"}}},
		{name: "the first attempt completed after the second began",
			obs:  twoAttempts(15.2, "5", "", "Publish completed"),
			want: []want{{severity: diagnose.Warning, keys: []string{"article-108:r1:publish"}, says: "after attempt 2 had begun"}}},
	},
	quiet: []ruleCase{
		{name: "the first attempt completed before the second began", obs: twoAttempts(11, "5", "", "Publish completed")},
		{name: "the first attempt reported it was incomplete", obs: twoAttempts(15.2, "5", "", "Publish incomplete")},
		{name: "the late report belongs to another activity", obs: twoAttempts(15.2, "6", "", "Publish completed")},
		{name: "the first attempt reported it failed to complete", obs: twoAttempts(15.2, "5", "", "Activity failed to complete")},
		{name: "the first attempt reported its upload was not complete", obs: twoAttempts(15.2, "5", "", "Publish error: upload not complete")},
	},
}
