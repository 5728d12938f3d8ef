package trace

import (
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/idem-cli/idem/model"
)

// correlated adds o to a correlator that builds b and returns the
// observation as the Set gives it back, found by its key.
func correlated(t *testing.T, b Build, o *model.Observation) *model.Observation {
	t.Helper()
	c := NewCorrelator(nil)
	c.Build = b
	c.Add(o)
	set := c.Set(nil)
	intents, unkeyed := set.Built, set.Unkeyed
	if !b.All {
		intents, unkeyed = set.FindIntent(o.Key), nil // a plain intent is built on demand
	}
	var found []*model.Observation
	for _, in := range intents {
		for _, d := range in.Deliveries {
			found = append(found, d.Observations...)
		}
	}
	for _, d := range unkeyed {
		found = append(found, d.Observations...)
	}
	if len(found) != 1 {
		t.Fatalf("found %d observations, want 1", len(found))
	}
	return found[0]
}

// sameFacts compares what two observations say: every exported field.
func sameFacts(t *testing.T, got, want *model.Observation) {
	t.Helper()
	g, w := reflect.ValueOf(got).Elem(), reflect.ValueOf(want).Elem()
	for i := range g.NumField() {
		f := g.Type().Field(i)
		if !f.IsExported() {
			continue
		}
		if !reflect.DeepEqual(g.Field(i).Interface(), w.Field(i).Interface()) {
			short := func(v reflect.Value) string {
				s := fmt.Sprint(v.Interface())
				if len(s) > 80 {
					return fmt.Sprintf("%s… (%d bytes)", s[:80], len(s))
				}
				return s
			}
			t.Errorf("%s: got %s, want %s", f.Name, short(g.Field(i)), short(w.Field(i)))
		}
	}
}

// TestNoRepresentationChangesAFact: values past what the compact store
// holds keep the observation whole rather than come back changed.
func TestNoRepresentationChangesAFact(t *testing.T) {
	at := time.Date(2026, 11, 30, 14, 2, 17, 516_000_000, time.UTC)
	tests := []struct {
		name string
		set  func(o *model.Observation)
	}{
		{"plain", func(*model.Observation) {}},
		{"4000 s request", func(o *model.Observation) { o.Duration = 4000 * time.Second }},
		{"4000.001 s request", func(o *model.Observation) { o.Duration = 4000*time.Second + time.Millisecond }},
		{"1.5 µs", func(o *model.Observation) { o.Duration = 1500 * time.Nanosecond }},
		{"1 ns", func(o *model.Observation) { o.Duration = time.Nanosecond }},
		{"2.5 s to the nanosecond", func(o *model.Observation) { o.Duration = 2*time.Second + 500_000_001 }},
		{"20 minutes to the microsecond", func(o *model.Observation) { o.Duration = 20*time.Minute + time.Microsecond }},
		{"a year", func(o *model.Observation) { o.Duration = 365 * 24 * time.Hour }},
		{"the longest duration", func(o *model.Observation) { o.Duration = math.MaxInt64 }},
		{"negative duration", func(o *model.Observation) { o.Duration = -time.Millisecond }},
		{"line 3,000,000,000", func(o *model.Observation) { o.Source.Line = 3_000_000_000 }},
		{"line 2^31-1", func(o *model.Observation) { o.Source.Line = math.MaxInt32 }},
		{"status past int16", func(o *model.Observation) { o.Status = 40_000 }},
		{"upstream status past int16", func(o *model.Observation) { o.UpstreamStatus = 70_201 }},
		{"negative status", func(o *model.Observation) { o.Status = -40_000 }},
		{"the epoch", func(o *model.Observation) { o.Time = time.Unix(0, 0).UTC() }},
		{"before 1678", func(o *model.Observation) { o.Time = time.Date(1600, 1, 1, 0, 0, 0, 0, time.UTC) }},
		{"after 2262", func(o *model.Observation) { o.Time = time.Date(3000, 1, 1, 0, 0, 0, 1, time.UTC) }},
		{"in another zone", func(o *model.Observation) { o.Time = at.In(time.FixedZone("CET", 3600)) }},
		{"no time", func(o *model.Observation) { o.Time = time.Time{} }},
		{"a 70,000-byte key", func(o *model.Observation) { o.Key = strings.Repeat("k", 70_000) }},
		{"a 70,000-byte route", func(o *model.Observation) { o.Route = "/" + strings.Repeat("r", 70_000) }},
		{"a 70,000-byte client", func(o *model.Observation) { o.Client = strings.Repeat("c", 70_000) }},
		{"a 70,000-byte request id", func(o *model.Observation) { o.RequestID = strings.Repeat("i", 70_000) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := &model.Observation{Tier: model.TierProxy, Format: "nginx", Time: at, Duration: 6212 * time.Millisecond, Method: "POST",
				Route: "/v1/transfers", Status: 201, UpstreamStatus: 201, Outcome: model.OutcomeOK, RequestID: "5a0c7e21",
				Key: "c0ffee00", Client: "198.51.100.23", Source: model.Source{File: "nginx.jsonl", Line: 1}}
			tt.set(o)
			want := *o
			// Built in full, and built on demand (a plain intent is not).
			for _, b := range []Build{{All: true}, defaultBuild()} {
				sameFacts(t, correlated(t, b, o), &want)
			}
		})
	}
}

