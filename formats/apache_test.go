package formats

import (
	"testing"
	"time"

	"github.com/idem-cli/idem/model"
)

// Which format reads a line: Apache's and Tomcat's stock layouts only
// where they are told apart (%D and the ids, %D %F and the ids, the ids
// shaped like generated ids), the bare combined line and one with a bare
// integer after it (nginx writes them too: $request_length, $bytes_sent)
// by combined, which reads no duration from the integer, and every stock
// layout where the input is said to be Apache's or Tomcat's, with their
// meaning.
func TestStockLayoutsReadWithTheirMeaning(t *testing.T) {
	const (
		bare    = `127.0.0.1 - frank [10/Oct/2000:13:55:36 -0700] "POST /apache_pb.gif HTTP/1.0" 200 2326 "-" "curl/8"`
		ngx     = `127.0.0.1 - - [10/Oct/2000:13:55:36 -0700] "POST /o HTTP/1.1" 201 5 "-" "curl/8" 1.500 "201" "r-1" "k-1"`
		ngxIDs  = `127.0.0.1 - - [10/Oct/2000:13:55:36 -0700] "POST /o HTTP/1.1" 201 5 "-" "curl/8" 1.500 "201" "5d41402abc4b2a76b9719d911017c592" "k-1"`
		withIDs = `127.0.0.1 - - [10/Oct/2000:13:55:36 -0700] "POST /o HTTP/1.1" 201 5 "-" "curl/8" 1500000 "5d41402abc4b2a76b9719d911017c592" "-"`
		xff     = `127.0.0.1 - - [10/Oct/2000:13:55:36 -0700] "POST /o HTTP/1.1" 201 5 "-" "curl/8" 1500000 "10.225.192.17, 10.2.2.1" "-"`
		tomcatI = `127.0.0.1 - - [10/Oct/2000:13:55:36 -0700] "POST /o HTTP/1.1" 201 5 "-" "curl/8" 1500000 12 "127.0.0.1" "http-nio-8080-exec-1"`
		timed   = `127.0.0.1 - - [10/Oct/2000:13:55:36 -0700] "POST /o HTTP/1.1" 201 5 "-" "curl/8" 1500000`
		unique  = `127.0.0.1 - - [10/Oct/2000:13:55:36 -0700] "POST /o HTTP/1.1" 201 5 "-" "curl/8" 1500000 aw-aEGIg3h5xKVa-ypXWuAAAAEE`
		tomcatF = `127.0.0.1 - - [10/Oct/2000:13:55:36 -0700] "POST /o HTTP/1.1" 201 5 1500000 12`
	)
	arrival := mustTime("2000-10-10T13:55:36-07:00")
	for _, tc := range []struct {
		forced, line, format, rid string
		time                      time.Time
		duration                  time.Duration
	}{
		{"", bare, "combined", "", arrival, 0},
		{"", ngx, "combined", "", arrival.Add(-1500 * time.Millisecond), 1500 * time.Millisecond}, // "r-1" is no generated id
		{"", ngxIDs, "combined", "5d41402abc4b2a76b9719d911017c592", arrival.Add(-1500 * time.Millisecond), 1500 * time.Millisecond},
		{"", timed, "combined", "", arrival, 0},   // %D to Apache, $request_length to nginx: said by no one
		{"", unique, "combined", "", arrival, 0},  // a trailing token is mod_unique_id's or Tomcat's %I: said by no one, read by no one
		{"", tomcatF, "combined", "", arrival, 0}, // %D %F to Tomcat, $request_length $bytes_sent to nginx
		{"", withIDs, "apache", "5d41402abc4b2a76b9719d911017c592", arrival, 1500 * time.Millisecond},
		{"", xff, "combined", "", arrival, 0},     // a forwarded-for list is no request id, so no Apache layout is evidenced
		{"", tomcatI, "combined", "", arrival, 0}, // %a and %I are no ids
		{"apache", timed, "apache", "", arrival, 1500 * time.Millisecond},
		{"tomcat", tomcatF, "tomcat", "", arrival, 1500 * time.Millisecond},
		{"apache", bare, "apache", "", arrival, 0},
		{"apache", unique, "apache", "aw-aEGIg3h5xKVa-ypXWuAAAAEE", arrival, 1500 * time.Millisecond},
		{"tomcat", bare, "tomcat", "", arrival, 0},
	} {
		var rule *SourceRule
		if tc.forced != "" {
			var err error
			if rule, err = (*Config)(nil).RuleFor("x.log", model.TierUnknown, tc.forced); err != nil {
				t.Fatal(err)
			}
		}
		p := NewParser(nil, rule)
		var res Result
		p.Into(&res)
		p.Line([]byte(tc.line), model.Source{File: "x.log", Line: 1})
		if len(res.Obs) != 1 {
			t.Errorf("%s %q: %d observations, skips %v", tc.forced, tc.line, len(res.Obs), res.Skips)
			continue
		}
		o := res.Obs[0]
		if o.Format != tc.format || o.RequestID != tc.rid || !o.Time.Equal(tc.time) || o.Duration != tc.duration {
			t.Errorf("%s %q: read as %s, id %q, start %s, duration %s; want %s, %q, %s, %s", tc.forced, tc.line, o.Format, o.RequestID,
				o.Time, o.Duration, tc.format, tc.rid, tc.time, tc.duration)
		}
	}
}
