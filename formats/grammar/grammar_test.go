package grammar

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// want is what a line must give: each listed field's value, and the
// details by name; fields not listed must be empty.
type want struct {
	fields  map[Field]string
	details map[string]string
}

func TestRead(t *testing.T) {
	for _, tc := range []struct {
		name   string
		syntax Syntax
		format string
		opt    Options
		line   string
		want   want
	}{{
		name:   "apache combined with %D and mod_unique_id",
		syntax: Apache,
		format: `LogFormat "%h %l %u %t \"%r\" %>s %b \"%{Referer}i\" \"%{User-agent}i\" %D %{UNIQUE_ID}e" timed`,
		line: `127.0.0.1 - frank [10/Oct/2000:13:55:36 -0700] "GET /apache_pb.gif HTTP/1.0" 200 2326 "http://www.example.com/start.html" ` +
			`"Mozilla/4.08 [en] (Win98; I ;Nav)" 1234 Zk3b1X8AAQEAAB9mAAAAAA`,
		want: want{fields: map[Field]string{RequestID: "Zk3b1X8AAQEAAB9mAAAAAA", RequestLine: "GET /apache_pb.gif HTTP/1.0", Status: "200",
			Client: "127.0.0.1", Start: "10/Oct/2000:13:55:36 -0700", Duration: "1234"}},
	}, {
		name:   "apache: an escaped quote inside a quoted header",
		syntax: Apache,
		format: `%h %t "%r" %>s "%{X-Request-Id}i" "%{Idempotency-Key}i"`,
		line:   `::1 [10/Oct/2000:13:55:36 -0700] "POST /a\"b HTTP/1.1" 201 "r-1" "\"k-1\""`,
		want: want{fields: map[Field]string{RequestID: "r-1", Key: `"k-1"`, RequestLine: `POST /a"b HTTP/1.1`, Status: "201",
			Client: "::1", Start: "10/Oct/2000:13:55:36 -0700"}},
	}, {
		name:   "apache: the named combined format",
		syntax: Apache,
		format: "combined",
		line:   `1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.1" 200 5 "-" "curl/8"`,
		want: want{fields: map[Field]string{RequestLine: "GET / HTTP/1.1", Status: "200", Client: "1.2.3.4",
			Start: "10/Oct/2000:13:55:36 -0700"}},
	}, {
		name:   "apache: a strftime time and its milliseconds apart",
		syntax: Apache,
		format: `[%{%d/%b/%Y %T}t.%{msec_frac}t %{%z}t] %m %U %>s %{ms}T`,
		line:   `[10/Oct/2000 13:55:36.042 -0700] POST /v1/orders 201 17`,
		want: want{fields: map[Field]string{Start: "10/Oct/2000 13:55:36.042 -0700", Method: "POST", Path: "/v1/orders",
			Status: "201", Duration: "17"}},
	}, {
		name:   "apache: a date, its milliseconds and its zone with nothing between them, one time",
		syntax: Apache,
		format: `%{%Y-%m-%dT%H:%M:%S}t.%{msec_frac}t%{%z}t %>s`,
		line:   `2026-12-08T00:15:50.042+0100 201`,
		want:   want{fields: map[Field]string{Start: "2026-12-08T00:15:50.042+0100", Status: "201"}},
	}, {
		name:   "apache: a date and a time apart, the end's microseconds",
		syntax: Apache,
		format: `%{end:%Y-%m-%d}t %{end:%H:%M:%S}t,%{end:usec_frac}t %>s`,
		line:   `2026-12-08 00:15:50,000042 201`,
		want:   want{fields: map[Field]string{End: "2026-12-08 00:15:50,000042", Status: "201"}},
	}, {
		name:   "apache: a fraction after an epoch is not composed, but kept apart",
		syntax: Apache,
		format: `%{sec}t.%{msec_frac}t %>s`,
		line:   `1796688950.042 201`,
		want:   want{fields: map[Field]string{Start: "1796688950", StartFrac: "042", Status: "201"}},
	}, {
		name:   "lighttpd: %t is the end of the request",
		syntax: lighttpd,
		format: `%h %V %u %t "%r" %>s %b %D "%{X-Request-Id}i"`,
		line:   `127.0.0.1 localhost - [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.1" 200 5 1500 "rid-9"`,
		want: want{fields: map[Field]string{RequestID: "rid-9", RequestLine: "GET / HTTP/1.1", Status: "200", Client: "127.0.0.1",
			End: "10/Oct/2000:13:55:36 -0700", Duration: "1500"}},
	}, {
		name:   "varnishncsa: extended variables are details",
		syntax: varnish,
		format: `%h %t "%r" %s %D %{Varnish:hitmiss}x %{Idempotency-Key}i`,
		line:   `127.0.0.1 [10/Oct/2000:13:55:36 -0700] "POST /v1/orders HTTP/1.1" 201 2001 miss k-7`,
		want: want{fields: map[Field]string{Key: "k-7", RequestLine: "POST /v1/orders HTTP/1.1", Status: "201", Client: "127.0.0.1",
			Start: "10/Oct/2000:13:55:36 -0700", Duration: "2001"}, details: map[string]string{"%{Varnish:hitmiss}x": "miss"}},
	}, {
		name:   "tomcat: server.xml's entities, %D in microseconds, a request attribute",
		syntax: Tomcat,
		format: `%a %t &quot;%r&quot; %s %D %{X-Request-Id}r %I`,
		line:   `127.0.0.1 [18/Sep/2011:19:18:28 -0400] "POST /x HTTP/1.1" 201 3456 abc http-nio-8080-exec-1`,
		want: want{fields: map[Field]string{RequestID: "abc", RequestLine: "POST /x HTTP/1.1", Status: "201", Client: "127.0.0.1",
			Start: "18/Sep/2011:19:18:28 -0400", Duration: "3456"}},
	}, {
		name:   "tomcat: a SimpleDateFormat time taken at the end",
		syntax: Tomcat,
		format: `%{end:yyyy-MM-dd'T'HH:mm:ss.SSSZ}t %m %U %s %{ms}T`,
		line:   `2011-09-18T19:18:28.123-0400 GET /x 200 12`,
		want:   want{fields: map[Field]string{End: "2011-09-18T19:18:28.123-0400", Method: "GET", Path: "/x", Status: "200", Duration: "12"}},
	}, {
		name:   "nginx: a JSON template, escape=json, keys reordered and an unknown variable",
		syntax: Nginx,
		format: `log_format j escape=json '{"s":$status,"rid":"$http_x_request_id","k":"$http_idempotency_key",'
		            '"r":"$request","rt":$request_time,"t":"$time_local","x":"$tenant"}';`,
		line: `{"s":499,"rid":"abc","k":"\"k1\"","r":"POST /x?y=1 HTTP/1.1","rt":0.123,"t":"10/Oct/2000:13:55:36 -0700","x":"acme"}`,
		want: want{fields: map[Field]string{RequestID: "abc", Key: `"k1"`, RequestLine: "POST /x?y=1 HTTP/1.1", Status: "499",
			End: "10/Oct/2000:13:55:36 -0700", Duration: "0.123"}, details: map[string]string{"$tenant": "acme"}},
	}, {
		name:   "nginx: the client's id outranks nginx's own; $msec outranks $time_iso8601",
		syntax: Nginx,
		format: `$request_id $time_iso8601 $msec $http_x_request_id "$request_method $request_uri" $status $upstream_status`,
		line:   `7a98025445386b1feef1402bb13362e5 2024-12-10T10:53:47+00:00 1733828027.704 c-1 "POST /v1/orders" 504 504, 201`,
		want: want{fields: map[Field]string{RequestID: "c-1", Method: "POST", Path: "/v1/orders", Status: "504", UpstreamStatus: "504, 201",
			End: "1733828027.704"}},
	}, {
		name:   "nginx: ingress-nginx's default, upstream lists holding spaces, its $req_id and $proxy_upstream_name",
		syntax: Nginx,
		format: `$remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent "$http_referer" "$http_user_agent" ` +
			`$request_length $request_time [$proxy_upstream_name] [$proxy_alternative_upstream_name] $upstream_addr ` +
			`$upstream_response_length $upstream_response_time $upstream_status $req_id`,
		line: `10.1.2.3 - - [30/Nov/2026:09:14:04 +0000] "POST /v1/orders HTTP/1.1" 499 0 "-" "okhttp/4.12.0" 301 2.398 [shop-api-8080] [] ` +
			`10.244.1.7:8080, 10.244.2.9:8080 : 10.0.0.1:80 0, 0 : 0 1.000, 1.397 : 0.001 502, 201 : 200 c9b2decb-ebc7-4a9b-99d6-69712772ef41`,
		want: want{fields: map[Field]string{RequestID: "c9b2decb-ebc7-4a9b-99d6-69712772ef41", RequestLine: "POST /v1/orders HTTP/1.1", Status: "499",
			UpstreamStatus: "502, 201 : 200", Client: "10.1.2.3", End: "30/Nov/2026:09:14:04 +0000", Duration: "2.398", Upstream: "shop-api-8080"}},
	}, {
		name:   "nginx: a request line nginx could not read is \"-\", with none of its spaces",
		syntax: Nginx,
		format: `$remote_addr [$time_local] "$request" $status $upstream_status $req_id`,
		line:   `10.1.2.3 [30/Nov/2026:09:14:04 +0000] "-" 400 - 2c1f0d6e8b3a4f5e9d7c6b5a4f3e2d1c`,
		want: want{fields: map[Field]string{RequestID: "2c1f0d6e8b3a4f5e9d7c6b5a4f3e2d1c", Status: "400", Client: "10.1.2.3",
			End: "30/Nov/2026:09:14:04 +0000"}},
	}, {
		name:   "nginx: default escaping's \\xHH",
		syntax: Nginx,
		format: `"$http_idempotency_key" $status`,
		line:   `"\x22k-2\x22" 201`,
		want:   want{fields: map[Field]string{Key: `"k-2"`, Status: "201"}},
	}, {
		name:   "haproxy: option httplog, captures named",
		syntax: haproxy,
		format: `%ci:%cp [%tr] %ft %b/%s %TR/%Tw/%Tc/%Tr/%Ta %ST %B %CC %CS %tsc %ac/%fc/%bc/%sc/%rc %sq/%bq %hr %hs %{+Q}r`,
		opt:    Options{Captures: []string{"Host", "X-Request-Id", "Idempotency-Key"}},
		line: `10.0.1.2:33317 [06/Feb/2009:12:14:14.655] http-in static/srv1 10/0/30/69/109 200 2750 - - CH-- 1/1/1/1/2 0/0 ` +
			`{1wt.eu|abc-123|k-5} {} "GET /index.html HTTP/1.1"`,
		want: want{fields: map[Field]string{RequestID: "abc-123", Key: "k-5", RequestLine: "GET /index.html HTTP/1.1", Status: "200",
			Client: "10.0.1.2", Start: "06/Feb/2009:12:14:14.655", Duration: "109", Termination: "CH--", Retries: "2"}},
	}, {
		name:   "haproxy: %hr without the captures' names is a detail, never guessed",
		syntax: haproxy,
		format: `%ci [%tr] %ST %hr %{+Q}r`,
		line:   `10.0.1.2 [06/Feb/2009:12:14:14.655] 201 {abc-123|k-5} "POST /o HTTP/1.1"`,
		want: want{fields: map[Field]string{RequestLine: "POST /o HTTP/1.1", Status: "201", Client: "10.0.1.2", Start: "06/Feb/2009:12:14:14.655"},
			details: map[string]string{"%hr": "{abc-123|k-5}"}},
	}, {
		name:   "haproxy: sample fetches, %o's quoting of strings but not numbers, escaped spaces",
		syntax: haproxy,
		format: `log-format %{+Q}o%ST\ %[req.hdr(x-request-id)]\ %[capture.req.hdr(0)]\ %ID\ %Ta\ %[req.hdr(x-request-id),lower]`,
		opt:    Options{Captures: []string{"Idempotency-Key"}},
		line:   `201 "R-1" "k-9" "hap-1" 12 "r-1"`,
		want: want{fields: map[Field]string{RequestID: "R-1", Key: "k-9", Status: "201", Duration: "12"},
			details: map[string]string{"%[req.hdr(x-request-id),lower]": "r-1"}},
	}, {
		name:   "envoy: its default format",
		syntax: Envoy,
		format: `[%START_TIME%] "%REQ(:METHOD)% %REQ(X-ENVOY-ORIGINAL-PATH?:PATH)% %PROTOCOL%" %RESPONSE_CODE% %RESPONSE_FLAGS% %BYTES_RECEIVED% ` +
			`%BYTES_SENT% %DURATION% %RESP(X-ENVOY-UPSTREAM-SERVICE-TIME)% "%REQ(X-FORWARDED-FOR)%" "%REQ(USER-AGENT)%" "%REQ(X-REQUEST-ID)%" ` +
			`"%REQ(:AUTHORITY)%" "%UPSTREAM_HOST%"`,
		line: `[2016-04-15T20:17:00.310Z] "POST /api/v1/locations HTTP/2" 204 - 154 0 226 100 "10.0.35.28" "nsq2http" ` +
			`"cc21d9b0-cf5c-432b-8c7e-98aeb7988cd2" "locations" "tcp://10.0.2.1:80"`,
		want: want{fields: map[Field]string{RequestID: "cc21d9b0-cf5c-432b-8c7e-98aeb7988cd2", Method: "POST", Path: "/api/v1/locations",
			Status: "204", Client: "10.0.35.28", Start: "2016-04-15T20:17:00.310Z", Duration: "226"}},
	}, {
		// The upstream's service time is Envoy's own header, of no use;
		// every reason is kept, in order; the remote address is the
		// client without the port that names its connection.
		name:   "envoy: Istio's default format",
		syntax: Envoy,
		format: `[%START_TIME%] "%REQ(:METHOD)% %REQ(X-ENVOY-ORIGINAL-PATH?:PATH)% %PROTOCOL%" %RESPONSE_CODE% %RESPONSE_FLAGS% ` +
			`%RESPONSE_CODE_DETAILS% %CONNECTION_TERMINATION_DETAILS% "%UPSTREAM_TRANSPORT_FAILURE_REASON%" %BYTES_RECEIVED% %BYTES_SENT% ` +
			`%DURATION% %RESP(X-ENVOY-UPSTREAM-SERVICE-TIME)% "%REQ(X-FORWARDED-FOR)%" "%REQ(USER-AGENT)%" "%REQ(X-REQUEST-ID)%" ` +
			`"%REQ(:AUTHORITY)%" "%UPSTREAM_HOST%" %UPSTREAM_CLUSTER_RAW% %UPSTREAM_LOCAL_ADDRESS% %DOWNSTREAM_LOCAL_ADDRESS% ` +
			`%DOWNSTREAM_REMOTE_ADDRESS% %REQUESTED_SERVER_NAME% %ROUTE_NAME%`,
		line: `[2026-11-30T09:14:02.114Z] "POST /v1/orders HTTP/1.1" 503 UF upstream_reset_before_response_started{connection_failure} - ` +
			`"delayed_connect_error:_111" 312 91 3 - "-" "okhttp/4.12.0" "r-1" "shop.example.com" "10.44.1.27:8080" outbound|8080||api ` +
			`- 10.44.1.27:8080 [2001:db8::7]:51544 - default`,
		want: want{fields: map[Field]string{RequestID: "r-1", Method: "POST", Path: "/v1/orders", Status: "503", Flags: "UF",
			Reason: "upstream_reset_before_response_started{connection_failure} delayed_connect_error:_111", Client: "2001:db8::7",
			Start: "2026-11-30T09:14:02.114Z", Duration: "3"}},
	}, {
		name:   "envoy: json_format read by member name, whatever the order, typed values too",
		syntax: Envoy,
		format: `{"start":"%START_TIME%","m":"%REQ(:METHOD)%","code":"%RESPONSE_CODE%","flags":"%RESPONSE_FLAGS%",` +
			`"ids":{"rid":"%REQ(X-REQUEST-ID)%","key":"%REQ(IDEMPOTENCY-KEY)%"},"d":"%DURATION%","const":"x"}`,
		line: `{"code":0,"flags":"DC","m":"POST","start":"2016-04-15T20:17:00.310Z","d":1870,"ids":{"key":"k-3","rid":"r-3"},"other":1}`,
		want: want{fields: map[Field]string{RequestID: "r-3", Key: "k-3", Method: "POST", Status: "0", Flags: "DC",
			Start: "2016-04-15T20:17:00.310Z", Duration: "1870"}},
	}, {
		name:   "squid: its native format, the end in seconds and milliseconds apart, the duration padded",
		syntax: Squid,
		format: "squid",
		line:   `1796688524.393     12 127.0.0.1 TCP_MISS_ABORTED/000 0 POST http://127.0.0.1:18080/v1/orders? - FIRSTUP_PARENT/127.0.0.1 -`,
		want: want{fields: map[Field]string{End: "1796688524", EndFrac: "393", Duration: "12", Client: "127.0.0.1", OutcomeWord: "TCP_MISS_ABORTED",
			Status: "000", Method: "POST", Path: "http://127.0.0.1:18080/v1/orders?", NextHop: "FIRSTUP_PARENT"}},
	}, {
		name:   "squid: a logformat directive with headers, the start, and a left-aligned padded value",
		syntax: Squid,
		format: `logformat idem %{X-Request-Id}>h %tS %-6tr %>a "%rm %ru HTTP/%rv" %Ss/%03>Hs %<Hs "%{Idempotency-Key}>h" %{Tenant}>h`,
		line:   `abc-1 1796688524.381 12     127.0.0.1 "POST http://h/v1/orders? HTTP/1.1" TCP_MISS/201 201 "k 1" acme`,
		want: want{fields: map[Field]string{RequestID: "abc-1", Start: "1796688524.381", Duration: "12", Client: "127.0.0.1", Method: "POST",
			Path: "http://h/v1/orders?", OutcomeWord: "TCP_MISS", Status: "201", UpstreamStatus: "201", Key: "k 1"},
			details: map[string]string{"%{Tenant}>h": "acme"}},
	}, {
		name:   "squid: its combined format, %tl the end as a date",
		syntax: Squid,
		format: "combined",
		line:   `127.0.0.1 - - [08/Dec/2026:00:08:44 +0000] "POST http://h/v1/orders? HTTP/1.1" 503 4096 "-" "curl/8" TCP_MISS:HIER_NONE`,
		want: want{fields: map[Field]string{End: "08/Dec/2026:00:08:44 +0000", Client: "127.0.0.1", Method: "POST", Path: "http://h/v1/orders?",
			Status: "503", OutcomeWord: "TCP_MISS", NextHop: "HIER_NONE"}},
	}, {
		name:   "two variables with nothing between them are one detail",
		syntax: Nginx,
		format: `$host$request_uri $status`,
		line:   `example.com/v1/orders 201`,
		want:   want{fields: map[Field]string{Status: "201"}, details: map[string]string{"$host$request_uri": "example.com/v1/orders"}},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := Compile(tc.syntax, tc.format, tc.opt)
			if err != nil {
				t.Fatal(err)
			}
			var v Values
			if err := p.Read(tc.line, &v); err != nil {
				t.Fatal(err)
			}
			for f := Field(1); f < numFields; f++ {
				got, _ := v.Get(f)
				if got != tc.want.fields[f] {
					t.Errorf("%s = %q, want %q", f, got, tc.want.fields[f])
				}
			}
			details := map[string]string{}
			for _, d := range v.Details {
				details[d.Name] = d.Value
			}
			if len(details) != len(tc.want.details) {
				t.Errorf("details %v, want %v", details, tc.want.details)
			}
			for k, w := range tc.want.details {
				if details[k] != w {
					t.Errorf("detail %s = %q, want %q", k, details[k], w)
				}
			}
		})
	}
}

