package harness

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/idem-cli/idem/diagnose"
	"github.com/idem-cli/idem/internal/kit/capture"
)

// The expectations below come from what the harness sent and how each
// request ended (run.json), read with the thresholds the rules document
// (diagnose.DefaultOptions), never from idem's findings.

// want is one finding a rule must make: the keys of the intents it names
// or, for requests without a key, the request ids it cites.
type want struct {
	rule string
	keys []string // sorted
	rids []string // sorted; unkeyed-retry
	// critical says it must be critical.
	critical bool
	why      string
}

// lost is an end where no answer reached the client.
func lost(e end) bool {
	switch e {
	case EndClientTimeout, endClientAbort, EndUpstreamDrop, endUpstreamTimeout, EndRefused:
		return true
	}
	return false
}

// madeEffect reports whether the backend made an order for s: it reached
// the backend and was not refused by it (a 5xx or a dropped connection
// makes none), and no earlier request of its key had made one (a replay).
func madeEffect(s capture.Sent, before []capture.Sent) bool {
	if !s.Reached || s.HTTPMethod() != "POST" {
		return false
	}
	switch EndOf(s) {
	case EndCreated, EndClientTimeout, endClientAbort, endUpstreamTimeout:
	default:
		return false
	}
	if s.Key == "" {
		return true
	}
	for _, b := range before {
		if b.Key == s.Key && madeEffect(b, nil) {
			return false
		}
	}
	return true
}

func sortedSet(xs []string) []string {
	out := slices.Clone(xs)
	sort.Strings(out)
	return slices.Compact(out)
}

// expectRules derives, for each rule of the run, the findings it must
// make; every other finding of these rules is one it must not make.
func expectRules(run run) []want {
	opts := diagnose.DefaultOptions()
	var out []want
	for _, rule := range run.Rules {
		switch rule {
		case "duplicate-submission", "retry-new-key":
			out = append(out, expectNewKeys(run, rule)...)
		case "unkeyed-retry":
			out = append(out, expectUnkeyed(run, opts)...)
		case "retry-storm":
			order, byKey := capture.ByKey(run.Sent, func(s capture.Sent) string { return s.Key })
			for _, k := range order {
				if k == "" {
					continue
				}
				list := byKey[k]
				span := list[len(list)-1].Start.Sub(list[0].Start)
				if len(list) > opts.RetryBudget || span > opts.Deadline {
					out = append(out, want{rule: rule, keys: []string{k},
						why: fmt.Sprintf("%d requests under one key in %s, budget %d", len(list), span.Round(time.Millisecond), opts.RetryBudget)})
				}
			}
		case "request-id-reused":
			order, byRID := capture.ByKey(run.Sent, func(s capture.Sent) string { return s.RequestID })
			for _, rid := range order {
				var keys []string
				for _, s := range byRID[rid] {
					keys = append(keys, s.Key)
				}
				if ks := sortedSet(keys); len(ks) > 1 {
					out = append(out, want{rule: rule, keys: ks, why: "request id " + rid + " sent with " + strings.Join(ks, " and ")})
				}
			}
		case "external-duplicate":
			calls, effects, order := map[string]int{}, map[string]int{}, []string{}
			for i, s := range run.Sent {
				if s.Key == "" {
					continue
				}
				if _, ok := calls[s.Key]; !ok {
					order = append(order, s.Key)
				}
				calls[s.Key] += s.ProviderCalls
				if madeEffect(s, run.Sent[:i]) {
					effects[s.Key]++
				}
			}
			for _, k := range order {
				if calls[k] >= 2 && effects[k] <= 1 {
					out = append(out, want{rule: rule, keys: []string{k},
						why: fmt.Sprintf("the provider got %d calls for one key, the backend made %d charge", calls[k], effects[k])})
				}
			}
		case "replay-divergence":
			out = append(out, expectReplays(run)...)
		case "payload-mismatch":
			writes := slices.DeleteFunc(slices.Clone(run.Sent), func(s capture.Sent) bool { return s.Key == "" || s.HTTPMethod() == "GET" })
			order, byKey := capture.ByKey(writes, func(s capture.Sent) string { return s.Key })
			for _, k := range order {
				var payloads []string
				for _, s := range byKey[k] {
					payloads = append(payloads, s.Fingerprint())
				}
				if len(sortedSet(payloads)) > 1 {
					out = append(out, want{rule: rule, keys: []string{k}, why: "one key sent with two payloads"})
				}
			}
		case "secret-in-logs":
			// Checked on the inputs, in verifySecrets.
		}
	}
	return out
}

