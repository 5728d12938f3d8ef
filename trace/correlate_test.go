package trace

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/idem-cli/idem/model"
)

func TestHashOnlyDeliveriesJoinTheirIntent(t *testing.T) {
	c := NewCorrelator(nil)
	c.Add(&model.Observation{Tier: model.TierProxy, RequestID: "a", Key: "k"})
	c.Add(&model.Observation{Tier: model.TierServer, RequestID: "b", KeyHash: model.HashKey("k")})
	c.Add(&model.Observation{Tier: model.TierServer, RequestID: "c", KeyHash: "sha256:unknown"})
	set := c.Set(nil)
	if len(set.Built) != 2 || len(set.Built[0].Deliveries)+len(set.Built[1].Deliveries) != 3 {
		t.Fatalf("intents %+v", set.Built)
	}
	for _, in := range set.Built {
		switch in.Key {
		case "k":
			if len(in.Deliveries) != 2 {
				t.Errorf("k has %d deliveries", len(in.Deliveries))
			}
		case "hash:sha256:unknown":
		default:
			t.Errorf("unexpected intent %q", in.Key)
		}
	}
}

func TestScopeSeparatesIntents(t *testing.T) {
	c := NewCorrelator([]string{"route"})
	c.Add(&model.Observation{Tier: model.TierServer, RequestID: "a", Key: "k", Route: "/v1/orders"})
	c.Add(&model.Observation{Tier: model.TierServer, RequestID: "b", Key: "k", Route: "/v1/refunds"})
	if set := c.Set(nil); set.IntentCount() != 2 {
		t.Fatalf("route scope: %d intents, want 2", set.IntentCount())
	}
	c = NewCorrelator(nil)
	c.Add(&model.Observation{Tier: model.TierServer, RequestID: "a", Key: "k", Route: "/v1/orders"})
	c.Add(&model.Observation{Tier: model.TierServer, RequestID: "b", Key: "k", Route: "/v1/refunds"})
	if set := c.Set(nil); set.IntentCount() != 1 || len(set.Built) != 1 {
		t.Fatalf("key scope: %d intents, want 1 (built, since it has two deliveries)", set.IntentCount())
	}
}

// TestSingleDeliveriesBecomeIntentsWhenJoined covers the plain intents
// that Set keeps as a bare delivery: a second delivery under the same key
// (raw or hashed) makes them an intent, and FindIntent builds the others.
func TestSingleDeliveriesBecomeIntentsWhenJoined(t *testing.T) {
	c := NewCorrelator(nil)
	at := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	add := func(rid, key, keyHash string, sec int) {
		c.Add(&model.Observation{Tier: model.TierServer, RequestID: rid, Key: key, KeyHash: keyHash, Method: "POST", Route: "/v1/x",
			Status: 201, Time: at.Add(time.Duration(sec) * time.Second)})
	}
	add("a", "k1", "", 0)
	add("b", "k2", "", 1)
	add("e", "k3", "", 2)
	add("c", "k1", "", 3)
	add("d", "", model.HashKey("k3"), 4)
	set := c.Set(nil)
	if set.IntentCount() != 3 {
		t.Errorf("%d intents, want 3", set.IntentCount())
	}
	var got []string
	for _, in := range set.Built {
		var rids []string
		for _, d := range in.Deliveries {
			rids = append(rids, d.RequestID)
		}
		got = append(got, in.Key+":"+strings.Join(rids, ","))
	}
	if strings.Join(got, " ") != "k1:a,c k3:e,d" {
		t.Errorf("built intents %v, want k1:a,c and k3:e,d", got)
	}
	found := set.FindIntent("k2")
	if len(found) != 1 || len(found[0].Deliveries) != 1 || found[0].Deliveries[0].RequestID != "b" {
		t.Errorf("FindIntent(k2) = %+v, want the single delivery b", found)
	}
}