func TestMeaningsUnitsAndTimes(t *testing.T) {
	for _, tc := range []struct {
		syntax Syntax
		format string
		field  Field
		unit   time.Duration
		layout string
	}{
		{Apache, "%D", Duration, time.Microsecond, ""},
		{Apache, "%T", Duration, time.Second, ""},
		{Apache, "%{ms}T", Duration, time.Millisecond, ""},
		{Apache, "%t", Start, 0, ""},
		{Apache, "%{end:%d/%b/%Y:%H:%M:%S %z}t", End, 0, "02/Jan/2006:15:04:05 -0700"},
		{Apache, "%{msec}t", Start, time.Millisecond, ""},
		{lighttpd, "%t", End, 0, ""},
		{lighttpd, "%{begin:%Y-%m-%dT%H:%M:%S}t", Start, 0, "2006-01-02T15:04:05"},
		{Tomcat, "%D", Duration, time.Microsecond, ""},
		{tomcat9, "%D", Duration, time.Millisecond, ""},
		{Tomcat, "%{yyyy-MM-dd HH:mm:ss.SSS}t", Start, 0, "2006-01-02 15:04:05.000"},
		{Nginx, "$msec", End, time.Second, ""},
		{Nginx, "$request_time", Duration, time.Second, ""},
		{haproxy, "%Ta", Duration, time.Millisecond, ""},
		{haproxy, "%tr", Start, 0, "02/Jan/2006:15:04:05.000"},
		{Envoy, "%DURATION%", Duration, time.Millisecond, ""},
		{Envoy, "%START_TIME(%Y-%m-%dT%H:%M:%S.%3fZ)%", Start, 0, "2006-01-02T15:04:05.000Z"},
		// A time made of parts is one time, in one layout.
		{Apache, "%{%Y-%m-%dT%H:%M:%S}t.%{msec_frac}t%{%z}t", Start, 0, "2006-01-02T15:04:05.000-0700"},
		{varnish, "%{%Y-%m-%dT%H:%M:%S}t.%{usec_frac}t %{%z}t", Start, 0, "2006-01-02T15:04:05.000000 -0700"},
		{lighttpd, "%{%d/%b/%Y}t:%{%H:%M:%S}t", End, 0, "02/Jan/2006:15:04:05"},
		{Tomcat, "%{end:yyyy-MM-dd HH:mm:ss}t.%{end:msec_frac}t", End, 0, "2006-01-02 15:04:05.000"},
		{Squid, "%{%Y-%m-%dT%H:%M:%S}tg.%03tu", End, 0, "2006-01-02T15:04:05.000"},
		{Squid, "%ts.%03tu", End, time.Second, ""}, // an epoch and its milliseconds: kept apart, added when read
		{Squid, "%tl", End, 0, "02/Jan/2006:15:04:05 -0700"},
	} {
		p, err := Compile(tc.syntax, tc.format, Options{})
		if err != nil {
			t.Fatalf("%s %s: %v", tc.syntax, tc.format, err)
		}
		m := p.meanings()[0]
		if m.Field != tc.field || m.Unit != tc.unit || m.Layout != tc.layout {
			t.Errorf("%s %s: %s %v %q, want %s %v %q", tc.syntax, tc.format, m.Field, m.Unit, m.Layout, tc.field, tc.unit, tc.layout)
		}
	}
}

