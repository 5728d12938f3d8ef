package model

import (
	"fmt"
	"strings"
	"testing"
)

func TestSourceString(t *testing.T) {
	tests := []struct {
		src  Source
		want string
	}{
		{Source{File: "app.jsonl", Line: 12}, "app.jsonl:12"},
		{Source{File: "-", Line: 0}, "-:0"},
		{Source{File: "client.har", Line: 1, Entry: 1}, "client.har:1#entries[0]"},
		{Source{File: "client.har", Line: 1, Entry: 4}, "client.har:1#entries[3]"},
		{Source{File: "a b:c.log", Line: -7}, "a b:c.log:-7"},
		{Source{File: strings.Repeat("x", 200), Line: 1 << 40, Entry: 1000}, strings.Repeat("x", 200) + ":1099511627776#entries[999]"},
	}
	for _, tt := range tests {
		if got := tt.src.String(); got != tt.want {
			t.Errorf("%+v: %q, want %q", tt.src, got, tt.want)
		}
		if b, _ := tt.src.MarshalText(); string(b) != tt.want {
			t.Errorf("%+v as text: %q", tt.src, b)
		}
	}
}

// FuzzSourceString holds the hand-built form to fmt's.
func FuzzSourceString(f *testing.F) {
	f.Add("app.jsonl", 12, 0)
	f.Add("client.har", 1, 4)
	f.Fuzz(func(t *testing.T, file string, line, entry int) {
		s := Source{File: file, Line: line, Entry: entry}
		want := fmt.Sprintf("%s:%d", file, line)
		if entry > 0 {
			want = fmt.Sprintf("%s:%d#entries[%d]", file, line, entry-1)
		}
		if got := s.String(); got != want {
			t.Fatalf("%+v: %q, want %q", s, got, want)
		}
	})
}