// TestLongIDsStayApart: request ids and keys that share their first 64
// KiB are still different ids and keys.
func TestLongIDsStayApart(t *testing.T) {
	long := strings.Repeat("x", 70_000)
	c := NewCorrelator(nil)
	c.Build = Build{All: true}
	c.Add(&model.Observation{Tier: model.TierServer, RequestID: long + "a", Key: long + "1", Status: 201})
	c.Add(&model.Observation{Tier: model.TierServer, RequestID: long + "b", Key: long + "2", Status: 201})
	set := c.Set(nil)
	if set.DeliveryCount() != 2 || set.IntentCount() != 2 || len(set.Built) != 2 {
		t.Fatalf("%d deliveries, %d intents", set.DeliveryCount(), set.IntentCount())
	}
	for _, in := range set.Built {
		if d := in.Deliveries[0]; len(in.Key) != 70_001 || len(d.RequestID) != 70_001 || d.Key != in.Key {
			t.Errorf("intent %.10s… (%d bytes), delivery %.10s… (%d bytes)", in.Key, len(in.Key), d.RequestID, len(d.RequestID))
		}
	}
}

func TestPackDuration(t *testing.T) {
	for _, d := range []time.Duration{0, 1, 1500, 1<<30 - 1, 2 * time.Second, time.Second + 1, 17 * time.Minute, 4000 * time.Second,
		time.Second, 12 * 24 * time.Hour, 30 * 365 * 24 * time.Hour} {
		v, ok := packDuration(d)
		if !ok || unpackDuration(v) != d {
			t.Errorf("%d: packed %v, %v, back %d", d, v, ok, unpackDuration(v))
		}
	}
	for _, d := range []time.Duration{-1, 1 << 30, 1<<30 + 1, 40 * 365 * 24 * time.Hour, math.MaxInt64} {
		if v, ok := packDuration(d); ok {
			t.Errorf("%d packed as %v", d, v)
		}
	}
}

// quietFields are the fields a plain, answered request may set without
// being worth a look: every other field of Observation must make its
// observation notable.
var quietFields = map[string]bool{"Tier": true, "Format": true, "Time": true, "Duration": true, "Method": true,
	"Route": true, "Status": true, "UpstreamStatus": true, "Outcome": true, "RequestID": true, "AltRequestID": true, "Key": true,
	"Client": true, "Process": true, "Source.File": true, "Source.Line": true, "EndOrStart": true}

// compactFields are those cobs holds: the quiet ones, and a few that are
// notable but common (a proxy's "499 client closed request").
func compactField(name string) bool {
	return quietFields[name] || name == "Detail" || name == "Message" || name == "Replayed" || name == "RetryAfter"
}

// observationFields lists the exported fields of Observation, with those
// of its structs (but time.Time) as "Source.File".
func observationFields() (names []string, index [][]int) {
	var walk func(t reflect.Type, prefix string, at []int)
	walk = func(t reflect.Type, prefix string, at []int) {
		for i := range t.NumField() {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			idx := append(append([]int(nil), at...), i)
			if f.Type.Kind() == reflect.Struct && f.Type != reflect.TypeFor[time.Time]() {
				walk(f.Type, prefix+f.Name+".", idx)
				continue
			}
			names, index = append(names, prefix+f.Name), append(index, idx)
		}
	}
	walk(reflect.TypeFor[model.Observation](), "", nil)
	return names, index
}

