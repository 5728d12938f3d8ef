package diagnose

import (
	"fmt"
	"sort"
	"strings"

	"github.com/idem-cli/idem/model"
)

var lateCompletion = &Rule{
	ID:         "late-completion",
	Title:      "An activity finished after its timeout",
	Severity:   Warning,
	Symptom:    "A worker reported completion after its timeout, or after a newer attempt of the same activity began.",
	Hypothesis: "The attempt did its external work, lost its lease, and reported late; the engine already retried it.",
	Check:      "Compare the late attempt's completion with the next attempt's start; look for the external effect of both.",
	Action:     "Make the activity's external call idempotent with an attempt-free key; keep side effects out of workflow code.",
	Evidence:   "A worker line `Activity complete after timeout.`, or an activity attempt that reported completion after the next attempt had begun.",
	Proof:      "The worker's own completion after timeout, or an attempt's completion after the next began.",
	Inference:  "Never: the worker's lines say it.",
	Example:    "late-completion",
	Needs:      []model.Tier{model.TierWorker},

	run: runLateCompletion,
}

func runLateCompletion(c *context) []*Finding {
	type attempt struct {
		n     int
		first *model.Observation
		done  *model.Observation
	}
	byActivity := map[string]map[int]*attempt{}
	var order []string
	keyOf := map[string][]*model.Intent{}
	var late []*model.Observation
	for _, in := range c.set.Built {
		for _, d := range in.Deliveries {
			for _, o := range d.Observations {
				if o.ActivityID() != "" {
					keyOf[o.WorkflowID()+"/"+o.ActivityID()] = appendIntent(keyOf[o.WorkflowID()+"/"+o.ActivityID()], in)
				}
			}
		}
	}
	for d := range allDeliveries(c.set) {
		for _, o := range d.Observations {
			if o.Tier != model.TierWorker || o.ActivityID() == "" {
				continue
			}
			if o.Detail == "completed after timeout" {
				late = append(late, o)
			}
			id := o.WorkflowID() + "/" + o.ActivityID()
			m := byActivity[id]
			if m == nil {
				m = map[int]*attempt{}
				byActivity[id] = m
				order = append(order, id)
			}
			a := m[o.Attempt]
			if a == nil {
				a = &attempt{n: o.Attempt}
				m[o.Attempt] = a
			}
			if a.first == nil || o.Time.Before(a.first.Time) {
				a.first = o
			}
			if isCompletion(o.Message) && (a.done == nil || o.Time.After(a.done.Time)) {
				a.done = o
			}
		}
	}
	var out []*Finding
	reported := map[string]bool{}
	for _, o := range late {
		id := o.WorkflowID() + "/" + o.ActivityID()
		if reported[id] {
			continue
		}
		reported[id] = true
		var ev evidence
		ev.add(o)
		out = append(out, &Finding{Severity: Warning, Intents: keyOf[id], Evidence: ev.sorted(),
			Narrative: fmt.Sprintf("Activity %s (%s) attempt %d reported completion after its timeout at %s (%q); a newer attempt may have run the same work.",
				id, o.ActivityType(), o.Attempt, hhmmss(o.Time), o.Message)})
	}
	for _, id := range order {
		if reported[id] {
			continue
		}
		var attempts []*attempt
		for _, a := range byActivity[id] {
			attempts = append(attempts, a)
		}
		sort.Slice(attempts, func(i, j int) bool { return attempts[i].n < attempts[j].n })
		for i := 0; i+1 < len(attempts); i++ {
			a, next := attempts[i], attempts[i+1]
			if a.done != nil && next.first != nil && a.done.Time.After(next.first.Time) {
				reported[id] = true
				var ev evidence
				ev.add(next.first, a.done)
				out = append(out, &Finding{Severity: Warning, Intents: keyOf[id], Evidence: ev.sorted(),
					Narrative: fmt.Sprintf("Activity %s attempt %d completed at %s, after attempt %d had begun at %s: both attempts may have done the work.",
						id, a.n, hhmmss(a.done.Time), next.n, hhmmss(next.first.Time))})
				break
			}
		}
	}
	return out
}

// notCompleted are words that turn a message about completing into one
// about failing to ("failed to complete", "not complete").
var notCompleted = []string{"incomplete", "fail", "error", "not complete", "n't complete", "never complete"}

func isCompletion(msg string) bool {
	m := strings.ToLower(msg)
	if !strings.Contains(m, "complete") {
		return false
	}
	for _, w := range notCompleted {
		if strings.Contains(m, w) {
			return false
		}
	}
	return true
}

func appendIntent(list []*model.Intent, in *model.Intent) []*model.Intent {
	for _, x := range list {
		if x == in {
			return list
		}
	}
	return append(list, in)
}
