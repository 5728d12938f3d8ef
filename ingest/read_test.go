package ingest

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/idem-cli/idem/formats"
	"github.com/idem-cli/idem/model"
	"github.com/idem-cli/idem/trace"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

const goodLine = `{"time":"2026-11-30T09:14:02Z","level":"INFO","msg":"request completed","request_id":"r-%d","method":"POST","route":"/v1/x","status":201}`

func TestHostileLinesAreCountedAndSkipped(t *testing.T) {
	var in bytes.Buffer
	in.Write(formats.BOM)
	fmt.Fprintf(&in, goodLine+"\r\n", 1)                                                                              // 1: BOM + CRLF
	in.WriteString(`{"time":"2026-11-30T09:14:02Z","request_id":` + "\n")                                             // 2: truncated
	in.WriteString("\x00\x01\x02binary\xff\xfe junk\n")                                                               // 3: binary
	in.WriteString("\n")                                                                                              // 4: blank
	in.WriteString(`[{"a":1}]` + "\n")                                                                                // 5: array line
	in.WriteString(`{"msg":"` + strings.Repeat("x", 3000) + `"}` + "\n")                                              // 6: longer than the limit below
	fmt.Fprintf(&in, goodLine+"\n", 7)                                                                                // 7
	in.WriteString(`{"msg":"invalid utf8 ` + "\xff\xfe" + `","request_id":"r-8","status":200,"method":"GET"}` + "\n") // 8
	fmt.Fprintf(&in, goodLine, 9)                                                                                     // 9: no final newline

	obs, info := readString(t, "hostile", in.String(), Options{MaxLineBytes: 2048, Workers: 3})
	var ids []string
	for _, o := range obs {
		ids = append(ids, fmt.Sprintf("%s@%d", o.RequestID, o.Source.Line))
	}
	if got, want := strings.Join(ids, " "), "r-1@1 r-7@7 r-8@8 r-9@9"; got != want {
		t.Errorf("observations %q, want %q", got, want)
	}
	if info.Skipped != 4 || info.Lines != 9 {
		t.Errorf("skipped %d of %d lines, want 4 of 9: %+v", info.Skipped, info.Lines, info.SkipSamples)
	}
	wantSkips := map[int]string{2: "invalid JSON", 3: "not a JSON object", 5: "JSON array", 6: "longer than 2048"}
	for _, s := range info.SkipSamples {
		if w, ok := wantSkips[s.Source.Line]; !ok || !strings.Contains(s.Reason, w) {
			t.Errorf("skip at line %d: %q, want one containing %q", s.Source.Line, s.Reason, w)
		}
	}
}

func TestLongLineIsNotBuffered(t *testing.T) {
	// A line far past the limit and past bufio's buffer still streams by.
	huge := `{"msg":"` + strings.Repeat("a", 3<<20) + `"}`
	data := fmt.Sprintf(goodLine+"\n%s\n"+goodLine+"\n", 1, huge, 3)
	obs, info := readString(t, "huge", data, Options{MaxLineBytes: 1 << 20})
	if len(obs) != 2 || info.Skipped != 1 || info.SkipSamples[0].Source.Line != 2 {
		t.Fatalf("obs %d skipped %d %+v", len(obs), info.Skipped, info.SkipSamples)
	}
	// Under a generous limit the same line is read (and ignored: no request in it).
	obs, info = readString(t, "huge", data, Options{})
	if len(obs) != 2 || info.Skipped != 0 || info.Ignored != 1 {
		t.Fatalf("generous limit: obs %d skipped %d ignored %d", len(obs), info.Skipped, info.Ignored)
	}
}

func TestCompressedInputs(t *testing.T) {
	var plain bytes.Buffer
	for i := 1; i <= 500; i++ {
		fmt.Fprintf(&plain, goodLine+"\n", i)
	}
	var gz, zs bytes.Buffer
	gw := gzip.NewWriter(&gz)
	gw.Write(plain.Bytes())
	gw.Close()
	zw, _ := zstd.NewWriter(&zs)
	zw.Write(plain.Bytes())
	zw.Close()
	for name, data := range map[string][]byte{"gzip": gz.Bytes(), "zstd": zs.Bytes()} {
		obs, info := readString(t, name, string(data), Options{})
		if len(obs) != 500 || info.Compression != name || obs[499].Source.Line != 500 {
			t.Errorf("%s: %d observations, compression %q", name, len(obs), info.Compression)
		}
	}
	// A gzip stream cut short: what was read is kept and the cut is reported.
	cut := gz.Bytes()[:gz.Len()/2]
	var col Collector
	inputs, err := Read(context.Background(), []string{"-"}, Options{Stdin: bytes.NewReader(cut)}, &col)
	if err != nil {
		t.Fatal(err)
	}
	got := col.Obs
	if inputs[0].Err == nil {
		t.Errorf("a truncated gzip stream was not reported")
	}
	if len(got) == 0 {
		t.Errorf("nothing kept from the readable half")
	}
}

