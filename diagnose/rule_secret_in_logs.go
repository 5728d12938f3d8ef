package diagnose

import (
	"fmt"
	"sort"
	"strings"
)

var secretInLogs = &Rule{
	ID:         "secret-in-logs",
	Title:      "Credentials or bodies in the logs",
	Severity:   Warning,
	Hygiene:    true,
	Symptom:    "A log holds Authorization, Cookie, Set-Cookie or API-key values, or whole request bodies.",
	Hypothesis: "Logging captures headers or payloads wholesale; diagnostics have become a leak.",
	Check:      "Review the named fields in the named source; check who can read these logs and for how long they are kept.",
	Action:     "Log only safe fields (time, route, request id, a key hash, decision, state, result id); rotate the exposed credentials.",
	Evidence:   "Per input, the field paths, headers and log_format variables holding a credential, by the one list every output masks by (Authorization, Cookie, Set-Cookie, API keys, tokens, passwords, secrets, sessions, JWTs, signatures such as X-Amz-Signature, one-time codes), or whole request bodies, with counts. Values are never shown.",
	Proof:      "The secret's field and shape in the input.",
	Inference:  "Never: the values are in the file.",
	Example:    "secret-in-logs",
	run:        runSecretInLogs,
}

func runSecretInLogs(c *context) []*Finding {
	var out []*Finding
	for _, in := range c.set.Inputs {
		if len(in.Secrets) == 0 {
			continue
		}
		var fields []string
		total := 0
		for k, n := range in.Secrets {
			fields = append(fields, fmt.Sprintf("%s (%d)", k, n))
			total += n
		}
		sort.Strings(fields)
		out = append(out, &Finding{Severity: Warning, Input: in.Path, Counts: in.Secrets, Keys: []string{},
			Narrative: fmt.Sprintf("%s holds %s in %s: %s. Values are not shown.",
				in.Path, plural(total, "secret value", "secret values"), plural(len(fields), "field", "fields"), strings.Join(fields, ", "))})
	}
	return out
}