func TestCompileErrorsNameTheColumn(t *testing.T) {
	for _, tc := range []struct {
		syntax Syntax
		format string
		column int
		want   string
	}{
		{Nginx, `$remote_addr - ${x`, 16, "'}' closing ${"},
		{Nginx, `$remote_addr $ $status`, 15, "a variable name"},
		{Nginx, `log_format main escape=yaml '$status';`, 24, "default, json or none"},
		{Nginx, `log_format main '$status`, 25, "the quote closing"},
		{Apache, `%h %{Referer i`, 5, "'}' closing %{"},
		{Apache, `%h %`, 5, "a directive letter"},
		{Tomcat, `%h %{X`, 5, "'}' closing %{"},
		{haproxy, `log-format "%ci %{+Z}r"`, 19, "flags"},
		{haproxy, `%ci %[req.hdr(x)`, 6, "']' closing %["},
		{haproxy, `%ci %`, 6, "a variable name"},
		{Envoy, `%START_TIME %x`, 12, "'%' closing %START_TIME"},
		{Envoy, `%REQ(X-REQUEST-ID %`, 5, "')' closing REQ("},
		{Envoy, `{"a": "%START_TIME%",}`, 22, "a JSON object"},
		{Envoy, `{"a": "[%START_TIME]"}`, 20, "'%' closing"},
		{Apache, `just text`, 10, "a variable"},
	} {
		_, err := Compile(tc.syntax, tc.format, Options{})
		var se *syntaxError
		if !errors.As(err, &se) {
			t.Errorf("%s %q: %v, want a SyntaxError", tc.syntax, tc.format, err)
			continue
		}
		if se.Column != tc.column || !strings.Contains(se.Error(), tc.want) {
			t.Errorf("%s %q: %v (column %d), want column %d and %q", tc.syntax, tc.format, err, se.Column, tc.column, tc.want)
		}
	}
}

