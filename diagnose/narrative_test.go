package diagnose

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/idem-cli/idem/model"
)

// Narratives are written by hand, not by fmt and time.Format: the same
// text, checked here against those.
func TestNarrativePiecesMatchFmt(t *testing.T) {
	for _, tm := range []time.Time{{}, time.Unix(0, 0), time.Date(2026, 11, 30, 23, 59, 59, 999999999, time.UTC),
		time.Date(2026, 11, 30, 0, 1, 43, 684000000, time.FixedZone("x", -7*3600)), time.Date(-40, 1, 1, 9, 8, 7, 6e6, time.UTC),
		time.Date(12026, 1, 1, 19, 8, 7, 10e6, time.FixedZone("y", 5*3600+1800))} {
		want := "an unknown time"
		if !tm.IsZero() {
			want = tm.UTC().Format("15:04:05.000Z")
		}
		if got := hhmmss(tm); got != want {
			t.Errorf("hhmmss(%v) = %s, want %s", tm, got, want)
		}
	}
	for _, n := range []int{0, 1, 2, -1, 1234567} {
		if got, want := plural(n, "effect", "effects"), fmt.Sprintf("%d %s", n, map[bool]string{true: "effect", false: "effects"}[n == 1]); got != want {
			t.Errorf("plural(%d) = %q, want %q", n, got, want)
		}
	}
	for _, ids := range [][]string{nil, {"a"}, {"a", "b", ""}} {
		want := strings.Join(ids, ", ")
		if len(ids) == 0 {
			want = "no result id logged"
		}
		if got := string(appendResults(nil, ids)); got != want {
			t.Errorf("appendResults(%q) = %q, want %q", ids, got, want)
		}
	}
	for tier := model.TierUnknown; tier <= model.TierProvider; tier++ {
		for out := model.Outcome(0); out <= model.OutcomeError+1; out++ {
			for _, o := range []model.Observation{{Tier: tier, Outcome: out}, {Tier: tier, Outcome: out, Duration: 1500400 * time.Microsecond, Detail: "499 client closed request"}} {
				if got, want := describeLoss(&o), describeLossFmt(&o); got != want {
					t.Errorf("describeLoss(%v, %v) = %q, want %q", tier, out, got, want)
				}
			}
		}
	}
}

// describeLossFmt is describeLoss as it was written with fmt.
func describeLossFmt(o *model.Observation) string {
	who := o.Tier.String()
	var what string
	switch o.Outcome {
	case model.OutcomeTimeout:
		what = "gave up waiting"
		if o.Duration > 0 {
			what = fmt.Sprintf("gave up after %s", o.Duration.Round(time.Millisecond))
		}
	case model.OutcomeReset:
		what = "lost the connection"
		if o.Tier == model.TierServer {
			what = "dropped its response"
		}
	case model.OutcomeAborted:
		what = "aborted the request"
	case model.OutcomeClientClosed:
		what = "saw the client close the connection"
	case model.OutcomeUpstreamTimeout:
		what = "timed out waiting for the server"
	case model.OutcomeUpstreamReset:
		what = "lost the server's connection"
	default:
		what = "got no response"
	}
	if o.Detail != "" {
		what += " (" + o.Detail + ")"
	}
	return "the " + who + " " + what
}

// clientRoute groups as the joined string client+" "+method+" "+route did.
func TestClientRouteGroupsAsTheJoinedString(t *testing.T) {
	triples := [][3]string{{"1.2.3.4", "POST", "/v1/orders"}, {"1.2.3.4", "POST", "/v1/orders x"}, {"1.2.3.4 POST", "/v1/orders", ""},
		{"1.2.3.4", "POST /v1/orders", ""}, {"1.2.3.4", "POST", "/v1/orders "}, {"1.2.3.4 POST", "/v1/orders", " "}, {"", "", ""},
		{" ", "", ""}, {"", " ", ""}, {"", "", "  "}, {"a b", "c", "d"}, {"a", "b c", "d"}, {"a", "b", "c d"}, {"a b c", "d", ""}}
	for _, x := range triples {
		for _, y := range triples {
			same := x[0]+" "+x[1]+" "+x[2] == y[0]+" "+y[1]+" "+y[2]
			if got := newClientRoute(x[0], x[1], x[2]) == newClientRoute(y[0], y[1], y[2]); got != same {
				t.Errorf("%q and %q grouped together: %v, want %v", x, y, got, same)
			}
		}
	}
}

// FuzzCompareJoined holds the findings' key order to comparing the keys
// joined by commas.
func FuzzCompareJoined(f *testing.F) {
	f.Add("a,b", "a!")
	f.Add("", ",")
	f.Add("k1", "k1,k2")
	f.Add("x,,y", "x,")
	f.Fuzz(func(t *testing.T, a, b string) {
		// Any string splits into a list that joins back to it; lists with
		// and without elements are both tried.
		for _, la := range [][]string{strings.Split(a, ","), nil} {
			for _, lb := range [][]string{strings.Split(b, ","), strings.SplitN(b, ",", 2)} {
				if got, want := compareJoined(la, lb), strings.Compare(strings.Join(la, ","), strings.Join(lb, ",")); got != want {
					t.Fatalf("compareJoined(%q, %q) = %d, want %d", la, lb, got, want)
				}
				if got, want := compareJoined(lb, la), strings.Compare(strings.Join(lb, ","), strings.Join(la, ",")); got != want {
					t.Fatalf("compareJoined(%q, %q) = %d, want %d", lb, la, got, want)
				}
			}
		}
	})
}

// A gap is measured only where the logs can measure it: never negative,
// never to the millisecond from times written to the second.
func TestGapText(t *testing.T) {
	for _, tt := range []struct {
		gap    time.Duration
		coarse bool
		want   string
	}{
		{1592 * time.Millisecond, false, "1.592s later"},
		{25*time.Minute + 39806*time.Millisecond, false, "25m39.806s later"},
		{-1500 * time.Millisecond, false, "at about the same time (its time reads 1.5s earlier: the clocks or the logs' resolution cannot order the two)"},
		{0, true, "within the same second or two (the log writes its times to the second, too coarse to measure the gap)"},
		{-time.Second, true, "within the same second or two (the log writes its times to the second, too coarse to measure the gap)"},
		{1107 * time.Millisecond, true, "within the same second or two (the log writes its times to the second, too coarse to measure the gap)"},
		{3400 * time.Millisecond, true, "about 3s later (times to the second)"},
	} {
		if got := gapText(tt.gap, tt.coarse); got != tt.want {
			t.Errorf("gapText(%v, %v) = %q, want %q", tt.gap, tt.coarse, got, tt.want)
		}
	}
}
