package trace

import "testing"

func TestSourceString(t *testing.T) {
	tests := []struct {
		src  Source
		want string
	}{
		{Source{File: "app.jsonl", Line: 12}, "app.jsonl:12"},
		{Source{File: "-", Line: 0}, "-:0"},
		{Source{File: "client.har", Line: 1, Entry: 1}, "client.har:1#entries[0]"},
		{Source{File: "client.har", Line: 1, Entry: 4}, "client.har:1#entries[3]"},
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
