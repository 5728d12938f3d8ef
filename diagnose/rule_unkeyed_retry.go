package diagnose

import (
	"fmt"
	"sort"
	"strconv"

	"github.com/idem-cli/idem/model"
)

var unkeyedRetry = &Rule{
	ID:         "unkeyed-retry",
	Title:      "A write retried without a key",
	Severity:   Critical,
	Symptom:    "A POST or PATCH without an Idempotency-Key was sent again after a failure, and both made an effect.",
	Hypothesis: "The client (or a proxy, or a library) retries non-idempotent requests that carry no key.",
	Check:      "Find who retried: the client's retry policy, the proxy's retry-on (proxy_next_upstream non_idempotent, Envoy retry_on), a library default.",
	Action:     "Send an Idempotency-Key with every write, and do not let proxies retry writes without one.",
	Evidence:   "POST or PATCH deliveries without a key, with one fingerprint, method and route (and client where known), within `--retry-window`, where an earlier one lost its response and two or more made effects. Where no tier logged payloads, the same caller's (an address, a user) unkeyed writes to one method and route stand for one payload: likely, critical still, as two effects are a fact.",
	Proof:      "One fingerprint, method and route without a key, a lost response before, and two or more effects.",
	Inference:  "Where no tier logged the payloads: the same caller (as any tier logs it) sent the same method and route without a key within `--retry-window`, one lost its response and two or more made effects; it lacks the payloads (a body hash would confirm it).",
	Example:    "unkeyed-retry",
	Needs:      []model.Tier{model.TierServer},
	reads:      []requirement{needEffects, either(needPayloads, needCaller), needLossWitness},
	run:        runUnkeyedRetry,
}

func runUnkeyedRetry(c *context) []*Finding {
	groups := map[string][]*model.Delivery{}
	var order []string
	for _, d := range c.set.Unkeyed {
		m := d.Method()
		if m != "POST" && m != "PATCH" {
			continue
		}
		fp := d.Fingerprint()
		if fp == "" {
			// Without a payload fingerprint two writes are not known to
			// be one: where a tier says who sent them, the same caller's
			// writes to one method and route are likely one (unkeyedFinding
			// says so).
			if d.Client() == "" {
				continue
			}
			fp = "\x00" + d.Client()
		}
		sig := m + " " + d.Route() + " " + fp
		if _, ok := groups[sig]; !ok {
			order = append(order, sig)
		}
		groups[sig] = append(groups[sig], d)
	}
	var out []*Finding
	for _, sig := range order {
		list := groups[sig]
		sort.SliceStable(list, func(i, j int) bool { return list[i].Start().Before(list[j].Start()) })
		for _, part := range byClient(list, (*model.Delivery).Client) {
			var cluster []*model.Delivery
			flush := func() {
				if f := unkeyedFinding(c, cluster); f != nil {
					out = append(out, f)
				}
				cluster = nil
			}
			for _, d := range part {
				if len(cluster) > 0 && d.Start().Sub(cluster[len(cluster)-1].Start()) > c.opts.RetryWindow {
					flush()
				}
				cluster = append(cluster, d)
			}
			flush()
		}
	}
	return out
}

// byClient splits a time-ordered list of one signature by who sent each,
// so that another client's request in between does not break one client's
// run of retries. Those of an unknown client go with the only known one,
// or among themselves when several are known, so none is counted twice.
func byClient[T any](list []T, client func(T) string) [][]T {
	var order []string
	parts := map[string][]T{}
	for _, x := range list {
		who := client(x)
		if _, ok := parts[who]; !ok {
			order = append(order, who)
		}
		parts[who] = append(parts[who], x)
	}
	known := len(order)
	if _, ok := parts[""]; ok {
		known--
	}
	if known <= 1 {
		return [][]T{list}
	}
	out := make([][]T, 0, len(order))
	for _, who := range order {
		out = append(out, parts[who])
	}
	return out
}

func unkeyedFinding(c *context, cluster []*model.Delivery) *Finding {
	if len(cluster) < 2 {
		return nil
	}
	var failed *model.Delivery
	var effects []*model.Observation
	effectful := 0
	for i, d := range cluster {
		if failed == nil && i < len(cluster)-1 && d.Lost() != nil {
			failed = d
		}
		if e := c.effects(d); len(e) > 0 {
			effectful++
			effects = append(effects, e...)
		}
	}
	if failed == nil || effectful < 2 {
		return nil
	}
	var ev evidence
	for _, d := range cluster {
		ev.delivery(d)
	}
	d0 := cluster[0]
	if d0.Fingerprint() == "" {
		return &Finding{Severity: Critical, Evidence: ev.sorted(), Keys: []string{"(none)"},
			Confidence: inferred([]string{"same caller " + d0.Client(), "same " + d0.Method() + " " + d0.Route(), "a lost response before", strconv.Itoa(len(uniqueResults(effects))) + " effects"},
				"the payloads (no tier logged them: log a body hash to confirm)"),
			Narrative: fmt.Sprintf("%s %s without an Idempotency-Key was sent %s by %s between %s and %s; after %s, %s made effects (%s). Likely one write retried: no tier logged the payloads, so that they were one is not shown (a body hash would confirm it).",
				d0.Method(), d0.Route(), plural(len(cluster), "time", "times"), d0.Client(), hhmmss(d0.Start()), hhmmss(cluster[len(cluster)-1].Start()),
				describeLoss(failed.Lost()), plural(effectful, "delivery", "deliveries"), resultList(uniqueResults(effects)))}
	}
	return &Finding{Severity: Critical, Evidence: ev.sorted(), Keys: []string{"(none)"},
		Narrative: fmt.Sprintf("%s %s without an Idempotency-Key was sent %s between %s and %s with one payload (fingerprint %s); after %s, %s made effects (%s).",
			d0.Method(), d0.Route(), plural(len(cluster), "time", "times"), hhmmss(d0.Start()), hhmmss(cluster[len(cluster)-1].Start()),
			shortFP(d0.Fingerprint()), describeLoss(failed.Lost()), plural(effectful, "delivery", "deliveries"), resultList(uniqueResults(effects)))}
}