// expectNewKeys groups keyed writes by what a user's action is (method,
// route without its query, payload): two keys of one group within the
// retry window are a retry under a new key when an earlier one's answer
// was lost or a 5xx, and a possible duplicate submission when every
// earlier answer was a success that reached the client.
func expectNewKeys(run run, rule string) []want {
	opts := diagnose.DefaultOptions()
	var effects []capture.Sent
	for i, s := range run.Sent {
		if s.Key != "" && madeEffect(s, run.Sent[:i]) {
			effects = append(effects, s)
		}
	}
	order, groups := capture.ByKey(effects, func(s capture.Sent) string { return s.HTTPMethod() + " " + s.Route() + " " + s.Fingerprint() })
	var out []want
	for _, g := range order {
		list := groups[g]
		if len(list) < 2 || list[len(list)-1].Start.Sub(list[0].Start) > opts.RetryWindow {
			continue
		}
		var keys []string
		failed := false
		for _, s := range list {
			keys = append(keys, s.Key)
		}
		for _, s := range run.Sent {
			if slices.Contains(keys[:len(keys)-1], s.Key) && (lost(EndOf(s)) || s.Status >= 500) {
				failed = true
			}
		}
		switch {
		case rule == "retry-new-key" && failed:
			out = append(out, want{rule: rule, keys: sortedSet(keys), critical: true, why: "a new key after a failure"})
		case rule == "duplicate-submission" && !failed:
			out = append(out, want{rule: rule, keys: sortedSet(keys), why: "two clean successes of one payload under new keys"})
		}
	}
	return out
}

// expectReplays finds, per key, the request that made the order (or
// got the first success) and the later ones answered from it: a replay
// whose status or order id differs from the original's, as the client
// saw them, is a replay divergence.
func expectReplays(run run) []want {
	var out []want
	done := map[string]bool{}
	for i, orig := range run.Sent {
		if orig.Key == "" || done[orig.Key] || !orig.Reached || !(madeEffect(orig, run.Sent[:i]) || orig.Status >= 200 && orig.Status < 300) {
			continue
		}
		done[orig.Key] = true
		for j, s := range run.Sent[i+1:] {
			if s.Key != orig.Key || !s.Reached || s.Status == 0 || s.Status == 409 || s.Status == 429 || madeEffect(s, run.Sent[:i+1+j]) {
				continue
			}
			if s.Status != orig.Status || s.ResultID != "" && orig.ResultID != "" && s.ResultID != orig.ResultID {
				out = append(out, want{rule: "replay-divergence", keys: []string{orig.Key},
					why: fmt.Sprintf("%s got %d %s, its replay %s got %d %s", orig.Step, orig.Status, orig.ResultID, s.Step, s.Status, s.ResultID)})
				break
			}
		}
	}
	return out
}

// expectUnkeyed groups writes without a key by route and payload: a
// group within the retry window where an earlier request's answer was
// lost and two or more made orders is an unkeyed retry.
func expectUnkeyed(run run, opts diagnose.Options) []want {
	posts := slices.DeleteFunc(slices.Clone(run.Sent), func(s capture.Sent) bool { return s.Key != "" || s.HTTPMethod() != "POST" })
	order, groups := capture.ByKey(posts, func(s capture.Sent) string { return s.Route() + " " + s.Fingerprint() })
	var out []want
	for _, g := range order {
		list := groups[g]
		effects, failed := 0, false
		var rids []string
		for i, s := range list {
			rids = append(rids, s.RequestID)
			if madeEffect(s, nil) {
				effects++
			}
			if i < len(list)-1 && lost(EndOf(s)) {
				failed = true
			}
		}
		if failed && effects >= 2 && list[len(list)-1].Start.Sub(list[0].Start) <= opts.RetryWindow {
			out = append(out, want{rule: "unkeyed-retry", rids: sortedSet(rids), why: "an unkeyed write sent again after its answer was lost, two orders made"})
		}
	}
	return out
}

// found is what one finding names, to compare with a want.
func found(f *diagnose.Finding) (keys, rids []string) {
	for _, in := range f.Intents {
		keys = append(keys, in.Key)
	}
	for _, k := range f.Keys {
		if k != "(none)" {
			keys = append(keys, k)
		}
	}
	for _, o := range f.Evidence {
		if o.RequestID != "" {
			rids = append(rids, o.RequestID)
		}
	}
	return sortedSet(keys), sortedSet(rids)
}
