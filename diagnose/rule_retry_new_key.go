package diagnose

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/idem-cli/idem/model"
)

var retryNewKey = &Rule{
	ID:         "retry-new-key",
	Title:      "Retry under a new key",
	Severity:   Critical,
	Symptom:    "Two records appeared after a timeout: the same payload, under different keys.",
	Hypothesis: "The retry did not carry the first attempt's Idempotency-Key, so the server saw a new intent.",
	Check:      "Compare the keys, fingerprints and effect records of the intents; find where the client makes its key.",
	Action:     "Stop blind retries; create the key once per user action, before the first attempt, and reuse it on every retry.",
	Evidence:   "Two or more intents under different keys whose deliveries share a payload fingerprint (compared within one tier), method and route, from the same client where known, starting within `--retry-window`, each with an effect. Where no tier logged payloads: a failure the caller saw (a proxy's 502/504/499, a client timeout or reset, the server's write error) on a delivery that made its effect or got a 2xx, then the same client's write (an address, user or customer id, as any tier logs it) to the same method and route under a new key: critical when the two made two result ids, each first seen under its key, within `--retry-window` (two effects are a fact, said first; only the payloads' being one is likely), a warning when the new key was only answered, within a minute. A same-key retry's recovery of the first key is then not told as the contract holding. Where a line under the new key names the old one as the key it retries (`previous_key`, `previousKey`, `retry_of`, `original_idempotency_key`, at any depth), that is the link itself, whatever the payloads, caller or failure: critical where the two keys made two result ids, a warning where the logs show fewer.",
	Proof:      "One payload's fingerprint under two or more keys, each with an effect, after a failure some tier outside the server logged; or a line under the new key naming the old key as the one it retries (the link is proven; the effects count as the logs show them).",
	Inference:  "Where no tier logged the payloads: a failure the caller saw, then the same caller's write to the same method and route under a new key (two result ids first seen within `--retry-window`, or an answer within a minute); it lacks the payloads. Also where no tier outside the server shows the first answer failing.",
	Example:    "retry-new-key",
	Needs:      []model.Tier{model.TierServer},
	reads:      []requirement{needKeys, needEffects, either(needPayloads, either(needLikelyRetry, needRetryLink))},
	run:        runRetryNewKey,
}

// intentSignature is what makes two intents look like one user's action:
// the same method, route and payload fingerprint (at one tier).
func intentSignatures(in *model.Intent) []string {
	var sigs []string
	for _, d := range in.Deliveries {
		for tier, fp := range d.Fingerprints() {
			s := d.Method() + " " + d.Route() + " " + tier.String() + " " + fp
			if !slices.Contains(sigs, s) {
				sigs = append(sigs, s)
			}
		}
	}
	sort.Strings(sigs)
	return sigs
}

func runRetryNewKey(c *context) []*Finding { return c.newKeyFindings() }

// findNewKey is retry-new-key's work: the clusters of one payload under
// several keys, then the likely ones where no payload was logged.
func findNewKey(c *context) (out []*Finding) {
	reported := map[string]bool{}
	// A line naming the key it retries proves the link: said first, and
	// the same pair is not told again as a payload's or a caller's match.
	out = linkedNewKey(c, reported)
	defer func() { out = append(out, likelyNewKey(c, reported)...) }()
	for _, cl := range newKeyClusters(c) {
		if reported[cl.id] {
			continue
		}
		reported[cl.id] = true
		if cl.failed != nil {
			out = append(out, newKeyFinding(c, cl.intents, cl.failed))
		}
	}
	return out
}

// newKeyCluster is one client's intents under different keys with one
// payload, each with an effect, within the retry window; failed is the
// first delivery of an earlier one whose outcome was a failure or is not
// known, before the last began (nil when every earlier answer was seen to
// arrive).
type newKeyCluster struct {
	id      string
	intents []*model.Intent
	failed  *model.Delivery
}

