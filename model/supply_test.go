package model

import (
	"testing"
	"time"
)

// A line's fields, and whether its times are finer than the second: a
// log that writes seconds and a finer duration (nginx's $time_local and
// $request_time) ends on the second.
func TestFieldsOf(t *testing.T) {
	sec := time.Date(2026, 11, 30, 9, 14, 2, 0, time.UTC)
	ms := sec.Add(118 * time.Millisecond)
	tests := []struct {
		name string
		o    Observation
		want Field
	}{
		{"nothing", Observation{}, 0},
		{"ids and a status", Observation{RequestID: "r", KeyHash: "sha256:ab", Status: 201}, FieldRequestID | FieldKey | FieldStatus},
		{"a lost response is a status", Observation{Outcome: OutcomeTimeout}, FieldStatus},
		{"an effect with its result", Observation{Effect: true, ResultID: "ord_1", Decision: "new"}, FieldEffect | FieldResult | FieldDecision},
		{"payload and client", Observation{Fingerprint: "sha256:0d", Client: "10.0.0.1"}, FieldFingerprint | FieldClient},
		{"milliseconds", Observation{Time: ms}, FieldPrecise},
		{"milliseconds with a duration", Observation{Time: ms, Duration: 1500 * time.Microsecond}, FieldPrecise},
		{"on the second", Observation{Time: sec}, 0},
		{"a second's end less a finer duration", Observation{Time: sec.Add(-2398 * time.Millisecond), Duration: 2398 * time.Millisecond}, 0},
		{"a second's start plus a duration", Observation{Time: sec, Duration: 98 * time.Millisecond}, 0},
	}
	for _, tt := range tests {
		if got := FieldsOf(&tt.o); got != tt.want {
			t.Errorf("%s: %b, want %b", tt.name, got, tt.want)
		}
	}
}

func TestSupplied(t *testing.T) {
	s := &Set{Supplies: []Supply{
		{File: "access.log", Tier: TierProxy, Fields: FieldStatus | FieldKey},
		{File: "app.jsonl", Tier: TierServer, Fields: FieldKey | FieldPrecise},
	}}
	if !s.Supplied(TierUnknown, FieldStatus) || s.Supplied(TierServer, FieldStatus) || !s.Supplied(TierServer, FieldKey|FieldPrecise) ||
		s.Supplied(TierProxy, FieldKey|FieldPrecise) {
		t.Error("Supplied reads the wrong supply")
	}
	if s.Precise(&Observation{Tier: TierProxy, Source: Source{File: "access.log"}}) ||
		!s.Precise(&Observation{Tier: TierServer, Source: Source{File: "app.jsonl"}}) {
		t.Error("Precise reads the wrong supply")
	}
	if !(&Set{}).Precise(&Observation{}) {
		t.Error("a set made by hand is taken at its word")
	}
	for _, tt := range []struct {
		name string
		o    Observation
		f    Field
		want bool
	}{
		{"what its file supplied at its tier", Observation{Tier: TierServer, Source: Source{File: "app.jsonl"}}, FieldKey, true},
		{"what its file did not supply", Observation{Tier: TierServer, Source: Source{File: "app.jsonl"}}, FieldDecision, false},
		{"what another file supplied", Observation{Tier: TierServer, Source: Source{File: "app.jsonl"}}, FieldStatus, false},
		{"its file at another tier", Observation{Tier: TierServer, Source: Source{File: "access.log"}}, FieldStatus, false},
	} {
		if got := s.SuppliedBy(&tt.o, tt.f); got != tt.want {
			t.Errorf("SuppliedBy, %s: %v, want %v", tt.name, got, tt.want)
		}
	}
	if !(&Set{}).SuppliedBy(&Observation{}, FieldDecision) {
		t.Error("SuppliedBy: a set made by hand is taken at its word")
	}
}
