package grammar

import (
	"errors"
	"strconv"
	"testing"
)

// Each syntax's fuzz target compiles a format string and reads a line
// with it: neither may panic, a compile error names a column inside the
// format (or just past it), a mismatch one inside the line, and what a
// line gives is never "not logged", and Could never refuses a line the
// program reads.

func fuzzSyntax(f *testing.F, syns []Syntax, seeds [][2]string) {
	for _, s := range seeds {
		f.Add(uint8(0), s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, which uint8, format, line string) {
		syn := syns[int(which)%len(syns)]
		p, err := Compile(syn, format, Options{Captures: []string{"X-Request-Id", "Idempotency-Key"}})
		if err != nil {
			var se *syntaxError
			var ae *ambiguousError
			if errors.As(err, &se) {
				if se.Column < 1 || se.Column > len(format)+1 {
					t.Fatalf("%q: column %d outside the format", format, se.Column)
				}
			} else if !errors.As(err, &ae) {
				t.Fatalf("%q: %v, want a SyntaxError", format, err)
			}
			return
		}
		var v Values
		if err := p.Read(line, &v); err != nil {
			var me *mismatchError
			if !errors.As(err, &me) {
				t.Fatalf("%q on %q: %v, want a MismatchError", format, line, err)
			}
			if me.Column < 1 {
				t.Fatalf("%q on %q: column %d", format, line, me.Column)
			}
			return
		}
		if !p.Could(line) {
			t.Fatalf("%q read %q, which Could refused", format, line)
		}
		for f := Field(1); f < numFields; f++ {
			if s, m := v.Get(f); m != nil && (s == "" || s == "-") {
				t.Fatalf("%q on %q: %s holds %q", format, line, f, s)
			}
		}
		for _, d := range v.Details {
			if d.Value == "" || d.Value == "-" {
				t.Fatalf("%q on %q: detail %s holds %q", format, line, d.Name, d.Value)
			}
		}
	})
}

func FuzzNginx(f *testing.F) {
	fuzzSyntax(f, []Syntax{Nginx}, [][2]string{
		{`$remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent "$http_x_request_id"`,
			`1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.1" 200 5 "r-1"`},
		{`log_format j escape=json '{"s":$status,"k":"$http_idempotency_key","t":"$msec"}';`, `{"s":201,"k":"\"k\"","t":"1.5"}`},
		{`${host}$uri \x22$status\x22`, `h/x \x22201\x22`},
		{`$remote_addr "$request" $status [$proxy_upstream_name] $upstream_addr $upstream_status $req_id`,
			`1.2.3.4 "-" 499 [ns-svc-80] 10.0.0.1:80, 10.0.0.2:80 : 10.0.0.3:80 502, 201 : 200 r-1`},
	})
}

func FuzzApache(f *testing.F) {
	fuzzSyntax(f, []Syntax{Apache, lighttpd, varnish}, [][2]string{
		{`LogFormat "%h %l %u %t \"%r\" %>s %b \"%{Referer}i\" %D %{UNIQUE_ID}e" x`,
			`1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.1" 200 5 "-" 123 Zk3b`},
		{`[%{%d/%b/%Y %T}t.%{msec_frac}t %{%z}t] %400,501{User-agent}i %{ms}T %{Varnish:hitmiss}x`, `[10/Oct/2000 13:55:36.042 -0700] - 17 miss`},
		{"combined", `1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.1" 200 5 "-" "curl/8"`},
		{`%{%Y-%m-%dT%H:%M:%S}t.%{msec_frac}t%{%z}t %{end:%d/%b/%Y}t %{end:%T}t,%{end:usec_frac}t %>s`,
			`2026-12-08T00:15:50.042+0100 08/Dec/2026 00:15:50,000042 201`},
	})
}

func FuzzTomcat(f *testing.F) {
	fuzzSyntax(f, []Syntax{Tomcat, tomcat9}, [][2]string{
		{`%h %l %u %t &quot;%r&quot; %s %b %D %{X-Request-Id}r %I`, `1.2.3.4 - - [18/Sep/2011:19:18:28 -0400] "GET / HTTP/1.1" 200 5 12 r x`},
		{`%{end:yyyy-MM-dd'T'HH:mm:ss.SSSZ}t %{msec_frac}t %{us}T`, `2011-09-18T19:18:28.123-0400 123 99`},
		{"common", `1.2.3.4 - - [18/Sep/2011:19:18:28 -0400] "GET / HTTP/1.1" 200 -`},
	})
}