func TestEndsKeepsTheFirstAndLastHalves(t *testing.T) {
	for _, tc := range []struct {
		n    int
		want []int
	}{
		{0, nil},
		{3, []int{0, 1, 2}},
		{4, []int{0, 1, 2, 3}},
		{5, []int{0, 1, 3, 4}},
		{10, []int{0, 1, 8, 9}},
		{11, []int{0, 1, 9, 10}},
	} {
		e := ends[int]{max: 4}
		for i := range tc.n {
			e.add(i)
		}
		if got := e.items(); !slices.Equal(got, tc.want) {
			t.Errorf("%d items: kept %v, want %v", tc.n, got, tc.want)
		}
	}
}

// TestFindIntentByTheHashOfARawKey: the server logs sha256:…, another
// input the raw key; asked for the hash, FindIntent finds the raw key's
// intent, built or not.
func TestFindIntentByTheHashOfARawKey(t *testing.T) {
	c := NewCorrelator(nil)
	c.Add(&model.Observation{Tier: model.TierClient, RequestID: "a", Key: "k-raw", Method: "POST", Route: "/x", Status: 201, Outcome: model.OutcomeOK})
	c.Add(&model.Observation{Tier: model.TierClient, RequestID: "b", Key: "k-other", Method: "POST", Route: "/x", Status: 201, Outcome: model.OutcomeOK})
	set := c.Set(nil)
	got := set.FindIntent(model.HashKey("k-raw"))
	if len(got) != 1 || got[0].Key != "k-raw" {
		t.Fatalf("FindIntent(hash) = %v", got)
	}
	if got := set.FindIntent(model.HashKey("nope")); len(got) != 0 {
		t.Errorf("a hash of no key found %v", got)
	}
}

// TestBrowserEntriesJoinByKey: a browser that sends only the
// Idempotency-Key (nginx makes the request id and passes it on). Its two
// HAR entries join the proxy's and server's deliveries of that key,
// method and route that started nearest, within the window: two trips,
// not four deliveries, and the client's timeout is in the first trip.
func TestBrowserEntriesJoinByKey(t *testing.T) {
	at := time.Date(2026, 11, 30, 9, 14, 2, 0, time.UTC)
	c := NewCorrelator(nil)
	add := func(tier model.Tier, rid string, sec float64, status int, outcome model.Outcome, line int) {
		c.Add(&model.Observation{Tier: tier, RequestID: rid, Key: "k-1", Method: "POST", Route: "/v1/orders", Status: status, Outcome: outcome,
			Time: at.Add(time.Duration(sec * float64(time.Second))), Source: model.Source{File: tier.String(), Line: line}})
	}
	add(model.TierClient, "", 0, 0, model.OutcomeTimeout, 10)         // the first try: the browser gave up
	add(model.TierClient, "", 3.8, 201, model.OutcomeOK, 77)          // the retry
	add(model.TierProxy, "n-1", 0.4, 0, model.OutcomeClientClosed, 1) // the browser's clock is 0.4 s behind
	add(model.TierServer, "n-1", 0.41, 201, model.OutcomeOK, 1)
	add(model.TierProxy, "n-2", 4.2, 201, model.OutcomeOK, 2)
	add(model.TierServer, "n-2", 4.21, 201, model.OutcomeOK, 2)
	add(model.TierClient, "", 600, 201, model.OutcomeOK, 140) // ten minutes later: no trip to join
	set := c.Set(nil)
	in := set.FindIntent("k-1")
	if len(in) != 1 {
		t.Fatalf("%d intents", len(in))
	}
	var got []string
	for _, d := range in[0].Deliveries {
		var tiers []string
		for _, o := range d.Observations {
			tiers = append(tiers, o.Tier.String())
		}
		got = append(got, d.RequestID+":"+strings.Join(tiers, ","))
	}
	if want := []string{"n-1:client,proxy,server", "n-2:client,proxy,server", "client@client:140:client"}; !slices.Equal(got, want) {
		t.Errorf("deliveries %v, want %v", got, want)
	}
	if in[0].Deliveries[0].Lost() == nil || in[0].Deliveries[0].Lost().Outcome != model.OutcomeTimeout {
		t.Errorf("the first trip lost the browser's timeout")
	}
	if n := set.DeliveryCount(); n != 3 {
		t.Errorf("%d deliveries counted, want 3", n)
	}
}

