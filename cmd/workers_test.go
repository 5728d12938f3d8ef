package cmd

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
)

// TestSameFindingsWhateverTheWorkers diagnoses a generated multi-megabyte
// nginx log (many batches, lost responses, new-key retries, conflicts)
// with 1, 2 and 7 parser workers and requires identical reports.
func TestSameFindingsWhateverTheWorkers(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	var b bytes.Buffer
	ms := int64(1796000000000)
	line := func(rid, key, method, uri string, status int, upstream string, rt float64, ip string) {
		ms += int64(rt*1000) + 37
		fmt.Fprintf(&b, `{"time_iso8601":"x","msec":"%d.%03d","remote_addr":"%s","http_x_request_id":"%s","http_idempotency_key":"%s","request_method":"%s","request_uri":"%s","status":"%d","request_time":"%.3f","upstream_status":"%s"}`+"\n",
			ms/1000, ms%1000, ip, rid, key, method, uri, status, rt, upstream)
	}
	for i := 0; i < 20000; i++ {
		ip := fmt.Sprintf("10.%d.%d.%d", r.IntN(250), r.IntN(250), r.IntN(250))
		key := fmt.Sprintf("k-%d", i)
		switch p := r.Float64(); {
		case p < 0.05:
			line(fmt.Sprintf("r-%d-a", i), key, "POST", "/v1/orders", 499, "201", 2.5, ip)
			line(fmt.Sprintf("r-%d-b", i), key, "POST", "/v1/orders", 201, "201", 0.05, ip)
		case p < 0.08:
			line(fmt.Sprintf("r-%d-a", i), key, "POST", "/v1/orders", 499, "201", 2.5, ip)
			line(fmt.Sprintf("r-%d-b", i), key+"-new", "POST", "/v1/orders", 201, "201", 0.1, ip)
		case p < 0.09:
			line(fmt.Sprintf("r-%d-a", i), key, "POST", "/v1/orders", 201, "201", 0.1, ip)
			line(fmt.Sprintf("r-%d-b", i), key, "POST", "/v1/orders", 409, "409", 0.01, ip)
		default:
			line(fmt.Sprintf("r-%d", i), key, "POST", "/v1/orders", 201, "201", 0.1, ip)
		}
		if i%3 == 0 {
			fmt.Fprintf(&b, "{broken line %d\n", i)
		}
	}
	path := filepath.Join(t.TempDir(), "big.jsonl")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	var first string
	for _, w := range []string{"1", "2", "7"} {
		code, out, errOut := run(t, "", "diagnose", "-o", "json", "--workers", w, path)
		if code != 1 {
			t.Fatalf("workers %s: exit %d: %s", w, code, errOut)
		}
		if first == "" {
			first = out
			if len(out) < 100000 {
				t.Fatalf("a report of %d bytes: too few findings to compare", len(out))
			}
			continue
		}
		if out != first {
			t.Errorf("the report with %s workers differs from the one with 1", w)
		}
	}
}
