package formats

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/idem-cli/idem/model"
)

// readWith reads lines as a source whose config gives the log_format.
func readWith(t *testing.T, sc SourceConfig, lines ...string) *Result {
	t.Helper()
	sc.Path = "*"
	cfg := &Config{Sources: []SourceConfig{sc}}
	if err := cfg.Compile(); err != nil {
		t.Fatal(err)
	}
	rule, err := cfg.RuleFor("proxy.log", model.TierUnknown, "")
	if err != nil {
		t.Fatal(err)
	}
	p := NewParser(cfg, rule)
	var res Result
	p.Into(&res)
	for i, l := range lines {
		p.Line([]byte(l), model.Source{File: "proxy.log", Line: i + 1})
	}
	return &res
}

func TestLogFormatReadsByMeaning(t *testing.T) {
	for _, tc := range []struct {
		name string
		sc   SourceConfig
		line string
		want model.Observation
	}{{
		name: "nginx: ids in the middle, $time_local is the end of the request",
		sc:   SourceConfig{LogFormat: `log_format odd '$status $http_idempotency_key [$time_local] $http_x_request_id $request_time "$request" $remote_addr';`},
		line: `201 k-1 [30/Nov/2026:09:14:04 +0000] r-1 2.398 "POST /v1/orders?x=1 HTTP/1.1" 10.0.0.1`,
		want: model.Observation{Format: "nginx log_format", Tier: model.TierProxy, Method: "POST", Route: "/v1/orders", Status: 201,
			Outcome: model.OutcomeOK, RequestID: "r-1", Key: "k-1", Client: "10.0.0.1",
			Time: mustTime("2026-11-30T09:14:01.602Z"), Duration: 2398 * time.Millisecond},
	}, {
		name: "nginx: a JSON template with escape=json and a 499",
		sc: SourceConfig{LogFormat: `log_format j escape=json '{"st":"$status","up":"$upstream_status","rid":"$request_id",` +
			`"key":"$http_idempotency_key","m":"$request_method","u":"$uri","ms":"$msec","rt":"$request_time","tenant":"$http_x_tenant"}';`},
		line: `{"st":"499","up":"201","rid":"14fe277217966d99b9a47cbebced2b9c","key":"\"k-2\"","m":"POST","u":"/v1/orders",` +
			`"ms":"1796030044.512","rt":"2.398","tenant":"acme"}`,
		want: model.Observation{Format: "nginx log_format", Tier: model.TierProxy, Method: "POST", Route: "/v1/orders", UpstreamStatus: 201,
			Outcome: model.OutcomeClientClosed, RequestID: "14fe277217966d99b9a47cbebced2b9c", Key: "k-2",
			Detail: "499 client closed request $http_x_tenant=acme", Time: mustTime("2026-11-30T09:14:02.114Z"), Duration: 2398 * time.Millisecond},
	}, {
		name: "apache: %t is the arrival, %D microseconds",
		sc:   SourceConfig{LogFormat: `%{X-Request-Id}i %h %t "%r" %>s %D "%{Idempotency-Key}i"`, LogFormatSyntax: "apache"},
		line: `r-3 ::1 [30/Nov/2026:09:14:04 +0000] "POST /v1/orders HTTP/1.1" 201 1500321 "k-3"`,
		want: model.Observation{Format: "apache log_format", Tier: model.TierProxy, Method: "POST", Route: "/v1/orders", Status: 201,
			Outcome: model.OutcomeOK, RequestID: "r-3", Key: "k-3", Client: "::1",
			Time: mustTime("2026-11-30T09:14:04Z"), Duration: 1500321 * time.Microsecond},
	}, {
		name: "apache: a time made of parts, its fraction and its zone with nothing between them",
		sc:   SourceConfig{LogFormat: `%{X-Request-Id}i %{%Y-%m-%dT%H:%M:%S}t.%{msec_frac}t%{%z}t "%r" %>s %D`, LogFormatSyntax: "apache"},
		line: `r-9 2026-11-30T10:14:04.655+0100 "POST /v1/orders HTTP/1.1" 201 1500`,
		want: model.Observation{Format: "apache log_format", Tier: model.TierProxy, Method: "POST", Route: "/v1/orders", Status: 201,
			Outcome: model.OutcomeOK, RequestID: "r-9", Time: mustTime("2026-11-30T09:14:04.655Z"), Duration: 1500 * time.Microsecond},
	}, {
		name: "squid: the end in seconds and milliseconds apart, the start the end less %tr",
		sc:   SourceConfig{LogFormat: `logformat idem %{X-Request-Id}>h %ts.%03tu %6tr "%rm %ru" %Ss/%03>Hs`},
		line: `r-10 1796030044.512   2398 "POST http://h/v1/orders?" TCP_MISS_ABORTED/000`,
		want: model.Observation{Format: "squid log_format", Tier: model.TierProxy, Method: "POST", Route: "/v1/orders",
			Outcome: model.OutcomeClientClosed, RequestID: "r-10", Detail: "TCP_MISS_ABORTED",
			Time: mustTime("2026-11-30T09:14:02.114Z"), Duration: 2398 * time.Millisecond},
	}, {
		name: "tomcat: %X says the client went away",
		sc:   SourceConfig{LogFormat: `%a %t &quot;%r&quot; %s %{ms}T %X %{X-Request-Id}i`, LogFormatSyntax: "tomcat"},
		line: `127.0.0.1 [30/Nov/2026:09:14:04 +0000] "POST /v1/orders HTTP/1.1" 200 812 X r-4`,
		want: model.Observation{Format: "tomcat log_format", Tier: model.TierProxy, Method: "POST", Route: "/v1/orders", Status: 200,
			Outcome: model.OutcomeClientClosed, RequestID: "r-4", Client: "127.0.0.1", Detail: "connection aborted (%X)",
			Time: mustTime("2026-11-30T09:14:04Z"), Duration: 812 * time.Millisecond},
	}, {
		name: "haproxy: captures named by the config, the termination state",
		sc: SourceConfig{LogFormat: `%ci:%cp [%tr] %ft %b/%s %TR/%Tw/%Tc/%Tr/%Ta %ST %B %CC %CS %tsc %ac/%fc/%bc/%sc/%rc %sq/%bq %hr %hs %{+Q}r`,
			Captures: []string{"Host", "Idempotency-Key", "X-Request-Id"}},
		line: `10.0.1.2:33317 [30/Nov/2026:09:14:04.655] fe app/app1 0/0/0/-1/402 -1 0 - - CH-- 1/1/0/0/0 0/0 {h|k-5|r-5} {} "POST /v1/orders HTTP/1.1"`,
		want: model.Observation{Format: "haproxy log_format", Tier: model.TierProxy, Method: "POST", Route: "/v1/orders",
			Outcome: model.OutcomeClientClosed, RequestID: "r-5", Key: "k-5", Client: "10.0.1.2", Detail: "CH--",
			Time: mustTime("2026-11-30T09:14:04.655Z"), Duration: 402 * time.Millisecond},
	}, {
		name: "haproxy: a retry redispatched (%rc +1) ended normally: two tries, the server's 201",
		sc: SourceConfig{LogFormat: `%ci:%cp [%tr] %ft %b/%s %TR/%Tw/%Tc/%Tr/%Ta %ST %B %CC %CS %tsc %ac/%fc/%bc/%sc/%rc %sq/%bq %hr %hs %{+Q}r`,
			Captures: []string{"Idempotency-Key", "X-Request-Id"}},
		line: `127.0.0.1:40022 [30/Nov/2026:09:14:04.655] fe app/app2 0/0/0/1004/1005 201 180 - - ---- 1/1/0/0/+1 0/0 {k-7|r-7} {} "POST /v1/orders HTTP/1.1"`,
		want: model.Observation{Format: "haproxy log_format", Tier: model.TierProxy, Method: "POST", Route: "/v1/orders", Status: 201,
			UpstreamStatus: 201, UpstreamTries: 2, Outcome: model.OutcomeOK, RequestID: "r-7", Key: "k-7", Client: "127.0.0.1",
			Detail: "---- retries +1", Time: mustTime("2026-11-30T09:14:04.655Z"), Duration: 1005 * time.Millisecond},
	}, {
		name: "haproxy: retries that never connected (SC) claim no tries",
		sc: SourceConfig{LogFormat: `%ci:%cp [%tr] %ft %b/%s %TR/%Tw/%Tc/%Tr/%Ta %ST %B %CC %CS %tsc %ac/%fc/%bc/%sc/%rc %sq/%bq %hr %hs %{+Q}r`,
			Captures: []string{"Idempotency-Key", "X-Request-Id"}},
		line: `127.0.0.1:40022 [30/Nov/2026:09:14:04.655] fe app/app1 0/0/-1/-1/3004 503 217 - - SC-- 1/1/0/0/3 0/0 {k-8|r-8} {} "POST /v1/orders HTTP/1.1"`,
		want: model.Observation{Format: "haproxy log_format", Tier: model.TierProxy, Method: "POST", Route: "/v1/orders", Status: 503,
			Outcome: model.OutcomeNotDelivered, RequestID: "r-8", Key: "k-8", Client: "127.0.0.1",
			Detail: "SC-- retries 3", Time: mustTime("2026-11-30T09:14:04.655Z"), Duration: 3004 * time.Millisecond},
	}, {
		name: "envoy: a json_format, keys in another order",
		sc: SourceConfig{LogFormat: `{"start":"%START_TIME%","method":"%REQ(:METHOD)%","path":"%REQ(X-ENVOY-ORIGINAL-PATH?:PATH)%",` +
			`"code":"%RESPONSE_CODE%","flags":"%RESPONSE_FLAGS%","rid":"%REQ(X-REQUEST-ID)%","key":"%REQ(IDEMPOTENCY-KEY)%","ms":"%DURATION%"}`},
		line: `{"code":504,"flags":"UT","key":"k-6","method":"POST","ms":501,"path":"/v1/orders","rid":"r-6","start":"2026-11-30T09:14:04.100Z"}`,
		want: model.Observation{Format: "envoy log_format", Tier: model.TierProxy, Method: "POST", Route: "/v1/orders", Status: 504,
			Outcome: model.OutcomeUpstreamTimeout, RequestID: "r-6", Key: "k-6", Detail: "UT",
			Time: mustTime("2026-11-30T09:14:04.1Z"), Duration: 501 * time.Millisecond},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			res := readWith(t, tc.sc, tc.line)
			if len(res.Skips) > 0 {
				t.Fatalf("skipped: %s", res.Skips[0].Reason)
			}
			if len(res.Obs) != 1 {
				t.Fatalf("%d observations", len(res.Obs))
			}
			got := res.Obs[0]
			got.Source = model.Source{}
			if !got.Time.Equal(tc.want.Time) {
				t.Errorf("time %s, want %s", got.Time, tc.want.Time)
			}
			got.Time = tc.want.Time
			if got != tc.want {
				t.Errorf("read\n %+v\nwant\n %+v", got, tc.want)
			}
		})
	}
}

