package report

import (
	"strings"
	"testing"
	"time"

	"github.com/idem-cli/idem/model"
)

func at(ms int) time.Time {
	return time.Date(2026, 11, 30, 10, 0, 11, 0, time.UTC).Add(time.Duration(ms) * time.Millisecond)
}

func intentOf(obs ...*model.Observation) []*model.Intent {
	for _, o := range obs {
		o.RequestID, o.Key, o.Method, o.Route = "req-1", "key-1", "POST", "/v1/orders"
	}
	d := &model.Delivery{RequestID: "req-1", Key: "key-1", Observations: obs}
	return []*model.Intent{{ID: "key-1", Key: "key-1", Deliveries: []*model.Delivery{d}}}
}

// order returns the positions of each wanted line in the diagram, failing
// when one is missing.
func order(t *testing.T, diagram string, lines ...string) []int {
	t.Helper()
	var pos []int
	for _, l := range lines {
		i := strings.Index(diagram, l)
		if i < 0 {
			t.Fatalf("no %q in\n%s", l, diagram)
		}
		pos = append(pos, i)
	}
	return pos
}

func TestSequenceIsInTimeOrder(t *testing.T) {
	for _, tc := range []struct {
		name  string
		obs   []*model.Observation
		first []string // each line must come before the next
		not   []string
	}{
		{
			// The proxy saw the client close at 11.131; the server answered at 11.466.
			name: "the proxy lost its client before the server answered",
			obs: []*model.Observation{
				{Tier: model.TierProxy, Time: at(0), Duration: 131 * time.Millisecond, Outcome: model.OutcomeClientClosed, Status: 499},
				{Tier: model.TierServer, Time: at(5), Decision: "new"},
				{Tier: model.TierServer, Time: at(460), Effect: true, ResultID: "ord_1"},
				{Tier: model.TierServer, Time: at(466), Status: 201, Outcome: model.OutcomeOK, ResultID: "ord_1"},
			},
			first: []string{"P->>S:", "Note over P: client_closed after 131ms", "Note over S: effect ord_1", "S-->>P: 201"},
			not:   []string{"clocks disagree"},
		},
		{
			name: "with the client: the loss is drawn before the late answer",
			obs: []*model.Observation{
				{Tier: model.TierClient, Time: at(0), Duration: 1120 * time.Millisecond, Outcome: model.OutcomeTimeout},
				{Tier: model.TierProxy, Time: at(2), Duration: 1129 * time.Millisecond, Outcome: model.OutcomeClientClosed, Status: 499},
				{Tier: model.TierServer, Time: at(8), Decision: "new"},
				{Tier: model.TierServer, Time: at(1466), Status: 201, Outcome: model.OutcomeOK, ResultID: "ord_1"},
			},
			first: []string{"C->>P:", "P->>S:", "Note over C: timeout", "P--xC", "Note over P: client_closed", "S-->>P: 201"},
		},
		{
			name: "the server answered before the client gave up",
			obs: []*model.Observation{
				{Tier: model.TierClient, Time: at(0), Duration: 2 * time.Second, Outcome: model.OutcomeTimeout},
				{Tier: model.TierProxy, Time: at(10), Duration: 2100 * time.Millisecond, Outcome: model.OutcomeClientClosed, Status: 499},
				{Tier: model.TierServer, Time: at(20), Decision: "new"},
				{Tier: model.TierServer, Time: at(900), Effect: true, ResultID: "ord_2"},
				{Tier: model.TierServer, Time: at(950), Status: 201, Outcome: model.OutcomeOK, ResultID: "ord_2"},
			},
			first: []string{"C->>P:", "P->>S:", "Note over S: effect ord_2", "S-->>P: 201", "Note over C: timeout after 2s", "P--xC"},
			not:   []string{"clocks disagree"},
		},
		{
			name: "skewed clocks keep path order and say so",
			obs: []*model.Observation{
				{Tier: model.TierProxy, Time: at(500), Duration: 100 * time.Millisecond, Status: 201, Outcome: model.OutcomeOK},
				{Tier: model.TierServer, Time: at(0), Status: 201, Outcome: model.OutcomeOK, ResultID: "ord_3"},
			},
			first: []string{"clocks disagree (server logged it 500ms before proxy sent it), drawn in path order", "P->>S:", "S-->>P: 201"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			diagram := sequenceDiagram(intentOf(tc.obs...))
			pos := order(t, diagram, tc.first...)
			for i := 1; i < len(pos); i++ {
				if pos[i] < pos[i-1] {
					t.Errorf("%q is drawn before %q:\n%s", tc.first[i], tc.first[i-1], diagram)
				}
			}
			for _, n := range tc.not {
				if strings.Contains(diagram, n) {
					t.Errorf("%q in\n%s", n, diagram)
				}
			}
		})
	}
}
