package ingest

import (
	"fmt"
	"strings"
	"testing"
)

// TestW3CHeaderReachesEveryBatch reads a W3C extended log in batches of a
// few hundred bytes: every line is read by the #Fields header in force,
// though the header was in an earlier batch, and a later header (the
// columns reordered, as after a restart) restarts the mapping.
func TestW3CHeaderReachesEveryBatch(t *testing.T) {
	defer func(n int) { batchBytes = n }(batchBytes)
	batchBytes = 300
	var b strings.Builder
	b.WriteString("#Software: Microsoft Internet Information Services 10.0\n#Version: 1.0\n")
	b.WriteString("#Fields: date time c-ip cs-method cs-uri-stem sc-status sc-win32-status time-taken cs(X-Request-Id)\n")
	for i := range 20 {
		fmt.Fprintf(&b, "2026-12-01 09:00:%02d 10.0.0.1 POST /v1/orders 201 0 15 c9b2decb-ebc7-4a9b-99d6-6971277200%02d\n", i, i)
	}
	b.WriteString("#Fields: time date cs-uri-stem cs-method sc-status c-ip time-taken sc-win32-status\n")
	for i := range 20 {
		fmt.Fprintf(&b, "09:01:%02d 2026-12-01 /v1/pay PUT 504 10.0.0.2 30000 0\n", i)
	}
	obs, in := readString(t, "iis.log", b.String(), Options{Workers: 2})
	if in.Skipped != 0 || len(obs) != 40 {
		t.Fatalf("%d observations, %d skipped (%v)", len(obs), in.Skipped, in.SkipSamples)
	}
	for i, o := range obs {
		want := "POST /v1/orders 201 c9b2decb-ebc7-4a9b-99d6-6971277200"
		got := fmt.Sprintf("%s %s %d %s", o.Method, o.Route, o.Status, o.RequestID)
		if i >= 20 {
			want = "PUT /v1/pay 504 "
		} else {
			got = got[:len(got)-2]
		}
		if got != want || o.Format != "w3c" {
			t.Errorf("line %d: %s (%s), want %s", o.Source.Line, got, o.Format, want)
		}
	}
}

// TestCRIPartsJoinOrAreSaid reads a container runtime's file: a line
// split in parts (P, then F) is joined, also where a batch would end
// between them, and a part whose end never came is said, never dropped.
func TestCRIPartsJoinOrAreSaid(t *testing.T) {
	line := `2026-12-01T09:00:00.1Z stdout F {"time":"2026-12-01T09:00:00Z","level":"INFO","msg":"ok","request_id":"c9b2decb-ebc7-4a9b-99d6-69712772ef41"}` + "\n"
	split := "2026-12-01T09:00:00.1Z stdout P {\"time\":\"2026-12-01T09:00:00Z\",\"level\":\"INFO\",\"msg\":\"joined\",\n" +
		`2026-12-01T09:00:00.1Z stdout F "request_id":"0b5d3c1e-5b7a-4d1e-9a63-2f1f3c9b8e41"}` + "\n"
	obs, in := readString(t, "pod.log", line+split+line, Options{Workers: 1})
	if in.Skipped != 0 || len(obs) != 3 || obs[1].Message != "joined" || obs[1].RequestID != "0b5d3c1e-5b7a-4d1e-9a63-2f1f3c9b8e41" || obs[1].Source.Line != 2 {
		t.Fatalf("%d observations, %d skipped (%v); the joined one: %+v", len(obs), in.Skipped, in.SkipSamples, obs)
	}
	defer func(n int) { batchBytes = n }(batchBytes)
	batchBytes = len(line) + strings.Index(split, "\n") + 1 + 5 // the P part ends the first batch
	obs, in = readString(t, "pod.log", line+split+line, Options{Workers: 2})
	if len(obs) != 3 || in.Skipped != 0 || obs[1].Message != "joined" || obs[1].Source.Line != 2 || obs[2].Source.Line != 4 {
		t.Errorf("split where a batch ends: %d observations, %d skipped (%v), want the parts joined: %+v", len(obs), in.Skipped, in.SkipSamples, obs)
	}
	obs, in = readString(t, "pod.log", line+split[:strings.Index(split, "\n")+1], Options{Workers: 2})
	if len(obs) != 1 || in.Skipped != 1 {
		t.Errorf("a part at the end: %d observations, %d skipped (%v), want it said", len(obs), in.Skipped, in.SkipSamples)
	}
}