func FuzzHAProxy(f *testing.F) {
	fuzzSyntax(f, []Syntax{haproxy}, [][2]string{
		{`%ci:%cp [%tr] %ft %b/%s %TR/%Tw/%Tc/%Tr/%Ta %ST %B %CC %CS %tsc %ac/%fc/%bc/%sc/%rc %sq/%bq %hr %hs %{+Q}r`,
			`10.0.1.2:33317 [06/Feb/2009:12:14:14.655] http-in static/srv1 10/0/30/69/109 200 2750 - - ---- 1/1/1/1/0 0/0 {r|k} {} "GET / HTTP/1.1"`},
		{`log-format "%{+Q,+E}o %[req.hdr(x-request-id)] %[capture.req.hdr(1)] %ID %%"`, `"r\"1" "k" "id" %`},
	})
}

func FuzzEnvoy(f *testing.F) {
	fuzzSyntax(f, []Syntax{Envoy}, [][2]string{
		{`[%START_TIME%] "%REQ(:METHOD)% %REQ(X-ENVOY-ORIGINAL-PATH?:PATH)% %PROTOCOL%" %RESPONSE_CODE% %RESPONSE_FLAGS% %DURATION% "%REQ(X-REQUEST-ID)%"`,
			`[2016-04-15T20:17:00.310Z] "POST /a HTTP/2" 204 - 226 "r-1"`},
		{`{"s":"%START_TIME(%s)%","c":"%RESPONSE_CODE%","h":{"k":"%REQ(IDEMPOTENCY-KEY):64%"}}`, `{"c":0,"s":"1460751420","h":{"k":"k-1"}}`},
	})
}

func FuzzSquid(f *testing.F) {
	fuzzSyntax(f, []Syntax{Squid}, [][2]string{
		{"squid", `1796688524.393     12 127.0.0.1 TCP_MISS/201 226 POST http://127.0.0.1:18080/v1/orders? - FIRSTUP_PARENT/127.0.0.1 -`},
		{`logformat idem %{X-Request-Id}>h %tS %-6tr "%rm %ru" %Ss/%03>Hs "%{Idempotency-Key}>h" %{%Y-%m-%dT%H:%M:%S}tg %%`,
			`r-1 1.5 12     "POST /x" NONE_NONE/000 "k" 2026-12-08T00:08:44 %`},
		{"combined", `1.2.3.4 - - [08/Dec/2026:00:08:44 +0000] "GET / HTTP/1.1" 200 5 "-" "curl/8" TCP_MISS:HIER_DIRECT`},
	})
}

// FuzzSendNumber reads any value of the retry headers: never a panic, a
// number only in range, and a value the header's grammar writes read back
// as written.
func FuzzSendNumber(f *testing.F) {
	for _, s := range []string{"0", "1", " 2 ", "attempt=2; max=3", "ttl=20261201T000000Z; attempt=3; max=3", "attempt=", "attempt=1;attempt=2", "-1", "\x00"} {
		f.Add(s, uint8(0))
		f.Add(s, uint8(1))
	}
	f.Fuzz(func(t *testing.T, value string, which uint8) {
		h := RetryHeaders[int(which)%len(RetryHeaders)]
		n := SendNumber(h, value)
		if n < 0 || n > 1<<20 {
			t.Fatalf("SendNumber(%q, %q) = %d, out of range", h, value, n)
		}
		if n == 0 {
			return
		}
		var again string
		if h == "amz-sdk-request" {
			again = "attempt=" + strconv.Itoa(n) + "; max=" + strconv.Itoa(n)
		} else {
			again = strconv.Itoa(n - 1)
		}
		if m := SendNumber(h, again); m != n {
			t.Fatalf("SendNumber(%q, %q) = %d, and %q written back reads %d", h, value, n, again, m)
		}
	})
}
