package harness

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/idem-cli/idem/internal/kit/capture"
)

// TestPublicAccessLogs reads access logs of software that cannot run
// here, as other projects keep them for their own tests (their origins in
// fixtures/real/public/README.md), and checks what was read by hand from
// each file and its format's documentation: a request id only where the
// format names one, every line a request is read, a line that is none of
// its format's said.
func TestPublicAccessLogs(t *testing.T) {
	for _, tc := range []struct {
		file     string
		format   string
		obs      int
		skipped  int
		ids      []string // in order; nil: no line names one
		statuses []int
		first    time.Time // the first line's start
	}{
		{
			// API Gateway's requestId per request; requestTime the arrival.
			file: "elastic/apigateway-test-apigateway-rest.log", format: "apigateway", obs: 5,
			ids: []string{"48752d0f-c99d-4cfa-a5a7-f3c6834d19e5", "caa4a500-2651-4476-aa1f-a639b858819b", "c5a56ba0-fd42-4425-b7d2-5e8836563270",
				"c12d1542-b79e-4e79-a158-fdf36452a81b", "868ee022-bc3a-4acf-97e7-acb7472b3235"},
			statuses: []int{200, 200, 200, 200, 200}, first: time.Date(2023, 6, 10, 15, 36, 28, 0, time.UTC),
		},
		{
			// Its #Fields header names x-edge-request-id; time-taken is
			// seconds and the time the end, so the first line started 1 ms
			// before 21:02:31. Status 000: the viewer left first. The last
			// line has a field fewer than the header names: said.
			file: "elastic/cloudfront-test-cloudfront.log", format: "w3c", obs: 11, skipped: 1,
			ids: []string{"SOX4xwn4XV6Q4rgb7XiVGOHms_BGlTAC4KyHmureZmBNrjGdRLiNIQ==", "k6WGMNkEzR5BEM_SaF47gjtX9zBDO2m349OY2an0QPEaUum1ZOLrow==",
				"f37nTMVvnKvV2ZSvEsivup_c2kZ7VXzYdjC-GUQZ5qNs-89BlWazbw==", "1pkpNfBQ39sYMnjjUQjmH2w1wdJnbHYTbag21o_3OfcQgPzdL2RSSQ==",
				"3AqrZGCnF_g0-5KOvfA7c9XLcf4YGvMFSeFdIetR1N_2y8jSis8Zxg==", "kBkDzGnceVtWHqSCqBUqtA_cEs2T3tFUBbnBNkB9El_uVRhHgcZfcw==",
				"hrsHM5OM6sTIXUleC1G20YtDxMf5Cq0Jbz0pwhVpod2kgEn_W6akCQ==", "hrsHM5OM6sTIXUleC1G20YtDxMf5Cq0Jbz0pwhVpod2kgEn_W6akCQ==",
				"hrsHM5OM6sTIXUleC1G20YtDxMf5Cq0Jbz0pwhVpod2kgEn_W6akCQ==", "hrsHM5OM6sTIXUleC1G20YtDxMf5Cq0Jbz0pwhVpod2kgEn_W6akCQ==",
				"hrsHM5OM6sTIXUleC1G20YtDxMf5Cq0Jbz0pwhVpod2kgEn_W6akCQ=="},
			statuses: []int{200, 200, 200, 502, 502, 502, 200, 0, 200, 200, 200}, first: time.Date(2019, 12, 4, 21, 2, 30, 999e6, time.UTC),
		},
		{
			// An IIS-style header with no time-taken: the time as written.
			file: "lnav/logfile_w3c.0", format: "w3c", obs: 1, statuses: []int{200}, first: time.Date(2002, 5, 2, 17, 42, 15, 0, time.UTC),
		},
		{
			// Traefik's common log format: the request count, the router's
			// name, the backend's URL and the milliseconds appended; no
			// id. Its last line logs no status ("-").
			file: "elastic/traefik-test-format-common.log", format: "combined", obs: 8,
			statuses: []int{304, 304, 200, 404, 200, 200, 200, 0}, first: time.Date(2017, 10, 2, 20, 22, 7, 0, time.UTC),
		},
		{
			// Tomcat's patterns with %a, %X, %T and X-Forwarded-For named
			// in the line; its "-" 400 (line 10) is a request too.
			file: "elastic/tomcat-test-access.log", format: "combined", obs: 17,
			statuses: []int{200, 302, 200, 200, 200, 200, 200, 200, 200, 400, 200, 200, 200, 200, 200, 200, 200},
			first:    time.Date(2023, 3, 2, 13, 28, 17, 0, time.UTC),
		},
	} {
		t.Run(tc.file, func(t *testing.T) {
			path := filepath.Join(publicDir, tc.file)
			r := capture.MustRead(t, path)
			in := r.Input(path)
			obs := r.From(path)
			if len(obs) != tc.obs || in.Skipped != tc.skipped {
				t.Fatalf("%d observations, %d skipped (%v); want %d, %d", len(obs), in.Skipped, in.SkipSamples, tc.obs, tc.skipped)
			}
			for i, o := range obs {
				want := ""
				if tc.ids != nil {
					want = tc.ids[i]
				}
				if o.RequestID != want || o.Key != "" || o.Format != tc.format || o.Status != tc.statuses[i] {
					t.Errorf("line %d: %s request id %q key %q status %d; want %s %q, no key, %d", o.Source.Line, o.Format, o.RequestID, o.Key, o.Status,
						tc.format, want, tc.statuses[i])
				}
			}
			if !obs[0].Time.Equal(tc.first) {
				t.Errorf("first start %s, want %s", obs[0].Time, tc.first)
			}
		})
	}
}
