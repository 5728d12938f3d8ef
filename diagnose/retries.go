package diagnose

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/idem-cli/idem/model"
)

// Who sent each retry. An intent's deliveries after its first, and a
// proxy's own second attempt at one delivery, were each sent again by
// some layer: the proxy, a client library, the browser (the page's code
// or its user, which a HAR does not tell apart), a
// workflow engine, the server itself, or the caller's own code. The
// diagnosis table's action is always to fix the layer that retried, so
// each retry is attributed from what that layer left in the logs, never
// from a logger's or a client's name: a proxy's count of upstream
// attempts, a header by which a client library numbers its sends, a
// workflow engine's attempt, a delivery no tier in front of the server
// saw. Where nothing says, the layer is "unknown", not a guess.

// Layer is who sent a delivery again.
type Layer string

// The layers, from the outside in.
const (
	LayerBrowser        Layer = "browser"         // the page sent it again: its code or its user
	LayerClient         Layer = "client"          // the caller, by a retry no library marked
	LayerClientLibrary  Layer = "client-library"  // an SDK's own retry, as it marked it
	LayerProxy          Layer = "proxy"           // the proxy tried another upstream
	LayerWorkflowEngine Layer = "workflow-engine" // a workflow engine's activity retry
	LayerServer         Layer = "server"          // the server re-ran it: a job or a queue's redelivery
	LayerUnknown        Layer = "unknown"         // no log says who sent it
)

// Layers lists every layer in the order the reports count them.
var Layers = []Layer{LayerBrowser, LayerClient, LayerClientLibrary, LayerProxy, LayerWorkflowEngine, LayerServer, LayerUnknown}

// Words is the layer as a report writes it: "the proxy", "a client
// library".
func (l Layer) Words() string {
	switch l {
	case LayerClientLibrary:
		return "a client library"
	case LayerClient:
		return "the caller"
	case LayerServer:
		return "the server itself"
	case LayerUnknown:
		return "an unknown layer"
	}
	return "the " + strings.ReplaceAll(string(l), "-", " ")
}

// Evidence is what makes idem attribute a retry to the layer, as
// docs/rules.md says it.
func (l Layer) Evidence() string {
	switch l {
	case LayerBrowser:
		return "a second HAR entry under the key: the page's code or its user, which a HAR does not tell apart"
	case LayerClient:
		return "a new request under the key through the proxy, or in the client's own log, with no library's retry mark: the caller's own retry"
	case LayerClientLibrary:
		return "a header by which a client library numbers its sends, wherever a line logs it: `x-stainless-retry-count` past 0 (Stainless-generated SDKs: openai, anthropic, …), `amz-sdk-request: attempt=N` past 1 (AWS SDKs); a client span's `http.request.resend_count`; or a second send under a key the library minted for its own retries (`stripe-node-retry-…`, `stainless-node-retry-…`, `stainless-python-retry-…`)"
	case LayerProxy:
		return "proxy-retry's evidence: a proxy line that counts several upstream attempts (nginx's `$upstream_status` list, HAProxy's retries, Envoy's attempt count), or the server beginning one request id twice while the proxy's one line waited"
	case LayerWorkflowEngine:
		return "an activity's attempt past 1 in a workflow engine's lines (Temporal's `Attempt`)"
	case LayerServer:
		return "a server line numbering its attempt past 1 with no request in front of it: a job or a queue's redelivery"
	}
	return "nothing: only the server logged the retry, and no line says who sent it"
}

// Retry is one extra send of an intent and who sent it.
type Retry struct {
	Intent *model.Intent // nil for a delivery without a key
	// Delivery is the extra delivery; for a proxy's own retry, the one
	// delivery the proxy sent twice.
	Delivery *model.Delivery
	Layer    Layer
	// Why is the evidence, in words ("amz-sdk-request: attempt=2; max=3
	// (app.jsonl:4)"), with the gap against the timeout that set it off
	// where a log shows one.
	Why string
	// After is how long after the intent's first delivery began this
	// one did; for a proxy's retry, between the server's two starts. 0
	// when unknown.
	After time.Duration
	// Duplicate says the retry made an effect of its own beside an
	// earlier one.
	Duplicate bool
	// Evidence is the line that says who sent it, nil where none does.
	Evidence *model.Observation
}