// TestProxyLinesJoinByKey: a proxy whose log_format writes no request id
// (or a client that sent none to log) joins the server's trips of that
// key, method and route by time, and the browser's id-less entries join
// the trips after it; another route, or a proxy line far from any trip,
// stays apart.
func TestProxyLinesJoinByKey(t *testing.T) {
	at := time.Date(2026, 11, 30, 9, 14, 2, 0, time.UTC)
	c := NewCorrelator(nil)
	add := func(tier model.Tier, rid, route string, sec float64, status int, outcome model.Outcome, line int) {
		c.Add(&model.Observation{Tier: tier, RequestID: rid, Key: "k-1", Method: "POST", Route: route, Status: status, Outcome: outcome,
			Time: at.Add(time.Duration(sec * float64(time.Second))), Source: model.Source{File: tier.String(), Line: line}})
	}
	add(model.TierProxy, "", "/v1/charges", -1, 0, model.OutcomeClientClosed, 1) // nginx's clock a second ahead
	add(model.TierServer, "n-1", "/v1/charges", 0.01, 201, model.OutcomeOK, 1)
	add(model.TierProxy, "", "/v1/charges", 2.5, 201, model.OutcomeOK, 2)
	add(model.TierServer, "n-2", "/v1/charges", 2.51, 201, model.OutcomeOK, 2)
	add(model.TierClient, "", "/v1/charges", 2.4, 201, model.OutcomeOK, 3)
	add(model.TierProxy, "", "/v1/refunds", 2.6, 201, model.OutcomeOK, 3) // another route
	add(model.TierProxy, "", "/v1/charges", 60, 201, model.OutcomeOK, 4)  // no trip within the window
	set := c.Set(nil)
	in := set.FindIntent("k-1")
	if len(in) != 1 {
		t.Fatalf("%d intents", len(in))
	}
	var got []string
	for _, d := range in[0].Deliveries {
		var tiers []string
		for _, o := range d.Observations {
			tiers = append(tiers, o.Tier.String()+"="+o.RequestID)
		}
		got = append(got, d.RequestID+":"+strings.Join(tiers, ","))
	}
	// Each line shows the id its tier logged: the proxy's and the
	// client's none, though they joined the server's trip.
	want := []string{"n-1:proxy=,server=n-1", "n-2:client=,proxy=,server=n-2", "proxy@proxy:3:proxy=", "proxy@proxy:4:proxy="}
	if !slices.Equal(got, want) {
		t.Errorf("deliveries\n%v, want\n%v", got, want)
	}
	if in[0].Deliveries[0].Lost() == nil {
		t.Errorf("the first trip lost the proxy's 499")
	}
}

// TestSecondIDJoins: a proxy line that logged the client's id and its
// own joins the server's line of its own id, and goes by it; a second id
// that names a delivery of the same tier joins nothing.
func TestSecondIDJoins(t *testing.T) {
	at := time.Date(2026, 11, 30, 9, 14, 2, 0, time.UTC)
	c := NewCorrelator(nil)
	add := func(tier model.Tier, rid, alt string, line int) {
		c.Add(&model.Observation{Tier: tier, RequestID: rid, AltRequestID: alt, Key: "k-1", Method: "POST", Route: "/x", Status: 201,
			Outcome: model.OutcomeOK, Time: at.Add(time.Duration(line) * time.Second), Source: model.Source{File: tier.String(), Line: line}})
	}
	add(model.TierClient, "client-1", "", 1)
	add(model.TierProxy, "client-1", "nginx-1", 1)
	add(model.TierServer, "nginx-1", "", 1)
	add(model.TierProxy, "client-2", "nginx-2", 2)
	add(model.TierProxy, "nginx-2", "", 3) // another proxy line of that id: no join
	set := c.Set(nil)
	in := set.FindIntent("k-1")
	var got []string
	for _, d := range in[0].Deliveries {
		var ids []string
		for _, o := range d.Observations {
			ids = append(ids, o.Tier.String()+"="+o.RequestID+"/"+o.AltRequestID)
		}
		got = append(got, d.RequestID+":"+strings.Join(ids, ","))
	}
	want := []string{"nginx-1:client=client-1/,proxy=nginx-1/client-1,server=nginx-1/", "client-2:proxy=client-2/", "nginx-2:proxy=nginx-2/"}
	if !slices.Equal(got, want) {
		t.Errorf("deliveries\n%v, want\n%v", got, want)
	}
	if n := set.DeliveryCount(); n != 3 {
		t.Errorf("%d deliveries counted, want 3", n)
	}
}