func TestMismatchSaysWhere(t *testing.T) {
	p, err := Compile(Apache, `%h %t "%r" %>s %D`, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var v Values
	for _, tc := range []struct {
		line   string
		column int
		want   string
	}{
		{`1.2.3.4 [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.1" 200 0.5`, 59, "an integer for %D"},
		{`1.2.3.4 10/Oct/2000:13:55:36 -0700 "GET / HTTP/1.1" 200 5`, 1, `%h followed by " ["`},
		{`1.2.3.4 [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.1 200 5`, 39, `%r followed by "\" "`},
		{`{"msg":"a JSON line"}`, 1, `%h followed by " ["`},
	} {
		err := p.Read(tc.line, &v)
		var me *mismatchError
		if !errors.As(err, &me) || me.Column != tc.column || !strings.Contains(me.Error(), tc.want) {
			t.Errorf("%q: %v, want column %d and %q", tc.line, err, tc.column, tc.want)
		}
	}
}

func TestDetect(t *testing.T) {
	for _, tc := range []struct {
		format string
		want   Syntax
	}{
		{`$remote_addr [$time_local] "$request" $status`, Nginx},
		{`log_format main '$remote_addr';`, Nginx},
		{`{"rid":"$http_x_request_id","pct":"100%"}`, Nginx},
		{`%ci:%cp [%tr] %ft %b/%s %ST %{+Q}r`, haproxy},
		{`log-format "%[req.hdr(x-request-id)] %ST"`, haproxy},
		{`[%START_TIME%] "%REQ(:METHOD)%" %RESPONSE_CODE%`, Envoy},
		{`{"start":"%START_TIME%","code":"%RESPONSE_CODE%"}`, Envoy},
		{`LogFormat "%h %t" x`, Apache},
		{`%h %l %u %t "%r" %>s %b`, ""},
		{`%h %t %D %{X-Request-Id}i`, ""},
	} {
		got, err := Detect(tc.format)
		if got != tc.want || (tc.want == "") != (err != nil) {
			t.Errorf("Detect(%q) = %q, %v; want %q", tc.format, got, err, tc.want)
		}
	}
}

func TestSecretsAreNeverDetails(t *testing.T) {
	p, err := Compile(Nginx, `$http_authorization $cookie_session $http_cookie $status`, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var v Values
	if err := p.Read(`Bearer-tok s3cr3t a=b 200`, &v); err != nil {
		t.Fatal(err)
	}
	if len(v.Details) != 0 {
		t.Errorf("credentials kept as details: %v", v.Details)
	}
	// Each is named, so that secret-in-logs counts it, and none is kept.
	if got := strings.Join(v.Secrets, " "); got != "$http_authorization $cookie_session $http_cookie" {
		t.Errorf("secrets named %q", got)
	}
	for f := Field(0); f < numFields; f++ {
		if s, _ := v.Get(f); strings.Contains(s, "s3cr3t") || strings.Contains(s, "Bearer") {
			t.Errorf("credential kept as %s: %q", f, s)
		}
	}
}

// TestCredentialHeadersAreRedactsList: a header is a credential in a
// format string exactly when redact masks it in every output (one list),
// whatever the syntax writes it as.
func TestCredentialHeadersAreRedactsList(t *testing.T) {
	for _, tc := range []struct {
		syntax Syntax
		format string
		want   string
	}{
		{Nginx, `$http_x_amz_security_token $http_x_session_id $http_proxy_authorization $status`, "$http_x_amz_security_token $http_x_session_id $http_proxy_authorization"},
		{Apache, `%{X-Api-Key}i %{X-Hub-Signature-256}i %{Cookie}C %>s`, "%{X-Api-Key}i %{X-Hub-Signature-256}i %{Cookie}C"},
	} {
		p, err := Compile(tc.syntax, tc.format, Options{})
		if err != nil {
			t.Fatal(err)
		}
		var v Values
		if err := p.Read(`s3cr3t-a s3cr3t-b s3cr3t-c 200`, &v); err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(v.Secrets, " "); got != tc.want {
			t.Errorf("%s: secrets %q, want %q", tc.format, got, tc.want)
		}
		if len(v.Details) != 0 {
			t.Errorf("%s: credentials kept as details: %v", tc.format, v.Details)
		}
	}
}

func TestSendNumber(t *testing.T) {
	for _, tc := range []struct {
		header, value string
		want          int
	}{
		{"x-stainless-retry-count", "0", 1},
		{"x-stainless-retry-count", " 2 ", 3},
		{"X_Stainless_Retry_Count", "1", 2},
		{"x-stainless-retry-count", "-1", 0},
		{"x-stainless-retry-count", "one", 0},
		{"amz-sdk-request", "attempt=1; max=3", 1},
		{"amz-sdk-request", "ttl=20261201T000000Z; attempt=2; max=3", 2},
		{"amz-sdk-request", "max=3", 0},
		{"amz-sdk-request", "attempt=0", 0},
		{"amz-sdk-request", "attempt=x; attempt=2", 0},
		{"x-retry-count", "1", 0},
	} {
		if got := SendNumber(tc.header, tc.value); got != tc.want {
			t.Errorf("SendNumber(%q, %q) = %d, want %d", tc.header, tc.value, got, tc.want)
		}
	}
}

// A value no quote or bracket encloses is never written as nothing: a
// line that leaves one empty says so (Unwritten); a quoted or bracketed
// value may be empty.
func TestUnwritten(t *testing.T) {
	p, err := Compile(Nginx, `$remote_addr [$proxy_upstream_name] "$http_referer" $status $req_id`, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		line string
		want int
	}{
		{`1.2.3.4 [up] "-" 201 r-1`, 0},
		{`1.2.3.4 [] "" 201 r-1`, 0},
		{`1.2.3.4 [] "" 201 `, 1},
		{` [] "" 201 `, 2},
	} {
		var v Values
		if err := p.Read(tc.line, &v); err != nil {
			t.Fatalf("%q: %v", tc.line, err)
		}
		if v.Unwritten() != tc.want {
			t.Errorf("%q: %d unwritten, want %d", tc.line, v.Unwritten(), tc.want)
		}
	}
}