func newKeyClusters(c *context) []newKeyCluster {
	groups := map[string][]*model.Intent{}
	var order []string
	for _, in := range c.set.Built {
		effectful := false
		for _, d := range in.Deliveries {
			if len(c.effects(d)) > 0 {
				effectful = true
			}
		}
		if !effectful {
			continue
		}
		for _, s := range intentSignatures(in) {
			if _, ok := groups[s]; !ok {
				order = append(order, s)
			}
			groups[s] = append(groups[s], in)
		}
	}
	seen := map[string]bool{}
	var out []newKeyCluster
	for _, sig := range order {
		list := groups[sig]
		if len(list) < 2 {
			continue
		}
		for _, cluster := range clusterIntents(list, c.opts) {
			var keys []string
			for _, in := range cluster {
				keys = append(keys, in.Key)
			}
			id := strings.Join(keys, "\x00")
			if seen[id] || attemptScoped(cluster) {
				continue
			}
			seen[id] = true
			out = append(out, newKeyCluster{id: id, intents: cluster, failed: failureBefore(cluster)})
		}
	}
	return out
}

// failureBefore finds the first delivery, of an intent before the
// cluster's last, whose answer did not reach the caller or is not known
// to have: a loss (timeout, reset, 499, an aborted request), a 5xx at the
// edge, or no tier outside the server logging it at all.
func failureBefore(cluster []*model.Intent) *model.Delivery {
	last := cluster[len(cluster)-1].Start()
	for _, in := range cluster[:len(cluster)-1] {
		for _, d := range in.Deliveries {
			if !d.Start().Before(last) {
				continue
			}
			e := d.Edge()
			switch {
			case d.Lost() != nil, e == nil, e.Tier >= model.TierServer, e.Status >= 500, e.Status == 0:
				return d
			}
		}
	}
	return nil
}

// clusterIntents splits intents (sorted by start) by client, then into
// runs whose neighbours start within the retry window.
func clusterIntents(list []*model.Intent, opts Options) [][]*model.Intent {
	sort.SliceStable(list, func(i, j int) bool { return list[i].Start().Before(list[j].Start()) })
	var out [][]*model.Intent
	for _, part := range byClient(list, intentClient) {
		var cur []*model.Intent
		for _, in := range part {
			if len(cur) > 0 && in.Start().Sub(cur[len(cur)-1].Start()) > opts.RetryWindow {
				if len(cur) > 1 {
					out = append(out, cur)
				}
				cur = nil
			}
			cur = append(cur, in)
		}
		if len(cur) > 1 {
			out = append(out, cur)
		}
	}
	return out
}

func intentClient(in *model.Intent) string {
	for _, d := range in.Deliveries {
		if c := d.Client(); c != "" {
			return c
		}
	}
	return ""
}

func newKeyFinding(c *context, cluster []*model.Intent, failed *model.Delivery) *Finding {
	var ev evidence
	var effects []*model.Observation
	for _, in := range cluster {
		for _, d := range in.Deliveries {
			e := c.effects(d)
			effects = append(effects, e...)
			ev.add(d.Edge())
			ev.add(d.Lost())
			ev.add(e...)
		}
	}
	first := cluster[0]
	d0 := first.Deliveries[0]
	n := fmt.Sprintf("Between %s and %s the same %s %s payload (fingerprint %s) arrived under %s (%s) and made %s (%s)",
		hhmmss(first.Start()), hhmmss(cluster[len(cluster)-1].Start()), d0.Method(), d0.Route(), shortFP(clusterFingerprint(cluster)),
		plural(len(cluster), "key", "different keys"), joinKeys(cluster), plural(effectCount(effects), "effect", "effects"), resultList(uniqueResults(effects)))
	conf := Confidence{Level: Proven, RestsOn: []string{"one payload's fingerprint under " + plural(len(cluster), "key", "keys"), plural(effectCount(effects), "effect", "effects")}}
	switch {
	case failed.Lost() != nil:
		n += fmt.Sprintf("; the first failure was delivery %s, where %s", failed.RequestID, describeLoss(failed.Lost()))
		conf.RestsOn = append(conf.RestsOn, "the failure before the retry")
	case failed.Edge() != nil && failed.Edge().Status >= 500:
		n += fmt.Sprintf("; delivery %s was answered %d first", failed.RequestID, failed.Edge().Status)
		conf.RestsOn = append(conf.RestsOn, fmt.Sprintf("the %d before the retry", failed.Edge().Status))
	default:
		n += fmt.Sprintf("; no log outside the server shows whether delivery %s's answer reached the caller", failed.RequestID)
		// That the caller retried because it saw a failure is read from
		// the payload alone.
		conf = inferred(conf.RestsOn, "a tier outside the server showing the first answer failed")
	}
	return &Finding{Severity: Critical, Intents: cluster, Narrative: n + ".", Evidence: ev.sorted(), Confidence: conf}
}

