package formats

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/idem-cli/idem/model"
	"github.com/idem-cli/idem/redact"
	"github.com/tidwall/gjson"
)

// seedLines adds every line of the bundled fixtures as fuzz seeds, so the
// fuzzer starts from each real format.
func seedLines(f *testing.F) {
	paths, _ := filepath.Glob("../fixtures/scenarios/*/*.jsonl")
	inc, _ := filepath.Glob("../fixtures/incident/*.jsonl")
	for _, p := range append(paths, inc...) {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		for _, line := range bytes.Split(b, []byte("\n")) {
			if len(line) > 0 {
				f.Add(line)
			}
		}
	}
}

// FuzzParseLine feeds one line to the parser: it must not panic, and what
// it keeps must have a source and no field longer than the cap.
func FuzzParseLine(f *testing.F) {
	seedLines(f)
	for _, format := range all() {
		for _, s := range format.Samples {
			f.Add([]byte(s.Line))
		}
	}
	f.Add([]byte(`{"resourceLogs":[{"scopeLogs":[{"logRecords":[{"timeUnixNano":"1","attributes":[]}]}]}]}`))
	f.Add([]byte(`{"log":{"entries":[{"startedDateTime":"x","request":{},"response":{}}]}}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		p := NewParser(nil, nil)
		var res Result
		p.out = &res
		p.parseLine(line, model.Source{File: "f", Line: 1})
		for _, o := range res.Obs {
			if o.Source.File != "f" || o.Source.Line != 1 {
				t.Fatalf("source lost: %+v", o.Source)
			}
			for _, s := range []string{o.RequestID, o.Key, o.Route, o.Message, o.Detail, o.ResultID} {
				if len(s) > MaxField {
					t.Fatalf("field of %d bytes kept", len(s))
				}
			}
		}
	})
}

func FuzzHeader(f *testing.F) {
	f.Add(`{"Idempotency-Key":["k"]}`, "idempotency-key")
	f.Add(`[{"name":"X-Request-Id","value":"r"}]`, "x-request-id")
	f.Fuzz(func(t *testing.T, doc, name string) {
		_ = header(gjson.Parse(doc), name)
		_ = model.NormalizeKey(name)
		_ = redact.IsSecretName(name)
	})
}

// FuzzScanObject checks the single-pass scanner against gjson: every valid
// JSON object scans, with the members gjson sees; nothing panics.
func FuzzScanObject(f *testing.F) {
	seedLines(f)
	for _, s := range []string{`{}`, `{"a":"b\"c","d":[1,{"e":"}"}],"f":-1.5e3,"g":null,"h":true}`, `{"a":1`, `{"a":"\u00e9\\"}`, `{"a" : 1 , "b":[ ] }`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var r record
		ok := r.scanObject(b)
		if !gjson.ValidBytes(b) || !gjson.ParseBytes(b).IsObject() {
			return
		}
		if !ok {
			t.Fatalf("valid object rejected: %q", b)
		}
		n := 0
		gjson.ParseBytes(b).ForEach(func(k, v gjson.Result) bool {
			if n >= len(r.keys) || r.keys[n] != k.Str || r.val(n).Raw != v.Raw || r.val(n).Type != v.Type || (v.Type == gjson.String && r.val(n).Str != v.Str) {
				t.Fatalf("member %d: scanned %q=%q, gjson %q=%q", n, r.keys[min(n, len(r.keys)-1)], r.val(min(n, len(r.vals)-1)).Raw, k.Str, v.Raw)
			}
			if s, ok := r.valString(n); ok != (v.Type == gjson.String) || s != r.val(n).Str && ok {
				t.Fatalf("member %d: valString %q %v, value %q", n, s, ok, v.Str)
			}
			n++
			return true
		})
		if n != len(r.keys) {
			t.Fatalf("scanned %d members, gjson %d", len(r.keys), n)
		}
	})
}

// FuzzQuoteOrBackslash checks the word-at-a-time search against a plain
// loop, from every start.
func FuzzQuoteOrBackslash(f *testing.F) {
	f.Add([]byte("abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJ\tKLMNOP\x1b[31m\""))
	f.Add([]byte(`abcdefgh"ijk\lmnop`))
	f.Add([]byte("\xa2\xdc\x22\x5c\x00\x01\x7f\x80\xff\"\\"))
	f.Fuzz(func(t *testing.T, b []byte) {
		for j := 0; j <= len(b); j++ {
			want := -1
			for k := j; k < len(b); k++ {
				if b[k] == '"' || b[k] == '\\' || b[k] < 0x20 {
					want = k
					break
				}
			}
			if got := quoteBackslashOrControl(b, j); got != want {
				t.Fatalf("%q from %d: %d, want %d", b, j, got, want)
			}
		}
	})
}

// layoutOf returns line's shape, and the same key set with the layout
// learnt from line: what the parser reads the next line laid out alike by.
func layoutOf(tb testing.TB, line []byte) (sh, laidOut *shape) {
	tb.Helper()
	p := NewParser(nil, nil)
	if !p.rec.scanObject(line) {
		tb.Fatal("line does not scan")
	}
	sh = p.shapeOf(&p.rec)
	laidOut = &shape{keys: sh.keys, index: sh.index, plainKeys: sh.plainKeys}
	laidOut.learnLayout(&p.rec)
	if len(laidOut.seps) != len(sh.keys) {
		tb.Fatal("no layout learnt from the line")
	}
	return sh, laidOut
}

// FuzzScanObjectLike checks that scanning with the previous line's key set
// as a hint, by its names or by its layout's separators, finds exactly what
// scanning without one finds, and says the key set is the hint's only when
// it is.
func FuzzScanObjectLike(f *testing.F) {
	seedLines(f)
	hintLine := []byte(`{"time_iso8601":"2026-11-30T00:00:00+00:00","msec":"1795996800.148","request_id":"r","http_idempotency_key":"k","request_method":"POST","request_uri":"/v1/x","status":"201"}`)
	f.Add(hintLine)
	f.Add([]byte(`{"time_iso8601":"x","msec":"1","request_id":"r","http_idempotency_key":"k","request_method":"POST","request_uri":"/v1/x","status":"201","extra":1}`))
	f.Add([]byte(`{"time_iso8601":"x","msec":"1","request_id":"r","http_idempotency_key":"k","request_method":"POST","request_uri":"/v1/x"}`))
	f.Add([]byte(`{"time_iso8601":"x","ms\u0065c":"1","request_id":"r","http_idempotency_key":"k","request_method":"POST","request_uri":"/v1/x","status":"201"}`))
	f.Add([]byte(`{"time_iso8601":"x","msec":"1","request_id":"r","http_idempotency_key":"k","request_method":"POST","request_uri":"/v1/x","status":"201"} x`))
	f.Add([]byte(`{"time_iso8601":"x","msec":"1","request_id":"r","http_idempotency_key":"k","request_method":"POST","request_uri":"/v1/x","status":  "201" }`))
	f.Add([]byte("{\"time_iso8601\":\"x\",\"msec\":\"1\",\"request_id\":\"r\",\"http_idempotency_key\":\"k\",\"request_method\":\"POST\",\"request_uri\":\"/v1/x\",\"status\":\"2\x01\"}"))
	// The same key set, read by the hint line's separators.
	hint, laidOut := layoutOf(f, hintLine)
	f.Fuzz(func(t *testing.T, b []byte) {
		var plain, like, bySeps record
		okPlain := plain.scanObject(b)
		okLike := like.scanObjectLike(b, hint)
		okSeps := bySeps.scanObjectLike(b, laidOut)
		if okPlain != okLike || okPlain != okSeps {
			t.Fatalf("scan %v, with hint %v, by separators %v", okPlain, okLike, okSeps)
		}
		if plain.tooDeep != like.tooDeep || plain.tooDeep != bySeps.tooDeep {
			t.Fatalf("too deep: %v, with hint %v, by separators %v", plain.tooDeep, like.tooDeep, bySeps.tooDeep)
		}
		if !okPlain {
			return
		}
		if plain.ctl != like.ctl || plain.ctl != bySeps.ctl {
			t.Fatalf("raw control bytes: %v, with hint %v, by separators %v", plain.ctl, like.ctl, bySeps.ctl)
		}
		if bySeps.hinted != like.hinted && !bytes.Contains(b, []byte(`\`)) {
			t.Fatalf("hinted %v by separators, %v by names", bySeps.hinted, like.hinted)
		}
		sameRecord(t, &plain, &bySeps, hint)
		sameRecord(t, &plain, &like, hint)
		if like.hinted != (slices.Equal(plain.keys, hint.keys) && !bytes.Contains(b, []byte(`\`))) && !bytes.Contains(b, []byte(`\`)) {
			t.Fatalf("hinted %v for keys %q without escapes (hint %q)", like.hinted, plain.keys, hint.keys)
		}
	})
}

// sameRecord fails unless like, scanned with hint, holds what plain does.
func sameRecord(t *testing.T, plain, like *record, hint *shape) {
	t.Helper()
	same := len(plain.vals) == len(like.vals)
	for i := 0; same && i < len(plain.vals); i++ {
		a, b := plain.val(i), like.val(i)
		same = a.Type == b.Type && a.Raw == b.Raw && a.Str == b.Str && (a.Num == b.Num || a.Num != a.Num && b.Num != b.Num)
	}
	if !slices.Equal(plain.keys, like.keys) || !same {
		t.Fatalf("with hint: %q %v, without: %q %v", like.keys, like.vals, plain.keys, plain.vals)
	}
	// Hinted only when the key set is the hint's (a name written with
	// escapes is not compared, so the same set may go unhinted).
	if like.hinted && !slices.Equal(plain.keys, hint.keys) {
		t.Fatalf("hinted for keys %q (hint %q)", plain.keys, hint.keys)
	}
}

// TestQuoteOrBackslashEveryPair runs the word-at-a-time search over every
// pair of adjacent byte values at every place in a word (a borrow from one
// byte reaches only the next), on fillers below and above 0x80.
func TestQuoteOrBackslashEveryPair(t *testing.T) {
	for _, fill := range []byte{'a', 0xC3} {
		b := make([]byte, 10)
		for p := 0; p < 8; p++ {
			for c1 := 0; c1 < 256; c1++ {
				for c2 := 0; c2 < 256; c2++ {
					for i := range b {
						b[i] = fill
					}
					b[p], b[p+1] = byte(c1), byte(c2)
					want := -1
					for k, c := range b {
						if c == '"' || c == '\\' || c < 0x20 {
							want = k
							break
						}
					}
					if got := quoteBackslashOrControl(b, 0); got != want {
						t.Fatalf("%q: %d, want %d", b, got, want)
					}
				}
			}
		}
	}
}

// TestSeparatorsByteByByte changes each byte of a line of a learnt layout
// in turn (the separators are compared word by word, masked to their
// length): read by the separators, every such line holds what a plain
// scan finds, or fails as it does.
func TestSeparatorsByteByByte(t *testing.T) {
	line := []byte(`{"time_iso8601":"2026-11-30T00:00:00+00:00","msec":"1795996800.148","request_id":"r","http_idempotency_key":"k","request_method":"POST","request_uri":"/v1/x","upstream_response_time":"0.096","status":"201"}`)
	sh, laidOut := layoutOf(t, line)
	b := make([]byte, len(line))
	for i := range line {
		for _, c := range []byte{'x', '"', ' ', ',', line[i] ^ 0x20, line[i] + 1} {
			copy(b, line)
			b[i] = c
			var plain, bySeps record
			okPlain, okSeps := plain.scanObject(b), bySeps.scanObjectLike(b, laidOut)
			if okPlain != okSeps {
				t.Fatalf("%s: scan %v, by separators %v", b, okPlain, okSeps)
			}
			if okPlain {
				sameRecord(t, &plain, &bySeps, sh)
			}
		}
	}
}