// Retries lists who sent each extra delivery of every intent, in time
// order.
func (r *Result) Retries() []Retry { return r.retries }

// RetriesOf lists the retries of one intent.
func (r *Result) RetriesOf(in *model.Intent) []Retry {
	var out []Retry
	for _, rt := range r.retries {
		if rt.Intent != nil && rt.Intent.ID == in.ID {
			out = append(out, rt)
		}
	}
	return out
}

// attachRetries gives each finding the retries of its intents. Only the
// intents that findings name are looked up, by pointer (a set holds one
// intent for each ID), rather than every retry grouped by its intent's ID.
func attachRetries(findings []*Finding, retries []Retry) {
	if len(retries) == 0 || len(findings) == 0 {
		return
	}
	// Each named intent's retries are counted, then laid end to end in
	// one slice: no slice of its own grows retry by retry.
	group := make(map[*model.Intent]int32, len(findings))
	var ends []int32
	for _, f := range findings {
		for _, in := range f.Intents {
			if _, ok := group[in]; !ok {
				group[in] = int32(len(ends))
				ends = append(ends, 0)
			}
		}
	}
	of := make([]int32, len(retries)) // each retry's group, -1 for none
	for r := range retries {
		i, ok := group[retries[r].Intent]
		if !ok {
			of[r] = -1
			continue
		}
		of[r] = i
		ends[i]++
	}
	total := int32(0)
	for i, n := range ends {
		total += n
		ends[i] = total
	}
	all := make([]Retry, total)
	for r := len(retries) - 1; r >= 0; r-- { // from the back, to keep their order
		if i := of[r]; i >= 0 {
			ends[i]--
			all[ends[i]] = retries[r]
		}
	}
	// ends[i] is now where group i starts.
	groupOf := func(i int32) []Retry {
		end := total
		if int(i)+1 < len(ends) {
			end = ends[i+1]
		}
		if ends[i] == end {
			return nil
		}
		return all[ends[i]:end:end]
	}
	for _, f := range findings {
		if len(f.Intents) == 1 && f.Retries == nil {
			f.Retries = groupOf(group[f.Intents[0]])
			continue
		}
		for _, in := range f.Intents {
			f.Retries = append(f.Retries, groupOf(group[in])...)
		}
	}
}

// countRetries counts the retries by the layer that sent them into the
// summary, and those of them that made a second effect.
func countRetries(s *Summary, retries []Retry) {
	for _, rt := range retries {
		if s.RetriesByLayer == nil {
			s.RetriesByLayer = map[string]int{}
		}
		s.RetriesByLayer[string(rt.Layer)]++
		if rt.Duplicate {
			if s.DuplicatesByLayer == nil {
				s.DuplicatesByLayer = map[string]int{}
			}
			s.DuplicatesByLayer[string(rt.Layer)]++
		}
	}
}

// attribute works out every retry of the set, in the order they began.
// It reads the set only, so it runs beside the rules.
func attribute(c *context) []Retry {
	var out []Retry
	for _, in := range c.set.Built {
		out = intentRetries(c, in, out)
	}
	for _, d := range c.set.Unkeyed {
		if rt, ok := proxyRetryOf(c, nil, d); ok {
			out = append(out, rt)
		}
	}
	// Each start is worked out once and the retries, 72 bytes each, are
	// moved once: a comparison would walk to a delivery's first timed
	// line every time, and a sort would swap the values it orders.
	starts, order := make([]time.Time, len(out)), make([]int32, len(out))
	for i := range out {
		starts[i], order[i] = out[i].Delivery.Start(), int32(i)
	}
	slices.SortStableFunc(order, func(a, b int32) int { return starts[a].Compare(starts[b]) })
	sorted := make([]Retry, len(out))
	for i, j := range order {
		sorted[i] = out[j]
	}
	return sorted
}

