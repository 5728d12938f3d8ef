package trace

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

const incidentKey = "0b5d3c1e-5b7a-4d1e-9a63-2f1f3c9b8e41"

func loadIncident(t *testing.T) *Set {
	t.Helper()
	paths, _ := filepath.Glob("../fixtures/incident/*")
	set, err := Load(context.Background(), paths, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return set
}

func TestIncidentCorrelatesAcrossTiers(t *testing.T) {
	set := loadIncident(t)
	intents := set.FindIntent(incidentKey)
	if len(intents) != 1 {
		t.Fatalf("found %d intents for the key", len(intents))
	}
	in := intents[0]
	if len(in.Deliveries) != 2 {
		t.Fatalf("got %d deliveries, want 2", len(in.Deliveries))
	}
	first, retry := in.Deliveries[0], in.Deliveries[1]
	// Each delivery has the client, proxy and server tiers, in that order.
	for _, d := range in.Deliveries {
		var tiers []Tier
		for _, o := range d.Observations {
			if len(tiers) == 0 || tiers[len(tiers)-1] != o.Tier {
				tiers = append(tiers, o.Tier)
			}
		}
		if len(tiers) != 3 || tiers[0] != TierClient || tiers[1] != TierProxy || tiers[2] != TierServer {
			t.Errorf("delivery %s tiers %v", d.RequestID, tiers)
		}
	}
	if first.Lost() == nil || first.Lost().Outcome != OutcomeTimeout {
		t.Errorf("first delivery's loss not seen: %+v", first.Edge())
	}
	if retry.Lost() != nil {
		t.Errorf("retry marked lost")
	}
	if effects := in.Effects(); len(effects) != 1 || effects[0].ResultID != "ord_8H2kQ" {
		t.Errorf("effects %+v", effects)
	}
	// The server logs only a hash of the key; it joined through the request id.
	if first.KeyHash != HashKey(incidentKey) {
		t.Errorf("key hash %q, want %q", first.KeyHash, HashKey(incidentKey))
	}
	if got := set.FindIntent(HashKey(incidentKey)); len(got) != 0 && got[0] != in {
		t.Errorf("lookup by hash found another intent")
	}
	if len(set.Unkeyed) != 1 || set.Unkeyed[0].Method() != "GET" {
		t.Errorf("unkeyed deliveries: %d", len(set.Unkeyed))
	}
	if len(set.Intents) != 2 {
		t.Errorf("intents: %d, want 2", len(set.Intents))
	}
}

func TestHashOnlyDeliveriesJoinTheirIntent(t *testing.T) {
	c := NewCorrelator(nil)
	c.Add(&Observation{Tier: TierProxy, RequestID: "a", Key: "k"})
	c.Add(&Observation{Tier: TierServer, RequestID: "b", KeyHash: HashKey("k")})
	c.Add(&Observation{Tier: TierServer, RequestID: "c", KeyHash: "sha256:unknown"})
	set := c.Set(nil)
	if len(set.Intents) != 2 || len(set.Intents[0].Deliveries)+len(set.Intents[1].Deliveries) != 3 {
		t.Fatalf("intents %+v", set.Intents)
	}
	for _, in := range set.Intents {
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
	cfg := &Config{Scope: []string{"route"}}
	c := NewCorrelator(cfg)
	c.Add(&Observation{Tier: TierServer, RequestID: "a", Key: "k", Route: "/v1/orders"})
	c.Add(&Observation{Tier: TierServer, RequestID: "b", Key: "k", Route: "/v1/refunds"})
	if set := c.Set(nil); set.IntentCount() != 2 {
		t.Fatalf("route scope: %d intents, want 2", set.IntentCount())
	}
	c = NewCorrelator(nil)
	c.Add(&Observation{Tier: TierServer, RequestID: "a", Key: "k", Route: "/v1/orders"})
	c.Add(&Observation{Tier: TierServer, RequestID: "b", Key: "k", Route: "/v1/refunds"})
	if set := c.Set(nil); set.IntentCount() != 1 || len(set.Intents) != 1 {
		t.Fatalf("key scope: %d intents, want 1 (built, since it has two deliveries)", set.IntentCount())
	}
}

func TestFingerprintIsCanonical(t *testing.T) {
	a := Fingerprint([]byte(`{"b":1, "a":{"y":[1,2],"x":"s"}}`))
	b := Fingerprint([]byte(`{"a":{"x":"s","y":[1,2]},"b":1}`))
	c := Fingerprint([]byte(`{"a":{"x":"s","y":[2,1]},"b":1}`))
	if a != b {
		t.Errorf("key order changed the fingerprint")
	}
	if a == c {
		t.Errorf("array order did not change the fingerprint")
	}
	if got := string(CanonicalJSON(parseJSON(`{"z":"<&>","a":1.50}`))); got != `{"a":1.50,"z":"<&>"}` {
		t.Errorf("canonical form %s", got)
	}
}

func FuzzFingerprint(f *testing.F) {
	f.Add([]byte(`{"b":1,"a":[1,{"c":null}]}`))
	f.Add([]byte(`not json`))
	f.Fuzz(func(t *testing.T, body []byte) {
		fp := Fingerprint(body)
		if len(fp) != len("sha256:")+64 {
			t.Fatalf("fingerprint %q", fp)
		}
		if Fingerprint(body) != fp {
			t.Fatal("not deterministic")
		}
	})
}

func TestCaptureFromHAR(t *testing.T) {
	var got []*Captured
	_, err := Read(context.Background(), []string{"../fixtures/incident/client.har"}, Options{CaptureKey: `"` + incidentKey + `"`,
		Capture: func(c *Captured) { got = append(got, c) }}, func(*Observation) {})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 {
		t.Fatalf("captured %d requests, want the two deliveries", len(got))
	}
	c := got[0]
	if c.Method != "POST" || c.URL != "https://shop.example.com/v1/orders" || !c.HasBody || len(c.Headers) < 4 || c.Status != 0 || c.Source.Line != 10 {
		t.Errorf("first capture: %+v", c)
	}
	if got[1].Status != 201 || !strings.Contains(string(got[1].ResponseBody), "ord_8H2kQ") {
		t.Errorf("second capture: %+v", got[1])
	}
}

// TestSingleDeliveriesBecomeIntentsWhenJoined covers the plain intents
// that Set keeps as a bare delivery: a second delivery under the same key
// (raw or hashed) makes them an intent, and FindIntent builds the others.
func TestSingleDeliveriesBecomeIntentsWhenJoined(t *testing.T) {
	c := NewCorrelator(nil)
	at := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	add := func(rid, key, keyHash string, sec int) {
		c.Add(&Observation{Tier: TierServer, RequestID: rid, Key: key, KeyHash: keyHash, Method: "POST", Route: "/v1/x",
			Status: 201, Time: at.Add(time.Duration(sec) * time.Second)})
	}
	add("a", "k1", "", 0)
	add("b", "k2", "", 1)
	add("e", "k3", "", 2)
	add("c", "k1", "", 3)
	add("d", "", HashKey("k3"), 4)
	set := c.Set(nil)
	if set.IntentCount() != 3 {
		t.Errorf("%d intents, want 3", set.IntentCount())
	}
	var got []string
	for _, in := range set.Intents {
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