// sample is a quiet, non-zero value for a field of this type.
func sample(t *testing.T, name string, typ reflect.Type) reflect.Value {
	t.Helper()
	switch typ {
	case reflect.TypeFor[time.Time]():
		return reflect.ValueOf(time.Date(2026, 11, 30, 14, 2, 17, 123_456_789, time.UTC))
	case reflect.TypeFor[time.Duration]():
		return reflect.ValueOf(1500 * time.Nanosecond)
	case reflect.TypeFor[model.Tier]():
		return reflect.ValueOf(model.TierServer)
	case reflect.TypeFor[model.Outcome]():
		return reflect.ValueOf(model.OutcomeOK)
	case reflect.TypeFor[*model.Workflow]():
		return reflect.ValueOf(&model.Workflow{ID: strings.Clone("v-wf"), RunID: strings.Clone("v-run"),
			ActivityID: strings.Clone("v-act"), ActivityType: strings.Clone("v-type")})
	}
	switch typ.Kind() {
	case reflect.String:
		return reflect.ValueOf(strings.Clone("v-" + name)).Convert(typ)
	case reflect.Int:
		return reflect.ValueOf(201).Convert(typ)
	case reflect.Bool:
		return reflect.ValueOf(true).Convert(typ)
	}
	t.Fatalf("no sample value for %s (%s): add one here", name, typ)
	return reflect.Value{}
}

// TestObservationFieldLists ties together the code that lists the fields
// of Observation by hand: Observation.Clone copies every string, plain
// keeps compact only what cobs holds, materialize gives back each field,
// and notable sees every field a plain answered request does not set. A
// new field that one of them misses fails here.
func TestObservationFieldLists(t *testing.T) {
	names, index := observationFields()
	for i, name := range names {
		t.Run(name, func(t *testing.T) {
			o := &model.Observation{Tier: model.TierProxy, RequestID: "rid", Source: model.Source{File: "in.log", Line: 1}}
			field := reflect.ValueOf(o).Elem().FieldByIndex(index[i])
			field.Set(sample(t, name, field.Type()))

			cp := o.Clone()
			if !reflect.DeepEqual(cp, o) {
				t.Errorf("Clone: %+v, want %+v", cp, o)
			}
			if field.Kind() == reflect.String {
				if got := reflect.ValueOf(cp).Elem().FieldByIndex(index[i]).String(); unsafe.StringData(got) == unsafe.StringData(field.String()) {
					t.Errorf("Clone shares the string of %s with the line", name)
				}
			}
			if w := o.Workflow; w != nil && (cp.Workflow == w || unsafe.StringData(cp.Workflow.ID) == unsafe.StringData(w.ID) ||
				unsafe.StringData(cp.Workflow.ActivityType) == unsafe.StringData(w.ActivityType)) {
				t.Errorf("Clone shares the Workflow or its strings with the line")
			}

			want := *o
			if name == "AltRequestID" {
				// Kept as a hash, all the join needs: a line that joined
				// nothing by it gives it back empty (TestSecondIDJoins).
				want.AltRequestID = ""
			}
			got := correlated(t, Build{All: true}, o)
			sameFacts(t, got, &want)

			if quietFields[name] != !notable(o) {
				t.Errorf("notable = %v with %s set: a plain answered request may set only %v", notable(o), name, quietFields)
			}
			// What cobs holds is kept compact, so materialize, not a whole
			// copy, gave it back.
			c := NewCorrelator(nil)
			c.Add(o)
			if whole := c.obs.at(0).flags&flagFull != 0; whole == compactField(name) {
				t.Errorf("kept whole = %v with %s set", whole, name)
			}
		})
	}
}

// FuzzPackDuration: a packed duration comes back exactly, and every
// duration under 1.07 s packs.
func FuzzPackDuration(f *testing.F) {
	for _, d := range []int64{0, 1, 1500, 1 << 30, 4000e9, 4000e9 + 1, math.MaxInt64, -1, math.MinInt64} {
		f.Add(d)
	}
	f.Fuzz(func(t *testing.T, n int64) {
		d := time.Duration(n)
		v, ok := packDuration(d)
		if ok && unpackDuration(v) != d {
			t.Fatalf("%d packed as %d, back as %d", d, v, unpackDuration(v))
		}
		if !ok && d >= 0 && d < 1<<30 {
			t.Fatalf("%d did not pack", d)
		}
	})
}