// A line the log_format did not write is skipped with why; no other
// format is tried on it, and the input's other lines are read.
func TestLogFormatSkipsWhatItDidNotWrite(t *testing.T) {
	res := readWith(t, SourceConfig{LogFormat: `$http_x_request_id $status "$request"`},
		`r-1 201 "POST /v1/orders HTTP/1.1"`,
		`127.0.0.1 - - [10/Oct/2000:13:55:36 -0700] "GET /apache_pb.gif HTTP/1.0" 200 2326`,
		`{"time":"2026-11-30T10:00:00Z","level":"INFO","msg":"x","request_id":"r1"}`)
	if len(res.Obs) != 1 || res.Obs[0].RequestID != "r-1" {
		t.Fatalf("observations %+v", res.Obs)
	}
	if len(res.Skips) != 2 || res.Skips[0].Source.Line != 2 || !strings.Contains(res.Skips[0].Reason, "column") {
		t.Fatalf("skips %+v", res.Skips)
	}
}

func TestLogFormatConfigErrors(t *testing.T) {
	for _, tc := range []struct {
		sc   SourceConfig
		want string
	}{
		{SourceConfig{LogFormat: `$remote_addr ${status`}, "column 14"},
		{SourceConfig{LogFormat: `%h %t %>s`}, "log_format_syntax"},
		{SourceConfig{LogFormat: `%h %t`, LogFormatSyntax: "iis"}, "unknown log_format_syntax"},
		{SourceConfig{LogFormat: `$status`, Format: "nginx"}, "not both"},
		{SourceConfig{LogFormatSyntax: "nginx"}, "without a log_format"},
	} {
		tc.sc.Path = "*"
		cfg := &Config{Sources: []SourceConfig{tc.sc}}
		err := cfg.Compile()
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "sources[0]") {
			t.Errorf("%+v: %v, want an error saying %q", tc.sc, err, tc.want)
		}
	}
}