// intentRetries appends to out an intent's extra deliveries and its
// proxy's own retries.
func intentRetries(c *context, in *model.Intent, out []Retry) []Retry {
	// Most intents are sent once: their one delivery needs no copy and
	// sort, and whether it made an effect matters only to a later one.
	ds, several := in.Deliveries, len(in.Deliveries) > 1
	if several {
		ds = slices.Clone(ds)
		slices.SortStableFunc(ds, func(a, b *model.Delivery) int {
			sa, sb := a.Start(), b.Start()
			if sa.IsZero() || sb.IsZero() {
				return 0
			}
			return sa.Compare(sb)
		})
	}
	effected := false // an earlier delivery made an effect
	for i, d := range ds {
		if rt, ok := proxyRetryOf(c, in, d); ok {
			out = append(out, rt)
		}
		effects := several && len(c.effects(d)) > 0
		// A send the server refused as another payload is another
		// action under a reused key (payload-mismatch), not this one's
		// retry: nobody sent this action again.
		if i > 0 && refusedAsAnother(c, ds[:i], d) == "" {
			rt := sender(d)
			rt.Intent, rt.Delivery, rt.Duplicate = in, d, effects && effected
			if first, start := ds[0].Start(), d.Start(); !first.IsZero() && !start.IsZero() && start.After(first) {
				rt.After = start.Sub(first)
			}
			if why := timeoutBehind(ds[:i], d); why != "" {
				rt.Why += "; " + why
			}
			out = append(out, rt)
		}
		effected = effected || effects
	}
	return out
}

// proxyRetryOf is the proxy's own retry of d, where proxy-retry's
// evidence shows one.
func proxyRetryOf(c *context, in *model.Intent, d *model.Delivery) (Retry, bool) {
	p, tries := proxyRetried(c, d)
	if p == nil {
		return Retry{}, false
	}
	why := fmt.Sprintf("%s logged %d upstream attempts for one request (%s)", p.Format, tries, p.Source)
	if p.UpstreamTries <= 1 {
		why = fmt.Sprintf("the server began it %d times under one request id while %s waited on its one line (%s)", tries, p.Format, p.Source)
	}
	if p.Detail != "" {
		why += ": " + p.Detail
	}
	rt := Retry{Intent: in, Delivery: d, Layer: LayerProxy, Why: why, Duplicate: effectCount(c.effects(d)) > 1, Evidence: p}
	var starts []time.Time
	for _, o := range d.Observations {
		if o.Tier == model.TierServer && !o.Time.IsZero() && whileWaiting(p, o) {
			starts = append(starts, o.Time)
		}
	}
	if len(starts) > 1 {
		rt.After = slices.MaxFunc(starts, time.Time.Compare).Sub(slices.MinFunc(starts, time.Time.Compare))
		// The proxy moves on when its timeout for the first upstream
		// runs out (or the upstream fails): the gap is that timeout.
		rt.Why += fmt.Sprintf("; the server began the second attempt %s after the first: the proxy's own timeout on the first upstream, or its error", rt.After.Round(time.Millisecond))
	}
	return rt, true
}