// TestLookupsDoneLetsGoOfTheStore: once the caller is done with lookups,
// the store is released (and Released called) once, the counts stay, and
// only the built intents are found.
func TestLookupsDoneLetsGoOfTheStore(t *testing.T) {
	c := NewCorrelator(nil)
	released := 0
	c.Released = func() { released++ }
	c.Add(&model.Observation{Tier: model.TierProxy, RequestID: "a", Key: "plain", Status: 201, Outcome: model.OutcomeOK})
	c.Add(&model.Observation{Tier: model.TierProxy, RequestID: "b", Key: "lost", Outcome: model.OutcomeClientClosed})
	c.Add(&model.Observation{Tier: model.TierProxy, RequestID: "c"})
	set := c.Set(nil)
	if len(set.FindIntent("plain")) != 1 || len(set.Built) != 1 {
		t.Fatalf("before: %d found, %d built", len(set.FindIntent("plain")), len(set.Built))
	}
	set.LookupsDone()
	set.LookupsDone()
	if released != 1 {
		t.Errorf("Released called %d times", released)
	}
	if set.IntentCount() != 2 || set.UnkeyedCount() != 1 || set.DeliveryCount() != 3 {
		t.Errorf("counts after: %d intents, %d unkeyed, %d deliveries", set.IntentCount(), set.UnkeyedCount(), set.DeliveryCount())
	}
	if len(set.FindIntent("plain")) != 0 || len(set.FindIntent("lost")) != 1 {
		t.Errorf("after: the plain intent was still found, or the lost one not")
	}
}