// A credential a format logs under a name of its own is counted, never
// kept in the detail.
func TestLogFormatKeepsNoSecret(t *testing.T) {
	res := readWith(t, SourceConfig{LogFormat: `$http_x_request_id $status $http_x_auth_token $http_authorization $http_x_amz_security_token $arg_note`},
		`r-1 201 s3cr3t Bearer-s3cr3t s3cr3t-too hello`)
	if len(res.Obs) != 1 || strings.Contains(res.Obs[0].Detail, "s3cr3t") || res.Obs[0].Detail != "$arg_note=hello" {
		t.Fatalf("observations %+v", res.Obs)
	}
	for _, name := range []string{"$http_x_auth_token", "$http_authorization", "$http_x_amz_security_token"} {
		if res.Secrets[name] != 1 {
			t.Errorf("%s counted %d times: secrets %v", name, res.Secrets[name], res.Secrets)
		}
	}
}

// istioJSON is Istio's json_format for Envoy (EnvoyJSONLogFormatIstio in
// istio/istio's pilot/pkg/networking/core/accesslog.go), as a mesh
// config gives it.
const istioJSON = `{"start_time":"%START_TIME%","route_name":"%ROUTE_NAME%","method":"%REQ(:METHOD)%",
 "path":"%REQ(X-ENVOY-ORIGINAL-PATH?:PATH)%","protocol":"%PROTOCOL%","response_code":"%RESPONSE_CODE%",
 "response_flags":"%RESPONSE_FLAGS%","response_code_details":"%RESPONSE_CODE_DETAILS%",
 "connection_termination_details":"%CONNECTION_TERMINATION_DETAILS%","upstream_transport_failure_reason":"%UPSTREAM_TRANSPORT_FAILURE_REASON%",
 "bytes_received":"%BYTES_RECEIVED%","bytes_sent":"%BYTES_SENT%","duration":"%DURATION%",
 "upstream_service_time":"%RESP(X-ENVOY-UPSTREAM-SERVICE-TIME)%","x_forwarded_for":"%REQ(X-FORWARDED-FOR)%",
 "user_agent":"%REQ(USER-AGENT)%","request_id":"%REQ(X-REQUEST-ID)%","authority":"%REQ(:AUTHORITY)%",
 "upstream_host":"%UPSTREAM_HOST%","upstream_cluster":"%UPSTREAM_CLUSTER%","upstream_local_address":"%UPSTREAM_LOCAL_ADDRESS%",
 "downstream_local_address":"%DOWNSTREAM_LOCAL_ADDRESS%","downstream_remote_address":"%DOWNSTREAM_REMOTE_ADDRESS%",
 "requested_server_name":"%REQUESTED_SERVER_NAME%"}`

