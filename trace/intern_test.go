package trace

import (
	"strconv"
	"strings"
	"testing"

	"github.com/idem-cli/idem/model"
)

func TestDetailsStayExactPastTheTable(t *testing.T) {
	c := NewCorrelator(nil)
	n := maxTexts + 500
	for i := 0; i < n; i++ {
		c.Add(&model.Observation{Tier: model.TierProxy, RequestID: "r-" + strconv.Itoa(i), Key: "k-" + strconv.Itoa(i), Method: "POST",
			Route: "/v1/x", Status: 502, Detail: "detail " + strconv.Itoa(i%(maxTexts+100))})
	}
	set := c.Set(nil)
	if len(set.Built) != n {
		t.Fatalf("%d intents built, want %d (a 502 is notable)", len(set.Built), n)
	}
	for _, in := range set.Built {
		i, _ := strconv.Atoi(strings.TrimPrefix(in.Key, "k-"))
		if got, want := in.Deliveries[0].Observations[0].Detail, "detail "+strconv.Itoa(i%(maxTexts+100)); got != want {
			t.Fatalf("%s: detail %q, want %q", in.Key, got, want)
		}
	}
	// The table holds maxTexts (detail, message) pairs; the lines with
	// the 100 others are kept whole, once each.
	if want := 100; len(c.fulls) != want {
		t.Errorf("%d observations kept whole, want the %d whose detail did not fit the table", len(c.fulls), want)
	}
}

func TestManyMethodsStayExact(t *testing.T) {
	c := NewCorrelator(nil)
	for i := 0; i < 300; i++ {
		c.Add(&model.Observation{Tier: model.TierProxy, Format: "nginx", RequestID: "r-" + strconv.Itoa(i), Key: "k-" + strconv.Itoa(i),
			Method: "M" + strconv.Itoa(i), Route: "/v1/x", Status: 502, Source: model.Source{File: "f" + strconv.Itoa(i%3), Line: i}})
	}
	for _, in := range c.Set(nil).Built {
		i, _ := strconv.Atoi(strings.TrimPrefix(in.Key, "k-"))
		o := in.Deliveries[0].Observations[0]
		if o.Method != "M"+strconv.Itoa(i) || o.Source.File != "f"+strconv.Itoa(i%3) || o.Source.Line != i || o.Format != "nginx" {
			t.Fatalf("%s: %s %s %s", in.Key, o.Method, o.Source, o.Format)
		}
	}
}