// TestNotesAreNoSends: a line with the key and nothing of a request (a
// note: "order failed, submitting again") joins the send it is about and
// is counted as none; a server's id-less line of a request joins the trip
// the proxy logged; a line one field away from a note (a method, an
// attempt) stays a send.
func TestNotesAreNoSends(t *testing.T) {
	at := time.Date(2026, 11, 30, 9, 14, 2, 0, time.UTC)
	tests := []struct {
		name string
		obs  []model.Observation
		want []string // each delivery: its request id and its tiers
	}{
		{"a note after each send joins it", []model.Observation{
			{Tier: model.TierProxy, RequestID: "p-1", Method: "POST", Route: "/v1/pay", Status: 504, Outcome: model.OutcomeUpstreamTimeout},
			{Tier: model.TierServer, Message: "order failed, submitting again", Time: at.Add(time.Second)},
			{Tier: model.TierProxy, RequestID: "p-2", Method: "POST", Route: "/v1/pay", Status: 201, Time: at.Add(2 * time.Second)},
			{Tier: model.TierServer, Message: "worker crashed before saving", Time: at.Add(3 * time.Second)},
		}, []string{"p-1:proxy,server", "p-2:proxy,server"}},
		{"a note before any send joins the first", []model.Observation{
			{Tier: model.TierServer, Message: "submitting", Time: at.Add(-time.Second)},
			{Tier: model.TierProxy, RequestID: "p-1", Method: "POST", Route: "/v1/pay", Status: 201},
		}, []string{"p-1:proxy,server"}},
		{"notes alone are one delivery", []model.Observation{
			{Tier: model.TierServer, Message: "submitting"},
			{Tier: model.TierServer, Message: "submitting again", Time: at.Add(time.Second)},
		}, []string{"server@server:1:server,server"}},
		{"an attempt is a send, not a note", []model.Observation{
			{Tier: model.TierServer, Message: "job", Attempt: 2, Time: at.Add(time.Second)},
			{Tier: model.TierProxy, RequestID: "p-1", Method: "POST", Route: "/v1/pay", Status: 201},
		}, []string{"p-1:proxy", "server@server:1:server"}},
		{"a server's id-less request line joins the proxy's trip", []model.Observation{
			{Tier: model.TierProxy, RequestID: "p-1", Method: "POST", Route: "/v1/pay", Status: 201},
			{Tier: model.TierServer, Method: "POST", Route: "/v1/pay", Status: 201, Time: at.Add(10 * time.Millisecond)},
		}, []string{"p-1:proxy,server"}},
		{"two trips a server line could be: it stays apart", []model.Observation{
			{Tier: model.TierProxy, RequestID: "p-1", Method: "POST", Route: "/v1/pay", Status: 201},
			{Tier: model.TierProxy, RequestID: "p-2", Method: "POST", Route: "/v1/pay", Status: 201, Time: at.Add(time.Second)},
			{Tier: model.TierServer, Method: "POST", Route: "/v1/pay", Status: 201, Time: at.Add(500 * time.Millisecond)},
		}, []string{"p-1:proxy", "server@server:1:server", "p-2:proxy"}},
		{"another status stays apart", []model.Observation{
			{Tier: model.TierProxy, RequestID: "p-1", Method: "POST", Route: "/v1/pay", Status: 201},
			{Tier: model.TierServer, Method: "POST", Route: "/v1/pay", Status: 500, Time: at.Add(10 * time.Millisecond)},
		}, []string{"p-1:proxy", "server@server:1:server"}},
		{"the proxy's upstream status is the server's", []model.Observation{
			{Tier: model.TierProxy, RequestID: "p-1", Method: "POST", Route: "/v1/pay", Status: 504, UpstreamStatus: 504, Outcome: model.OutcomeUpstreamTimeout},
			{Tier: model.TierServer, Method: "POST", Route: "/v1/pay", Status: 201, Time: at.Add(10 * time.Millisecond)},
		}, []string{"p-1:proxy,server"}},
		{"another route stays apart", []model.Observation{
			{Tier: model.TierProxy, RequestID: "p-1", Method: "POST", Route: "/v1/pay", Status: 201},
			{Tier: model.TierServer, Method: "POST", Route: "/v1/refund", Status: 201, Time: at.Add(10 * time.Millisecond)},
		}, []string{"p-1:proxy", "server@server:1:server"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := NewCorrelator(nil)
			for i, o := range tt.obs {
				o.Key = "k-1"
				if o.Time.IsZero() {
					o.Time = at
				}
				o.Source = model.Source{File: o.Tier.String(), Line: i}
				if o.Tier == model.TierServer {
					o.Source.Line = 1
					if o.Message == "submitting again" || o.Message == "worker crashed before saving" {
						o.Source.Line = 2
					}
				}
				c.Add(&o)
			}
			set := c.Set(nil)
			in := set.FindIntent("k-1")
			if len(in) != 1 {
				t.Fatalf("%d intents", len(in))
			}
			var got []string
			for _, d := range in[0].Deliveries {
				var tiers []string
				for _, o := range d.Observations {
					tiers = append(tiers, o.Tier.String())
				}
				got = append(got, d.RequestID+":"+strings.Join(tiers, ","))
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("deliveries %v, want %v", got, tt.want)
			}
			if n := set.DeliveryCount(); n != len(tt.want) {
				t.Errorf("%d deliveries counted, want %d", n, len(tt.want))
			}
		})
	}
}