// Envoy is not packaged for Debian, so its syntax is proven on real lines
// others captured: Istio sidecars' JSON (fixtures/formats/envoy.jsonl)
// through Istio's own json_format, and the default text format's lines
// of Envoy's and Istio's documentation through that format.
func TestLogFormatEnvoyOnRealLines(t *testing.T) {
	b, err := os.ReadFile("../fixtures/formats/envoy.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	res := readWith(t, SourceConfig{LogFormat: istioJSON}, lines...)
	if len(res.Skips) > 0 || len(res.Obs) != len(lines) {
		t.Fatalf("%d observations of %d lines, skips %v", len(res.Obs), len(lines), res.Skips)
	}
	first := res.Obs[0]
	if first.Format != "envoy log_format" || first.Method != "GET" || first.Route != "/delay/10000" || first.Status != 0 ||
		first.Outcome != model.OutcomeClientClosed || first.RequestID != "c9b2decb-ebc7-9ab4-99d6-69712772ef41" ||
		first.Duration != 1870*time.Millisecond || !first.Time.Equal(mustTime("2025-12-14T15:31:56.209Z")) ||
		first.Detail != "DC downstream_remote_disconnect" {
		t.Errorf("first line read as %+v", first)
	}
	if o := res.Obs[1]; o.Status != 504 || o.Outcome != model.OutcomeUpstreamTimeout || o.Client != "172.18.0.1" {
		t.Errorf("second line read as %+v", o)
	}

	const envoyDefault = `[%START_TIME%] "%REQ(:METHOD)% %REQ(X-ENVOY-ORIGINAL-PATH?:PATH)% %PROTOCOL%" %RESPONSE_CODE% %RESPONSE_FLAGS% ` +
		`%BYTES_RECEIVED% %BYTES_SENT% %DURATION% %RESP(X-ENVOY-UPSTREAM-SERVICE-TIME)% "%REQ(X-FORWARDED-FOR)%" "%REQ(USER-AGENT)%" ` +
		`"%REQ(X-REQUEST-ID)%" "%REQ(:AUTHORITY)%" "%UPSTREAM_HOST%"`
	for _, s := range envoyTextFormat.Samples[:1] {
		res := readWith(t, SourceConfig{LogFormat: envoyDefault}, s.Line)
		if len(res.Obs) != 1 {
			t.Fatalf("%q: skips %v", s.Line, res.Skips)
		}
		o := res.Obs[0]
		if o.RequestID != s.Want.RequestID || o.Method != s.Want.Method || o.Route != s.Want.Route || o.Status != s.Want.Status ||
			o.Duration != s.Want.Duration || !o.Time.Equal(s.Want.Time) || o.Client != s.Want.Client {
			t.Errorf("%q read as %+v, want %+v", s.Line, o, s.Want)
		}
	}
}

// The examples 'idem help formats' shows compile, and docs/config.md
// shows each; so does its sample config.
func TestLogFormatExamples(t *testing.T) {
	doc, err := os.ReadFile("../docs/config.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range logFormatExamples {
		if _, err := compileLogFormat(e.format, e.syntax, nil); err != nil {
			t.Errorf("%s example %q: %v", e.syntax, e.format, err)
		}
		if !strings.Contains(string(doc), "`"+e.format+"`") {
			t.Errorf("docs/config.md does not show the %s example %q", e.syntax, e.format)
		}
		if !strings.Contains(Help(), e.format) {
			t.Errorf("idem help formats does not show the %s example %q", e.syntax, e.format)
		}
	}
	start := strings.Index(string(doc), "## `log_format`")
	block := string(doc)[start:]
	block = block[strings.Index(block, "```json\n")+len("```json\n"):]
	block = block[:strings.Index(block, "```")]
	path := filepath.Join(t.TempDir(), "idem.json")
	if err := os.WriteFile(path, []byte(block), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadConfig(path); err != nil {
		t.Errorf("the log_format config of docs/config.md: %v", err)
	}
}