func joinKeys(list []*model.Intent) string {
	var keys []string
	for _, in := range list {
		keys = append(keys, in.Key)
	}
	return strings.Join(keys, ", ")
}

// clusterFingerprint is the payload's fingerprint the intents were
// matched on: the first delivery that carries one, since the first
// delivery of all (a 502 that never reached the server) may not.
func clusterFingerprint(cluster []*model.Intent) string {
	for _, in := range cluster {
		for _, d := range in.Deliveries {
			if fp := d.Fingerprint(); fp != "" {
				return fp
			}
		}
	}
	return ""
}

// shortFP shortens a fingerprint for narratives.
func shortFP(fp string) string {
	if fp == "" {
		return "unknown"
	}
	if i := strings.IndexByte(fp, ':'); i >= 0 && len(fp) > i+13 {
		return fp[:i+13]
	}
	return fp
}

// attemptScoped reports whether the intents are the attempts of one
// operation with attempt-scoped keys: attempt-scoped-key explains them.
func attemptScoped(cluster []*model.Intent) bool {
	bases := map[string]bool{}
	activities := map[string]bool{}
	for _, in := range cluster {
		bases[stripAttempt(in.Key)] = true
		for _, d := range in.Deliveries {
			for _, o := range d.Observations {
				if o.ActivityID() != "" {
					activities[o.WorkflowID()+"/"+o.ActivityID()] = true
				}
			}
		}
	}
	return len(bases) == 1 || len(activities) == 1
}

// likelyWindow is how soon a new key from the same client counts as a
// likely retry when payloads cannot be compared.
const likelyWindow = time.Minute