func TestInputErrorsNameTheFile(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range []struct {
		path string
		want string
	}{
		{filepath.Join(dir, "missing.jsonl"), "no such file"},
		{dir, "is a directory"},
	} {
		_, err := Read(context.Background(), []string{tt.path}, Options{}, &counter{})
		if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), tt.path) {
			t.Errorf("Read(%s) error = %v, want it to name the file and say %q", tt.path, err, tt.want)
		}
	}
	if os.Geteuid() != 0 {
		p := filepath.Join(dir, "secret.jsonl")
		os.WriteFile(p, []byte("{}\n"), 0)
		if _, err := Read(context.Background(), []string{p}, Options{}, &counter{}); err == nil || !strings.Contains(err.Error(), "permission denied") {
			t.Errorf("unreadable file: %v", err)
		}
	}
}

func TestWorkersDoNotChangeResults(t *testing.T) {
	var data bytes.Buffer
	for i := 1; i <= 20000; i++ {
		if i%97 == 0 {
			data.WriteString("{broken\n")
			continue
		}
		fmt.Fprintf(&data, goodLine+"\n", i)
	}
	render := func(workers int) string {
		obs, info := readString(t, "w", data.String(), Options{Workers: workers})
		var b strings.Builder
		for _, o := range obs {
			fmt.Fprintf(&b, "%s %d\n", o.RequestID, o.Source.Line)
		}
		fmt.Fprintf(&b, "skipped %d %v", info.Skipped, info.SkipSamples)
		return b.String()
	}
	one := render(1)
	for _, w := range []int{2, 4, 8} {
		if render(w) != one {
			t.Errorf("results with %d workers differ from one worker", w)
		}
	}
}

func TestJSONArrayDocument(t *testing.T) {
	data := "[\n  " + fmt.Sprintf(goodLine, 1) + ",\n  " + fmt.Sprintf(goodLine, 2) + "\n]\n"
	obs, _ := readString(t, "array", data, Options{})
	if len(obs) != 2 || obs[0].Source.Line != 2 || obs[1].Source.Line != 3 {
		t.Fatalf("array elements: %d, lines %v", len(obs), obs)
	}
}

func TestTruncatedFirstLineIsNotADocument(t *testing.T) {
	data := `{"time":"2026-11-30T09:14:02Z","requ` + "\n" + fmt.Sprintf(goodLine, 2) + "\n"
	obs, info := readString(t, "trunc", data, Options{})
	if len(obs) != 1 || info.Skipped != 1 || info.SkipSamples[0].Source.Line != 1 {
		t.Fatalf("obs %d, skipped %+v", len(obs), info.SkipSamples)
	}
	pretty := "{\n  \"time\": \"2026-11-30T09:14:02Z\",\n  \"request_id\": \"r-1\",\n  \"method\": \"POST\",\n  \"status\": 201\n}\n{\n  \"request_id\": \"r-2\", \"method\": \"GET\", \"status\": 200\n}\n"
	obs, _ = readString(t, "pretty", pretty, Options{})
	if len(obs) != 2 || obs[1].Source.Line != 7 {
		t.Fatalf("pretty-printed objects: %d, %+v", len(obs), obs)
	}
}

// chunkReader returns at most n bytes a read, as pipes and decompressors do.
type chunkReader struct {
	r *strings.Reader
	n int
}

func (c chunkReader) Read(p []byte) (int, error) { return c.r.Read(p[:min(len(p), c.n)]) }