// sender works out who sent d after the deliveries before it, from the
// lines of d: what a layer wrote on the request or in its own log.
func sender(d *model.Delivery) Retry {
	for _, o := range d.Observations {
		if o.RetryMark != "" {
			return Retry{Layer: LayerClientLibrary, Evidence: o,
				Why: fmt.Sprintf("the request carried %s, a client library's number of its own retry (%s)", o.RetryMark, o.Source)}
		}
	}
	if lib := model.KeyMaker(d.Key); lib != "" {
		o := d.Edge()
		return Retry{Layer: LayerClientLibrary, Evidence: o,
			Why: fmt.Sprintf("the key was minted by %s for its own retries (it names it so, and mints one only when it may retry), and this send carried it again (%s)", lib, o.Source)}
	}
	for _, o := range d.Observations {
		if o.Attempt > 1 && (o.WorkflowID() != "" || o.ActivityID() != "") {
			return Retry{Layer: LayerWorkflowEngine, Evidence: o,
				Why: fmt.Sprintf("%s ran the activity's attempt %d (%s)", o.Format, o.Attempt, o.Source)}
		}
	}
	for _, o := range d.Observations {
		if o.Attempt > 1 && o.Tier == model.TierClient {
			return Retry{Layer: LayerClientLibrary, Evidence: o,
				Why: fmt.Sprintf("the client's own line numbers it attempt %d (%s)", o.Attempt, o.Source)}
		}
	}
	var client, proxy, server *model.Observation
	for _, o := range d.Observations {
		switch {
		case o.Tier == model.TierClient && client == nil:
			client = o
		case o.Tier == model.TierProxy && proxy == nil:
			proxy = o
		case (o.Tier == model.TierServer || o.Tier == model.TierWorker) && server == nil:
			server = o
		}
	}
	switch {
	case client != nil && client.Format == "har":
		// A HAR does not tell the page's code from its user: both are
		// the browser's layer.
		return Retry{Layer: LayerBrowser, Evidence: client,
			Why: fmt.Sprintf("a new HAR entry under the same key (%s): the page's code or its user, which a HAR does not tell apart", client.Source)}
	case client != nil:
		return Retry{Layer: LayerClient, Evidence: client,
			Why: fmt.Sprintf("the client logged a new send under the same key, with no library's retry mark (%s)", client.Source)}
	case proxy != nil:
		return Retry{Layer: LayerClient, Evidence: proxy,
			Why: fmt.Sprintf("a new request under the same key came through the proxy, with no library's retry mark (%s): the caller sent it again", proxy.Source)}
	case server != nil && server.Attempt > 1:
		return Retry{Layer: LayerServer, Evidence: server,
			Why: fmt.Sprintf("the server's own line numbers it attempt %d with no request in front of it (%s): a job or a queue's redelivery", server.Attempt, server.Source)}
	}
	return Retry{Layer: LayerUnknown, Why: "no tier in front of the server logged it, and no line says who sent it again"}
}

// timeoutSlack is how close to a line's end a retry must begin to have
// been set off by it.
const timeoutSlack = 250 * time.Millisecond

// timeoutBehind says which layer's timeout set d off, where an earlier
// delivery's line ended, lost, just as d began: the retry was born one
// timeout after the attempt it replaced.
func timeoutBehind(before []*model.Delivery, d *model.Delivery) string {
	start := d.Start()
	if start.IsZero() {
		return ""
	}
	prev := before[len(before)-1]
	for _, o := range prev.Observations {
		if !o.Outcome.Lost() || o.Duration <= 0 || o.Time.IsZero() {
			continue
		}
		gap := start.Sub(o.End())
		if gap < -timeoutSlack || gap > timeoutSlack {
			continue
		}
		whose := "the caller's timeout"
		switch o.Outcome {
		case model.OutcomeUpstreamTimeout, model.OutcomeUpstreamReset:
			whose = "the " + o.Tier.String() + "'s timeout, answered to the caller, which retried"
		case model.OutcomeTimeout:
			whose = "the " + o.Tier.String() + "'s own timeout"
		}
		loss := describeLoss(o)
		if o.Outcome != model.OutcomeTimeout {
			loss += " after " + o.Duration.Round(time.Millisecond).String()
		}
		return fmt.Sprintf("begun as the previous send ended: %s (%s), %s", loss, o.Source, whose)
	}
	return ""
}