// likelyNewKey finds retries under a new key where no tier logged a payload
// fingerprint (a proxy log alone): a delivery whose response was lost after
// the server answered 2xx, then, within a minute, a delivery from the same
// client to the same method and route under another key that the server
// also answered 2xx. The payloads cannot be compared, so this is a warning.
func likelyNewKey(c *context, reported map[string]bool) []*Finding {
	type origin struct {
		in    *model.Intent
		d     *model.Delivery
		when  time.Time
		first int32 // the first candidate of its signature
	}
	hasFP := func(in *model.Intent) bool {
		for _, d := range in.Deliveries {
			if d.Fingerprint() != "" {
				return true
			}
		}
		return false
	}
	var lost []origin
	// The intents of each signature, in order, as a chain through after
	// from the chain's first (which never changes, so each origin keeps
	// it): no slice for each of a hundred thousand signatures, and no
	// second look-up for an origin. The map is made at its largest size.
	type chain struct{ first, last int32 }
	bySig := make(map[clientRoute]chain, len(c.set.Built))
	cands := make([]*model.Intent, 0, len(c.set.Built))
	after := make([]int32, 0, len(c.set.Built))
	for _, in := range c.set.Built {
		if hasFP(in) {
			continue
		}
		d0 := in.Deliveries[0]
		if d0.Client() == "" {
			continue
		}
		sig := newClientRoute(d0.Client(), d0.Method(), d0.Route())
		i := int32(len(cands))
		cands, after = append(cands, in), append(after, -1)
		ch, ok := bySig[sig]
		if ok {
			after[ch.last] = i
			ch.last = i
		} else {
			ch = chain{i, i}
		}
		bySig[sig] = ch
		for _, d := range in.Deliveries {
			// A failure the caller saw (a timeout, a reset, a 502 or
			// 504 at the proxy, the server's write error) after the
			// server answered or made its effect.
			if d.Lost() != nil && (serverSuccess(d) != nil || len(c.effects(d)) > 0) && model.IsWrite(d.Method()) {
				lost = append(lost, origin{in: in, d: d, when: d.Start(), first: ch.first})
				break
			}
		}
	}
	var out []*Finding
	var n []byte // reused: each finding keeps a string of it
	for _, o := range lost {
		for i := o.first; i >= 0; i = after[i] {
			next := cands[i]
			start := next.Start()
			if next == o.in || !start.After(o.when) || start.Sub(o.when) > c.opts.RetryWindow {
				continue
			}
			nd := next.Deliveries[0]
			// Two result ids, each first seen under its key, are a
			// second run within the caller's retry horizon; a mere
			// answer is a likely retry within a minute only.
			effects := append(intentEffects(c, o.in), intentEffects(c, next)...)
			results := uniqueResults(effects)
			proven := len(results) >= 2
			if !proven && (start.Sub(o.when) > likelyWindow || serverSuccess(nd) == nil && (edgeResponse(nd) == nil || edgeResponse(nd).Status >= 300)) {
				continue
			}
			id := o.in.Key + "\x00" + next.Key
			if reported[id] {
				continue
			}
			reported[id] = true
			var ev evidence
			ev.delivery(o.d)
			ev.delivery(nd)
			// Two result ids are two effects: a fact, whatever the
			// payloads. What the logs cannot show is that the payloads
			// were one.
			n = n[:0]
			if proven {
				n = strconv.AppendInt(n, int64(len(results)), 10)
				n = append(n, " effects: "...)
				n = appendResults(n, results)
				n = append(n, ". "...)
			}
			n = append(n, "At "...)
			n = appendHHMMSS(n, o.when)
			n = append(n, " delivery "...)
			n = append(n, o.d.RequestID...)
			n = append(n, " (key "...)
			n = append(n, o.in.Key...)
			if serverSuccess(o.d) != nil {
				n = append(n, ") lost its response after the server answered, and "...)
			} else {
				n = append(n, ") made its effect, but "...)
				n = append(n, describeLoss(o.d.Lost())...)
				n = append(n, ", and "...)
			}
			n = append(n, gapText(start.Sub(o.when), c.coarse(o.d.Edge(), nd.Edge()))...)
			n = append(n, " the same client "...)
			n = append(n, o.d.Client()...)
			n = append(n, " sent "...)
			n = append(n, nd.Method()...)
			n = append(n, ' ')
			n = append(n, nd.Route()...)
			n = append(n, " under a new key "...)
			n = append(n, next.Key...)
			sev := Warning
			if proven {
				sev = Critical
				n = append(n, ", which made another effect; no tier logged the payloads, so that the two were one payload is likely, not shown."...)
			} else {
				n = append(n, ", which the server answered too; no tier logged the payloads, so this is a likely, not a proven, retry under a new key."...)
			}
			rests := []string{"same client " + o.d.Client(), "same " + nd.Method() + " " + nd.Route(), gapSpan(start.Sub(o.when), c.coarse(o.d.Edge(), nd.Edge())) + " after the lost response"}
			if proven {
				rests = append(rests, strconv.Itoa(len(results))+" result ids first seen")
			}
			out = append(out, &Finding{Severity: sev, Intents: []*model.Intent{o.in, next}, Narrative: string(n), Evidence: ev.sorted(),
				Confidence: inferred(rests, "the payloads (no tier logged them)")})
			break
		}
	}
	return out
}

// intentEffects are the new effects of an intent's deliveries.
func intentEffects(c *context, in *model.Intent) []*model.Observation {
	var out []*model.Observation
	for _, d := range in.Deliveries {
		out = append(out, c.effects(d)...)
	}
	return out
}

// clientRoute groups intents as the string client+" "+method+" "+route
// would, without making that string for every intent: two triples whose
// strings are equal split alike at the string's first two spaces.
type clientRoute struct{ client, method, route string }

