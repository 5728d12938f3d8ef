package diagnose_test

import (
	"github.com/idem-cli/idem/diagnose"
	"github.com/idem-cli/idem/model"
)

// requests are a few answered lines, so that a case has something to read.
var requests = []ob{server("r1").key("k-1").post().at(0).status(201).fp("sha256:aaaa")}

var secretInLogsCases = ruleCases{
	rule: "secret-in-logs",
	fire: []ruleCase{
		{name: "an input logged Authorization headers", obs: requests,
			inputs: []*model.Input{{Path: "app.jsonl", Secrets: map[string]int{"request.headers.authorization": 3}}},
			want:   []want{{severity: diagnose.Warning, input: "app.jsonl", says: "3 secret values in 1 field: request.headers.authorization (3)"}}},
		{name: "two inputs, a finding each", obs: requests,
			inputs: []*model.Input{
				{Path: "nginx.log", Secrets: map[string]int{"cookie": 1}},
				{Path: "app.jsonl", Secrets: map[string]int{"body": 2, "password": 1}},
			},
			want: []want{
				{severity: diagnose.Warning, input: "nginx.log", says: "cookie (1)"},
				{severity: diagnose.Warning, input: "app.jsonl", says: "body (2), password (1)"},
			}},
	},
	quiet: []ruleCase{
		{name: "an input without secrets", obs: requests,
			inputs: []*model.Input{{Path: "app.jsonl", Secrets: map[string]int{}}}},
		{name: "two inputs, neither with secrets", obs: requests,
			inputs: []*model.Input{{Path: "nginx.log"}, {Path: "app.jsonl", Secrets: map[string]int{}}}},
	},
}
