package logstore

import (
	"context"
	"io"
	"strings"
	"testing"
)

func TestOpen(t *testing.T) {
	tests := []struct {
		addr, want, err string
	}{
		{addr: "victorialogs://127.0.0.1:9428", want: "http://127.0.0.1:9428"},
		{addr: "victorialogs+https://logs.internal:443/vl", want: "https://logs.internal:443/vl"},
		{addr: "victorialogs://127.0.0.1:9428?tls=1&account=3&project=4", want: "https://127.0.0.1:9428"},
		{addr: "victorialogs://u:pw@127.0.0.1:9428", err: "credentials do not belong"},
		{addr: "victorialogs://127.0.0.1:9428?account=-1", err: "account and project are numbers"},
		{addr: "elasticsearch://127.0.0.1:9200", err: "unknown store"},
		{addr: "loki://127.0.0.1:3100", want: "http://127.0.0.1:3100"},
		{addr: "loki+https://logs.example:443/loki?tenant=a", want: "https://logs.example:443/loki"},
		{addr: "loki://127.0.0.1:3100?tls=1", want: "https://127.0.0.1:3100"},
		{addr: "loki://u:pw@127.0.0.1:3100", err: "credentials do not belong"},
		{addr: "loki://127.0.0.1:3100?parser=xml", err: "parser is json or logfmt"},
		{addr: "loki://127.0.0.1:3100?max_entries=1", err: "max_entries is a number"},
		{addr: "loki://127.0.0.1:3100?lookback=week", err: "lookback is a duration"},
		{addr: "loki://", err: "no HOST:PORT"},
		{addr: "127.0.0.1:9428", err: "store address"},
		{addr: "victorialogs://", err: "no HOST:PORT"},
	}
	for _, tt := range tests {
		st, err := Open(tt.addr, Options{})
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) || strings.Contains(err.Error(), "pw") {
				t.Errorf("%s: error %v, want one with %q and no credential", tt.addr, err, tt.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tt.addr, err)
			continue
		}
		var base string
		switch st := st.(type) {
		case *victoriaLogs:
			base = st.base.String()
		case *lokiStore:
			base = st.base.String()
		}
		if got := base; got != tt.want {
			t.Errorf("%s: base %s, want %s", tt.addr, got, tt.want)
		}
	}
}

// Fetched lines are laid out at their own line numbers, so citations
// match the files.
func TestSourcesKeepLineNumbers(t *testing.T) {
	c := &collector{seen: map[string]bool{}, files: map[string]*file{}}
	for _, r := range []Record{
		{"_msg": "third", FieldFile: "a.log", FieldLine: "3"},
		{"_msg": "first", FieldFile: "a.log", FieldLine: "1"},
		{"_msg": "first", FieldFile: "a.log", FieldLine: "1"}, // fetched twice, kept once
	} {
		c.add(r)
	}
	srcs := c.sources()
	if len(srcs) != 1 || srcs[0].Name() != "a.log" {
		t.Fatalf("sources %v", srcs)
	}
	rc, _ := srcs[0].Open(context.Background())
	b, _ := io.ReadAll(rc)
	if string(b) != "first\n\nthird\n" || c.count != 2 {
		t.Errorf("%q (%d lines), want first at 1 and third at 3", b, c.count)
	}
}

// What a store says is not trusted: absurd line numbers, names and times
// cost bounded memory and crash nothing.
func TestHostileRecords(t *testing.T) {
	c := &collector{seen: map[string]bool{}, files: map[string]*file{}, shipped: (&victoriaLogs{}).Rebuild}
	for _, r := range []Record{
		{"_msg": "x", FieldFile: "a.log", FieldLine: "999999999999"},
		{"_msg": "y", FieldFile: "a.log", FieldLine: "-5"},
		{"_msg": "z", FieldFile: "a.log", FieldLine: "not a number"},
		{"_msg": "line\nbreak", FieldFile: "b.log", FieldLine: "2"},
		{"a.": "1", ".b": "2", "...": "3", "a..b": "4", "_time": "yesterday"},
		{},
	} {
		c.add(r)
	}
	total := 0
	for _, s := range c.sources() {
		rc, _ := s.Open(context.Background())
		b, _ := io.ReadAll(rc)
		total += len(b)
		if s.Name() == "b.log" && string(b) != "\nline break\n" {
			t.Errorf("b.log: %q, want the line on one line at 2", b)
		}
	}
	if total > maxPadding+1<<10 {
		t.Errorf("%d bytes laid out, want padding bounded to %d", total, maxPadding)
	}
}
