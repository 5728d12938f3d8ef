package diagnose

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/idem-cli/idem/model"
)

var attemptScopedKey = &Rule{
	ID:         "attempt-scoped-key",
	Title:      "A key per attempt",
	Severity:   Critical,
	Symptom:    "The keys of one logical operation differ only by an attempt number or a per-attempt id.",
	Hypothesis: "The key is built from the attempt (or run) id, so each retry became a new operation.",
	Check:      "Compare the keys across attempts of one activity (WorkflowID, ActivityID); look for Attempt or a run id inside the key.",
	Action:     "Derive the key from the domain and keep it attempt-free, e.g. submissionId + \":r\" + revision + \":\" + operation.",
	Evidence:   "Keys that differ only by an attempt suffix (`:attempt-2`, `-try3`), or different keys on the attempts of one Temporal activity (WorkflowID + ActivityID).",
	Proof:      "Keys that differ only by an attempt suffix, or different keys on the attempts of one activity.",
	Inference:  "Never: the keys and attempts are logged.",
	Example:    "attempt-scoped-key",
	Needs:      []model.Tier{model.TierWorker},

	run: runAttemptScopedKey,
}

// attemptSuffix matches the part of a key that names an attempt. The word
// starts after a separator (":attempt-2", "-try3") or a camelCase boundary
// ("jobAttempt2", whose last letter before it is kept by ${1}), so that
// "ledger-entry-41" is not entry 41's attempt.
var attemptSuffix = regexp.MustCompile(`(?:[:_./-](?i:attempt|try|retry|att)|([a-z0-9])(?:Attempt|Try|Retry|Att))[:_./-]?\d+$`)

func runAttemptScopedKey(c *context) []*Finding {
	type member struct {
		key     string
		attempt int
		obs     *model.Observation
		intent  *model.Intent
	}
	groups := map[string][]member{}
	var order []string
	add := func(g string, m member) {
		if _, ok := groups[g]; !ok {
			order = append(order, g)
		}
		for _, x := range groups[g] {
			if x.key == m.key {
				return
			}
		}
		groups[g] = append(groups[g], m)
	}
	suffixed := false
	for _, in := range c.set.Built {
		for _, d := range in.Deliveries {
			for _, o := range d.Observations {
				// A key other than the intent's rode on a request id
				// that carried two keys: request-id-reused says so, and
				// this finding would implicate an intent it cannot name.
				if o.Key == "" || o.Key != in.Key {
					continue
				}
				if o.ActivityID() != "" && o.WorkflowID() != "" {
					add("activity "+o.WorkflowID()+"/"+o.ActivityID(), member{o.Key, o.Attempt, o, in})
				}
				if base := stripAttempt(o.Key); base != o.Key && base != "" {
					add("key "+base, member{o.Key, o.Attempt, o, in})
					suffixed = true
				}
			}
		}
	}
	// A client often sends the bare key on the first attempt and adds
	// the suffix on retries: a bare key joins its suffixed keys.
	for i := 0; suffixed && i < len(c.set.Built); i++ {
		in := c.set.Built[i]
		if _, ok := groups["key "+in.Key]; ok {
			if o := firstWithKey(in); o != nil {
				add("key "+in.Key, member{o.Key, o.Attempt, o, in})
			}
		}
	}
	var out []*Finding
	reported := map[string]bool{}
	for _, g := range order {
		ms := groups[g]
		if len(ms) < 2 {
			continue
		}
		sort.SliceStable(ms, func(i, j int) bool { return ms[i].obs.Time.Before(ms[j].obs.Time) })
		var keys []string
		var intents []*model.Intent
		var ev evidence
		var effects []*model.Observation
		for _, m := range ms {
			keys = append(keys, m.key)
			intents = append(intents, m.intent)
			ev.add(m.obs)
			for _, d := range m.intent.Deliveries {
				e := c.effects(d)
				effects = append(effects, e...)
				ev.add(e...)
			}
		}
		id := strings.Join(keys, "\x00")
		if reported[id] {
			continue
		}
		reported[id] = true
		sev := Warning
		if effectCount(effects) > 1 {
			sev = Critical
		}
		what := strings.TrimPrefix(strings.TrimPrefix(g, "activity "), "key ")
		out = append(out, &Finding{Severity: sev, Intents: intents, Keys: keys, Evidence: ev.sorted(),
			Narrative: fmt.Sprintf("One operation (%s) ran under %s, one per attempt (%s), and made %s (%s).",
				what, plural(len(keys), "key", "keys"), strings.Join(keys, ", "), plural(effectCount(effects), "effect", "effects"), resultList(uniqueResults(effects)))})
	}
	return out
}

// firstWithKey is the intent's first observation that carries its key.
func firstWithKey(in *model.Intent) *model.Observation {
	for _, d := range in.Deliveries {
		for _, o := range d.Observations {
			if o.Key == in.Key {
				return o
			}
		}
	}
	return nil
}

// stripAttempt removes an attempt suffix from a key. Most keys have none,
// so a cheap look for "att" or "try" comes before the regular expression.
func stripAttempt(key string) string {
	// Both words hold a t: most keys (UUIDs, hex) have none, and the
	// vectorised search rules them out before the byte-by-byte one.
	if strings.IndexByte(key, 't') < 0 && strings.IndexByte(key, 'T') < 0 {
		return key
	}
	// Lower-casing allocates only for a key with an upper-case letter.
	if lower := strings.ToLower(key); !strings.Contains(lower, "att") && !strings.Contains(lower, "try") {
		return key
	}
	return attemptSuffix.ReplaceAllString(key, "${1}")
}
