package trace

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/idem-cli/idem/model"
)

// BenchmarkPrepare works out a batch of proxy lines for the correlator,
// as the parallel workers do: ids packed and hashed, methods numbered,
// each line's plainness decided.
func BenchmarkPrepare(b *testing.B) {
	rng := rand.New(rand.NewPCG(2, 2))
	uuid := func() string {
		return fmt.Sprintf("%08x-%04x-4%03x-a%03x-%012x", rng.Uint32(), rng.IntN(1<<16), rng.IntN(1<<12), rng.IntN(1<<12), rng.Uint64()&(1<<48-1))
	}
	var batch model.Batch
	for i := range 2048 {
		o := model.Observation{Tier: model.TierProxy, Format: "nginx", Time: time.Unix(1795996800, int64(i)).UTC(), Duration: 98 * time.Millisecond,
			Method: "POST", Route: "/v1/bookings", Status: 201, UpstreamStatus: 201, RequestID: uuid(), Key: uuid(),
			Client: fmt.Sprintf("%d.%d.%d.%d", rng.IntN(256), rng.IntN(256), rng.IntN(256), rng.IntN(256)), Source: model.Source{File: "a.log", Line: i + 1}}
		if i%3 == 0 {
			o.Method, o.Key, o.Route = "GET", "", "/v1/bookings/48213"
		}
		if i%30 == 0 {
			o.Status, o.Outcome, o.Detail = 0, model.OutcomeClientClosed, "499 client closed request"
		}
		batch.Obs = append(batch.Obs, o)
	}
	c := NewCorrelator(nil)
	for b.Loop() {
		c.Prepare(&batch)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(batch.Obs)), "ns/line")
}
