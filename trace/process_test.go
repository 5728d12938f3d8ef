package trace

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/idem-cli/idem/model"
)

// TestAnIDJoinsOnlyWithinOneTrip holds the per-process ids (a framework's
// counter, req-1 in each replica) against the ids that truly join: a line
// of another input joins only where an outer tier carried the id, or the
// lines start together.
func TestAnIDJoinsOnlyWithinOneTrip(t *testing.T) {
	at := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	type line struct {
		tier      model.Tier
		file, rid string
		key       string
		ms        int
		labels    string // an export's labels: the pod that wrote the line
	}
	srv := func(file, rid, key string, ms int) line {
		return line{tier: model.TierServer, file: file, rid: rid, key: key, ms: ms}
	}
	pod := func(name, rid, key string, ms int) line {
		return line{tier: model.TierServer, file: "export.jsonl", rid: rid, key: key, ms: ms, labels: "pod=" + name}
	}
	px := func(file, rid, key string, ms int) line {
		return line{tier: model.TierProxy, file: file, rid: rid, key: key, ms: ms}
	}
	for _, tc := range []struct {
		name  string
		lines []line
		// want is each built intent's deliveries: key:id[lines],...
		want       string
		deliveries int
	}{
		{"two replicas' counters under two keys", []line{srv("a.log", "req-1", "k1", 0), srv("b.log", "req-1", "k2", 10)},
			"k1:req-1[1] k2:req-1[1]", 2},
		{"two replicas' counters under one key: a retry", []line{srv("a.log", "req-1", "k1", 0), srv("a.log", "req-1", "k1", 5), srv("b.log", "req-1", "k1", 1000), srv("b.log", "req-1", "k1", 1001)},
			"k1:req-1[2],req-1[2]", 2},
		{"one input, two keys: the id reused", []line{srv("a.log", "r", "k1", 0), srv("a.log", "r", "k2", 10)},
			"k1:r[2]", 1},
		{"a proxy carried the id to two replicas, read first", []line{px("p.log", "u", "k1", 0), srv("a.log", "u", "k1", 1), srv("b.log", "u", "k1", 1000)},
			"k1:u[3]", 1},
		{"a proxy carried the id to two replicas, read last", []line{srv("a.log", "u", "k1", 1), srv("b.log", "u", "k1", 1000), px("p.log", "u", "k1", 0)},
			"k1:u[3]", 1},
		{"one process writing two files", []line{srv("app.log", "req-7", "k1", 0), srv("errors.log", "req-7", "k1", 3)},
			"k1:req-7[2]", 1},
		{"two proxies of one chain", []line{px("edge.log", "u", "k1", 0), px("inner.log", "u", "k1", 2)},
			"k1:u[2]", 1},
		{"two proxies, one id under two keys", []line{px("edge.log", "u", "k1", 0), px("other.log", "u", "k2", 2)},
			"k1:u[1] k2:u[1]", 2},
		{"unkeyed: a proxy carried the id to two replicas, read last", []line{srv("a.log", "g", "", 1), srv("b.log", "g", "", 1000), px("p.log", "g", "", 0)},
			"", 1},
		{"unkeyed: two replicas' counters", []line{srv("a.log", "req-1", "", 0), srv("b.log", "req-1", "", 1000)},
			"", 2},
		{"one export, two pods' counters under two keys", []line{pod("api-1", "req-1", "k1", 0), pod("api-2", "req-1", "k2", 10)},
			"k1:req-1[1] k2:req-1[1]", 2},
		{"one export, two pods' counters under one key", []line{pod("api-1", "req-1", "k1", 0), pod("api-2", "req-1", "k1", 1000)},
			"k1:req-1[1],req-1[1]", 2},
		{"one export, one pod, two keys: the id reused", []line{pod("api-1", "req-1", "k1", 0), pod("api-1", "req-1", "k2", 10)},
			"k1:req-1[2]", 1},
		{"a tracer's id", []line{srv("a.log", "trace:abc", "k1", 0), srv("b.log", "trace:abc", "k1", 900)},
			"k1:trace:abc[2]", 1},
	} {
		for _, shard := range []int32{shardFrom, 1} {
			t.Run(fmt.Sprintf("%s/grouped from %d", tc.name, shard), func(t *testing.T) {
				defer func(was int32) { shardFrom = was }(shardFrom)
				shardFrom = shard // both ways of grouping
				c := NewCorrelator(nil)
				for i, l := range tc.lines {
					c.Add(&model.Observation{Tier: l.tier, Format: "x", RequestID: l.rid, Key: l.key, Method: "POST", Route: "/v1/orders", Status: 201,
						Time: at.Add(time.Duration(l.ms) * time.Millisecond), Labels: l.labels, Source: model.Source{File: l.file, Line: i + 1}})
				}
				s := c.Set(nil)
				var got []string
				for _, in := range s.Built {
					var ds []string
					for _, d := range in.Deliveries {
						ds = append(ds, fmt.Sprintf("%s[%d]", d.RequestID, len(d.Observations)))
					}
					got = append(got, in.Key+":"+strings.Join(ds, ","))
				}
				for _, k := range []string{"k1", "k2"} {
					if !slices.ContainsFunc(s.Built, func(in *model.Intent) bool { return in.Key == k }) {
						for _, in := range s.FindIntent(k) {
							got = append(got, fmt.Sprintf("%s:%s[%d]", in.Key, in.Deliveries[0].RequestID, len(in.Deliveries[0].Observations)))
						}
					}
				}
				slices.Sort(got)
				if g := strings.Join(got, " "); g != tc.want {
					t.Errorf("intents %s, want %s", g, tc.want)
				}
				if n := s.DeliveryCount(); n != tc.deliveries {
					t.Errorf("%d deliveries, want %d", n, tc.deliveries)
				}
				if n := s.UnkeyedCount(); tc.want == "" && n != tc.deliveries {
					t.Errorf("%d unkeyed deliveries, want %d", n, tc.deliveries)
				}
			})
		}
	}
}