func TestSplitKeepsLinesWholeAcrossBlocks(t *testing.T) {
	max := 2*batchBytes + 10
	lengths := []int{0, 10, batchBytes - 1, batchBytes, 5, batchBytes + 5, 3 * batchBytes, 7, max, max + 1, 1}
	for _, final := range []bool{true, false} {
		for _, chunk := range []int{7777, 1 << 22} {
			var in strings.Builder
			var want []string
			for i, n := range lengths {
				line := strings.Repeat(string(rune('a'+i)), n)
				in.WriteString(line)
				if final || i < len(lengths)-1 {
					in.WriteString("\n")
				}
				switch {
				case n == 0: // counted, but not handed on: the parser passes over it
				case n > max:
					want = append(want, fmt.Sprintf("%d: skipped", i+1))
				default:
					want = append(want, fmt.Sprintf("%d: %d×%c", i+1, n, 'a'+i))
				}
			}
			var got []string
			info := &model.Input{Path: "split"}
			err := split(context.Background(), chunkReader{strings.NewReader(in.String()), chunk}, info, 0, max, nil, func(b *batch) {
				for _, s := range b.res.Skips {
					got = append(got, fmt.Sprintf("%d: skipped", s.Source.Line))
				}
				for i := range b.ends {
					line := strings.TrimSuffix(string(b.data[b.starts[i]:b.ends[i]]), "\n")
					c := byte('?')
					if line != "" {
						c = line[0]
					}
					if strings.Trim(line, string(c)) != "" {
						t.Fatalf("line %d mixes bytes of two lines", b.nums[i])
					}
					got = append(got, fmt.Sprintf("%d: %d×%c", b.nums[i], len(line), 'a'+b.nums[i]-1))
				}
			})
			if err != nil {
				t.Fatal(err)
			}
			slices.SortStableFunc(got, func(x, y string) int { return cmpLineNo(x) - cmpLineNo(y) })
			if strings.Join(got, "\n") != strings.Join(want, "\n") || info.Lines != len(lengths) {
				t.Errorf("final newline %v, reads of %d: got %d lines\n%s\nwant\n%s", final, chunk, info.Lines, strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
		}
	}
}

func cmpLineNo(s string) int {
	var n int
	fmt.Sscanf(s, "%d:", &n)
	return n
}

// TestSmallBatchesChangeNothing reads the fixtures in batches of a few
// hundred bytes, so that every batch buffer is used again many times: what
// the correlator and a capture keep must not change.
func TestSmallBatchesChangeNothing(t *testing.T) {
	want := renderFixtures(t)
	defer func(n int) { batchBytes = n }(batchBytes)
	batchBytes = 300
	if got := renderFixtures(t); got != want {
		t.Errorf("small batches changed the set:\n%s\nwant\n%s", got, want)
	}
	if !strings.Contains(want, "captured") || strings.Count(want, "intent ") < 5 {
		t.Errorf("the fixtures gave too little to compare:\n%s", want)
	}
}

// renderFixtures reads the bundled fixtures, the real captures among
// them, and renders what the correlator and a capturer made of them, to
// compare ways of reading.
func renderFixtures(t *testing.T) string {
	t.Helper()
	paths, _ := filepath.Glob("../fixtures/exports/*")
	scenarios, _ := filepath.Glob("../fixtures/scenarios/*/*.jsonl")
	paths = append(append(paths, scenarios...), "../fixtures/incident/app.jsonl", "../fixtures/incident/nginx-access.jsonl")
	// And what real software wrote: the captures of the harness tests.
	real, _ := filepath.Glob("../fixtures/real/*/*")
	for _, p := range real {
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && filepath.Ext(p) != ".md" {
			paths = append(paths, p)
		}
	}
	var b strings.Builder
	capture := NewCapturer(incidentKey, "")
	c := trace.NewCorrelator(nil)
	inputs, err := Read(context.Background(), paths, Options{Workers: 2}, Tee(c, capture))
	if err != nil {
		t.Fatal(err)
	}
	set := c.Set(inputs)
	for _, c := range capture.Captured { // looked at after every buffer was used again
		fmt.Fprintf(&b, "captured %+v\n", *c)
	}
	for _, in := range set.Built {
		fmt.Fprintf(&b, "intent %s %s\n", in.Key, in.Scope)
		for _, d := range in.Deliveries {
			for _, o := range d.Observations {
				fmt.Fprintf(&b, "  %s %s %s %s %d %s %s %s\n", o.Source, o.RequestID, o.Method, o.Route, o.Status, o.Client, o.Time, o.Detail)
			}
		}
	}
	for _, d := range set.Unkeyed {
		for _, o := range d.Observations {
			fmt.Fprintf(&b, "unkeyed %s %s %s %d\n", o.Source, o.RequestID, o.Route, o.Status)
		}
	}
	for _, in := range inputs {
		fmt.Fprintf(&b, "input %s: %d lines, %d skipped, err %v\n", in.Path, in.Lines, in.Skipped, in.Err)
	}
	fmt.Fprintf(&b, "%d intents, %d deliveries\n", set.IntentCount(), set.DeliveryCount())
	return b.String()
}

// TestImpossibleTypesAreCountedAsRepaired: a key that is an array of two
// values, a status that is an object. The line is read with what can be
// read, and counted as repaired with the field named, not accepted
// silently.
func TestImpossibleTypesAreCountedAsRepaired(t *testing.T) {
	data := `{"time":"2026-11-30T10:00:00Z","level":"INFO","msg":"x","request_id":"r-1","idempotency_key":["k-1","k-2"],"method":"POST","route":"/x","status":201}` + "\n" +
		`{"time":"2026-11-30T10:00:01Z","level":"INFO","msg":"x","request_id":"r-2","idempotency_key":"k-3","method":"POST","route":"/x","status":{"code":201}}` + "\n" +
		`{"time":"2026-11-30T10:00:02Z","level":"INFO","msg":"x","request_id":"r-3","idempotency_key":"k-4","method":"POST","route":"/x","status":201}` + "\n"
	obs, in := readString(t, "types", data, Options{})
	if len(obs) != 3 || in.Repaired != 2 {
		t.Fatalf("%d observations, %d repaired (%v); want 3 and 2", len(obs), in.Repaired, in.RepairSamples)
	}
	if obs[0].Key != "k-1" || obs[1].Status != 0 || obs[2].Status != 201 {
		t.Errorf("read key %q, statuses %d %d", obs[0].Key, obs[1].Status, obs[2].Status)
	}
	want := []string{"field idempotency_key holds 2 values: the first was read", "field status is an object, not a value: ignored"}
	for i, s := range in.RepairSamples {
		if i < len(want) && s.Reason != want[i] {
			t.Errorf("repair %d at %s: %q, want %q", i, s.Source, s.Reason, want[i])
		}
	}
}
