package trace

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/idem-cli/idem/model"
)

const tr, tr2 = "5b8efff798038103d269b633813fc60c", "0af7651916cd43dd8448eb211c80319c"

func own(trace, span, parent string) model.SpanRef {
	return model.SpanRef{Trace: trace, Span: span, Parent: parent, Join: model.SpanOwn}
}

func part(trace, span, parent string) model.SpanRef {
	return model.SpanRef{Trace: trace, Span: span, Parent: parent, Join: model.SpanPart}
}

func quiet(r model.SpanRef) model.SpanRef { r.Quiet = true; return r }

func line(trace, span string) model.SpanRef {
	return model.SpanRef{Trace: trace, Span: span, Join: model.SpanLine}
}

func withID(r model.SpanRef, id string) model.SpanRef { r.RequestID = id; return r }

// TestSpanNames: each ref's delivery, as spans.go says it is named.
func TestSpanNames(t *testing.T) {
	tests := []struct {
		name string
		refs []model.SpanRef
		want []string
	}{{
		name: "one call: the trace",
		refs: []model.SpanRef{part(tr, "s", "c"), own(tr, "c", "a"), quiet(own(tr, "a", ""))},
		want: []string{"trace:" + tr, "trace:" + tr, ""},
	}, {
		name: "a server span whose caller sent no span of its own",
		refs: []model.SpanRef{part(tr, "s", "x"), part(tr, "db", "s")},
		want: []string{"trace:" + tr, "trace:" + tr},
	}, {
		name: "three attempts in one trace: each client span and what is below it",
		refs: []model.SpanRef{part(tr, "s1", "c1"), part(tr, "s2", "c2"), own(tr, "c1", "a"), own(tr, "c2", "a"), own(tr, "c3", "a"),
			part(tr, "s3", "p3"), part(tr, "p3", "c3"), quiet(own(tr, "a", ""))},
		want: []string{"trace:" + tr + "/c1", "trace:" + tr + "/c2", "trace:" + tr + "/c1", "trace:" + tr + "/c2", "trace:" + tr + "/c3",
			"trace:" + tr + "/c3", "trace:" + tr + "/c3", ""},
	}, {
		name: "a proxy's quiet spans link the server to the client",
		refs: []model.SpanRef{part(tr, "s", "rp"), quiet(part(tr, "rp", "router")), quiet(part(tr, "router", "entry")), part(tr, "entry", "c"),
			own(tr, "c", "a"), own(tr, "c2", "a"), part(tr, "s2", "c2")},
		want: []string{"trace:" + tr + "/c", "", "", "trace:" + tr + "/c", "trace:" + tr + "/c", "trace:" + tr + "/c2", "trace:" + tr + "/c2"},
	}, {
		name: "Zipkin's shared span: the server's half of the client's id",
		refs: []model.SpanRef{own(tr, "c", "root"), own(tr, "c", "root"), part(tr, "root", "")},
		want: []string{"trace:" + tr + "/c", "trace:" + tr + "/c", "trace:" + tr + "/root"},
	}, {
		name: "a request id a span recorded names its delivery",
		refs: []model.SpanRef{own(tr, "c1", "a"), withID(part(tr, "s1", "c1"), "req-1"), own(tr, "c2", "a"), part(tr, "s2", "c2")},
		want: []string{"req-1", "req-1", "trace:" + tr + "/c2", "trace:" + tr + "/c2"},
	}, {
		name: "lines join the span they name; one that names none of a trace of several stays the trace's",
		refs: []model.SpanRef{line(tr, "s1"), line(tr, ""), line(tr, "nowhere"), line(tr2, "s9"), line(tr2, ""), own(tr, "c1", ""), part(tr, "s1", "c1"),
			own(tr, "c2", ""), part(tr2, "s9", "x")},
		want: []string{"trace:" + tr + "/c1", "trace:" + tr, "trace:" + tr, "trace:" + tr2, "trace:" + tr2, "trace:" + tr + "/c1", "trace:" + tr + "/c1",
			"trace:" + tr + "/c2", "trace:" + tr2},
	}, {
		name: "a line of a trace no span was read of keeps the trace",
		refs: []model.SpanRef{line(tr, "s"), line(tr, "")},
		want: []string{"trace:" + tr, "trace:" + tr},
	}, {
		name: "spans that loop (a hostile file) still end",
		refs: []model.SpanRef{part(tr, "a", "b"), part(tr, "b", "a"), part(tr, "c", "c")},
		want: []string{"trace:" + tr + "/b", "trace:" + tr + "/b", "trace:" + tr + "/c"},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := spanNames(tc.refs)
			for i, r := range tc.refs {
				if r.Quiet {
					got[i] = "" // not kept
				}
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("got  %q\nwant %q", got, tc.want)
			}
		})
	}
}

// TestHeldSpansJoinTheirDeliveries: a server's span read before its
// client's, and a log line of the server with the trace and span ids,
// make one delivery once the Set is made; a quiet span is not kept; the
// lines of other formats are not held.
func TestHeldSpansJoinTheirDeliveries(t *testing.T) {
	at := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	obs := []*model.Observation{
		{Tier: model.TierServer, Format: "otlp-traces", Method: "POST", Route: "/v1/orders", Status: 201, Key: "k-1", Time: at.Add(time.Millisecond),
			RequestID: part(tr, "5555555555555555", "1111111111111111").String()},
		{Tier: model.TierServer, Format: "otel", ResultID: "ord-1", Effect: true, Key: "k-1", Time: at.Add(2 * time.Millisecond),
			RequestID: line(tr, "5555555555555555").String()},
		{Tier: model.TierProxy, Format: "nginx", Method: "POST", Route: "/v1/orders", Status: 201, Key: "k-2", RequestID: "r-2", Time: at},
		{Tier: model.TierClient, Format: "otlp-traces", Method: "POST", Route: "/v1/orders", Outcome: model.OutcomeTimeout, Key: "k-1", Time: at,
			RequestID: own(tr, "1111111111111111", "").String()},
		{Tier: model.TierServer, Format: "otlp-traces", RequestID: quiet(part(tr, "6666666666666666", "5555555555555555")).String()},
	}
	for i := range obs {
		obs[i].Source = model.Source{File: "in", Line: i + 1}
	}
	c := NewCorrelator(nil)
	c.Build = Build{All: true}
	for _, o := range obs {
		c.Add(o)
	}
	set := c.Set(nil)
	if set.DeliveryCount() != 2 {
		t.Fatalf("%d deliveries, want 2", set.DeliveryCount())
	}
	in := set.FindIntent("k-1")
	if len(in) != 1 || len(in[0].Deliveries) != 1 {
		t.Fatalf("k-1: %v", in)
	}
	d := in[0].Deliveries[0]
	if d.RequestID != "trace:"+tr || fmt.Sprint(sources(d)) != "[in:4 in:1 in:2]" {
		t.Errorf("delivery %s holds %v, want trace:%s with in:4 in:1 in:2", d.RequestID, sources(d), tr)
	}
}

func sources(d *model.Delivery) []string {
	var out []string
	for _, o := range d.Observations {
		out = append(out, o.Source.String())
	}
	return out
}
