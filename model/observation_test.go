package model

import (
	"testing"
	"time"
)

// A server's answer stands at its end; any other line where it began.
func TestObservationAt(t *testing.T) {
	t0 := time.Date(2026, 11, 30, 14, 2, 11, 0, time.UTC)
	d := 6191 * time.Millisecond
	for _, tt := range []struct {
		name  string
		o     Observation
		want  time.Time
		spans bool
	}{
		{"a server's answer, with its duration", Observation{Tier: TierServer, Time: t0, Duration: d, Status: 201}, t0.Add(d), true},
		{"a server line without a status (the effect)", Observation{Tier: TierServer, Time: t0, Duration: d}, t0, false},
		{"a server's answer without a duration", Observation{Tier: TierServer, Time: t0, Status: 201}, t0, false},
		{"a proxy's answer stands where the proxy saw the request", Observation{Tier: TierProxy, Time: t0, Duration: d, Status: 201}, t0, false},
		{"a client's", Observation{Tier: TierClient, Time: t0, Duration: d, Status: 201}, t0, false},
	} {
		if got := tt.o.At(); !got.Equal(tt.want) || tt.o.StandsAtEnd() != tt.spans {
			t.Errorf("%s: At = %v, StandsAtEnd = %v; want %v, %v", tt.name, got, tt.o.StandsAtEnd(), tt.want, tt.spans)
		}
	}
}
