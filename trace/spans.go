package trace

import (
	"github.com/idem-cli/idem/model"
)

// The spans of a distributed trace name their deliveries only once the
// whole trace is read (see model.SpanRef): the correlator holds every
// observation whose request id is a SpanRef aside, in input order, and
// when reading is over resolves them into deliveries and adds them as any
// other line. Traces are what an incident's spans are, thousands, not an
// access log's millions; the lines of every other format pass by with
// one test of their id.
//
// A delivery is a client's call and every span below it: a proxy's or a
// server's span joins its parent's delivery, a client's span starts one
// of its own (several attempts may share one parent, and one trace id).
// Each delivery is named, in this order of preference, after
//
//  1. an X-Request-Id one of its spans recorded, so that access logs that
//     log it join;
//  2. its trace, "trace:<id>", when the trace is one delivery: the name
//     every log line that carries only the trace id is given (see
//     formats' traceid.go), so those lines join;
//  3. "trace:<id>/<span id>" when the trace holds several deliveries: the
//     client span's id, or the id the caller sent as the parent when no
//     client span was read. A line that names the trace and a span joins
//     that span's delivery; one that names only the trace stays its own.

// spanHeld is the correlator's spans set aside until reading is over.
type spanHeld struct {
	obs  []*model.Observation
	refs []model.SpanRef
}

// holdSpan sets o aside when its request id is a SpanRef, reporting
// whether it did.
func (c *Correlator) holdSpan(o *model.Observation) bool {
	ref, ok := model.ParseSpanRef(o.RequestID)
	if !ok {
		return false
	}
	c.spans.obs = append(c.spans.obs, o.Clone())
	c.spans.refs = append(c.spans.refs, ref)
	return true
}

// spanNode is one span id of one trace.
type spanNode struct{ trace, span string }

// resolveSpans names the held observations' deliveries and adds them.
func (c *Correlator) resolveSpans() {
	h := c.spans
	if len(h.obs) == 0 {
		return
	}
	c.spans = spanHeld{}
	names := spanNames(h.refs)
	for i, o := range h.obs {
		if h.refs[i].Quiet {
			continue // it only linked its trace
		}
		o.RequestID = names[i]
		c.Add(o)
	}
}

// spanNames works out the request id of each ref's delivery.
func spanNames(refs []model.SpanRef) []string {
	index := map[spanNode]int{}
	var up []int // each node's parent in the union, itself at a root
	var ids []string
	node := func(trace, span string) int {
		k := spanNode{trace, span}
		if n, ok := index[k]; ok {
			return n
		}
		n := len(up)
		index[k] = n
		up, ids = append(up, n), append(ids, span)
		return n
	}
	root := func(n int) int {
		for up[n] != n {
			up[n] = up[up[n]] // halve the path
			n = up[n]
		}
		return n
	}
	// The spans' own nodes first, then what joins them: a part's root
	// hangs under its parent's, so that a delivery's root is its topmost
	// id, the client's span or the id the caller sent.
	own := make([]int, len(refs))
	for i, r := range refs {
		own[i] = -1
		if r.Join != model.SpanLine {
			own[i] = node(r.Trace, r.Span)
		}
	}
	for i, r := range refs {
		if r.Join != model.SpanPart || r.Parent == "" || r.Parent == r.Span {
			continue
		}
		child, parent := root(own[i]), root(node(r.Trace, r.Parent))
		if child != parent {
			up[child] = parent
		}
	}
	// What each delivery (a root with spans) is called after: the first
	// request id one of its spans recorded; how many deliveries each
	// trace holds.
	requestID := map[int]string{}
	deliveries := map[string]int{}
	counted := map[int]bool{}
	for i, r := range refs {
		if own[i] < 0 || r.Quiet {
			continue
		}
		d := root(own[i])
		if !counted[d] {
			counted[d] = true
			deliveries[r.Trace]++
		}
		if _, ok := requestID[d]; !ok && r.RequestID != "" {
			requestID[d] = r.RequestID
		}
	}
	name := func(trace string, d int) string {
		switch {
		case requestID[d] != "":
			return requestID[d]
		case deliveries[trace] == 1:
			return "trace:" + trace
		}
		return "trace:" + trace + "/" + ids[d]
	}
	// A trace of one delivery, by its root, for the lines that name no
	// span of it.
	only := map[string]int{}
	for i, r := range refs {
		if own[i] >= 0 && !r.Quiet && deliveries[r.Trace] == 1 {
			only[r.Trace] = root(own[i])
		}
	}
	out := make([]string, len(refs))
	for i, r := range refs {
		switch {
		case own[i] >= 0:
			out[i] = name(r.Trace, root(own[i]))
			continue
		case r.RequestID != "":
			out[i] = r.RequestID // a line that logged its own request id
			continue
		}
		if n, ok := index[spanNode{r.Trace, r.Span}]; ok && r.Span != "" && counted[root(n)] {
			out[i] = name(r.Trace, root(n))
		} else if d, ok := only[r.Trace]; ok {
			out[i] = name(r.Trace, d)
		} else {
			out[i] = "trace:" + r.Trace
		}
	}
	return out
}