func newClientRoute(client, method, route string) clientRoute {
	if strings.IndexByte(client, ' ') < 0 && strings.IndexByte(method, ' ') < 0 {
		return clientRoute{client, method, route}
	}
	s := client + " " + method + " " + route
	client, s, _ = strings.Cut(s, " ")
	method, route, _ = strings.Cut(s, " ")
	return clientRoute{client, method, route}
}

// needRetryLink is a line naming the key its send retries: the link
// retry-new-key otherwise infers, proven by the caller's own word.
var needRetryLink = requirement{
	what: "a line naming the key its send retries (previous_key, retry_of, original_idempotency_key)",
	met:  func(s *model.Set) bool { return s.Supplied(model.TierUnknown, model.FieldPreviousKey) },
}

// linkedNewKey finds the retries a line says are retries: a delivery under
// one key whose line names another key as the one it retries
// (Observation.PreviousKey), both keys' intents in the logs. The link is
// proven; the effects are counted as they are, each result id once: a
// critical finding where the two keys made two, a warning where the logs
// show fewer (the retry under a new key was made, its duplicate not seen).
func linkedNewKey(c *context, reported map[string]bool) []*Finding {
	byKey := map[string][]*model.Intent{}
	for _, in := range c.set.Built {
		byKey[in.Key] = append(byKey[in.Key], in)
	}
	var out []*Finding
	for _, in := range c.set.Built {
		for _, d := range in.Deliveries {
			for _, o := range d.Observations {
				if o.PreviousKey == "" || o.PreviousKey == in.Key {
					continue
				}
				prev := earlierIntent(byKey[o.PreviousKey], in)
				if prev == nil {
					continue // the named key is not in the logs: nothing to count
				}
				id := prev.Key + "\x00" + in.Key
				if reported[id] {
					continue
				}
				reported[id] = true
				out = append(out, linkFinding(c, prev, in, o))
			}
		}
	}
	return out
}

// earlierIntent is the intent of list that started last before in did
// (the first of list where none did).
func earlierIntent(list []*model.Intent, in *model.Intent) *model.Intent {
	var found *model.Intent
	for _, p := range list {
		if p == in {
			continue
		}
		if found == nil || !p.Start().After(in.Start()) && p.Start().After(found.Start()) {
			found = p
		}
	}
	return found
}

func linkFinding(c *context, prev, next *model.Intent, link *model.Observation) *Finding {
	var ev evidence
	ev.add(link)
	for _, in := range []*model.Intent{prev, next} {
		for _, d := range in.Deliveries {
			ev.add(d.Edge(), d.Lost())
			ev.add(c.effects(d)...)
		}
	}
	effects := append(intentEffects(c, prev), intentEffects(c, next)...)
	results := uniqueResults(effects)
	n := effectCount(effects)
	var b strings.Builder
	fmt.Fprintf(&b, "At %s a %s %s under key %s named key %s as the one it retries (%s): a retry under a new key, as the caller's own line says",
		hhmmss(link.Time), link.Method, link.Route, next.Key, prev.Key, link.Source)
	sev := Warning
	rests := []string{"the line naming " + prev.Key + " as the key it retries, " + link.Source.String()}
	switch {
	case len(intentEffects(c, prev)) > 0 && len(intentEffects(c, next)) > 0 && n >= 2:
		sev = Critical
		fmt.Fprintf(&b, "; the two keys made %s (%s)", plural(n, "effect", "effects"), resultList(results))
		rests = append(rests, plural(n, "effect", "effects"))
	case n > 0:
		fmt.Fprintf(&b, "; the logs show %s (%s), so no duplicate is seen", plural(n, "effect", "effects"), resultList(results))
	default:
		b.WriteString("; the logs show no effect of either")
	}
	b.WriteString(".")
	return &Finding{Severity: sev, Intents: []*model.Intent{prev, next}, Narrative: b.String(), Evidence: ev.sorted(),
		Confidence: Confidence{Level: Proven, RestsOn: rests}}
}
