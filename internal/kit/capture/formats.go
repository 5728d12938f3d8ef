package capture

// A LogFormat is an access-log format a proxy is told to write: the name
// its config gives it and the directive that defines it. This file is the
// one place that holds them; a capture picks its formats by name, so that
// every capture of a format writes the same fields and a reader of the
// fixtures finds its definition here. A new proxy adds its formats here
// and its config's frame in a file of its own (nginx.go, haproxy.go,
// caddy.go).
type LogFormat struct {
	Proxy string // the proxy that writes it: "nginx", "haproxy", "caddy"
	Name  string // its name in the config (log_format NAME)
	Def   string // the directive that defines it
	// Syntax is the language of Def for idem's log_format_syntax, where
	// the string does not say it.
	Syntax string
}

// NginxJSON is JSON keyed by nginx variable names (escape=json): nginx's
// own request id and the client's X-Request-Id side by side.
var NginxJSON = LogFormat{Proxy: "nginx", Name: "idem_json", Def: `log_format idem_json escape=json '{"time_iso8601":"$time_iso8601","msec":"$msec",'
    '"request_id":"$request_id","http_x_request_id":"$http_x_request_id",'
    '"http_idempotency_key":"$http_idempotency_key","remote_addr":"$remote_addr",'
    '"request_method":"$request_method","request_uri":"$request_uri","status":"$status",'
    '"request_time":"$request_time","upstream_addr":"$upstream_addr",'
    '"upstream_status":"$upstream_status","upstream_response_time":"$upstream_response_time",'
    '"http_user_agent":"$http_user_agent"}';`}

// NginxJSONPassedOn is JSON keyed by nginx variable names whose
// request_id is the id nginx passes on ($req_id: the client's X-Request-Id,
// else its own), as a setup that propagates one id logs it.
var NginxJSONPassedOn = LogFormat{Proxy: "nginx", Name: "idem_passed_on", Def: `log_format idem_passed_on escape=json '{"time_iso8601":"$time_iso8601","msec":"$msec","request_id":"$req_id",'
    '"http_idempotency_key":"$http_idempotency_key","request_method":"$request_method",'
    '"request_uri":"$request_uri","status":"$status","request_time":"$request_time",'
    '"upstream_addr":"$upstream_addr","upstream_status":"$upstream_status",'
    '"upstream_response_time":"$upstream_response_time","remote_addr":"$remote_addr"}';`}

// NginxJSONKeyOnly is NginxJSON without a request id: a proxy that logs
// the Idempotency-Key and no id, as a setup does that never made one.
var NginxJSONKeyOnly = LogFormat{Proxy: "nginx", Name: "idem_key_only", Def: `log_format idem_key_only escape=json '{"time_iso8601":"$time_iso8601","msec":"$msec",'
    '"http_idempotency_key":"$http_idempotency_key","remote_addr":"$remote_addr",'
    '"request_method":"$request_method","request_uri":"$request_uri","status":"$status",'
    '"request_time":"$request_time","upstream_addr":"$upstream_addr",'
    '"upstream_status":"$upstream_status","upstream_response_time":"$upstream_response_time",'
    '"http_user_agent":"$http_user_agent"}';`}

// NginxCombined is combined with the fields idem needs appended, in the
// order formats/combined.go reads them by shape.
var NginxCombined = LogFormat{Proxy: "nginx", Name: "idem_combined", Def: `log_format idem_combined '$remote_addr - $remote_user [$time_local] "$request" '
    '$status $body_bytes_sent "$http_referer" "$http_user_agent" '
    '$request_time "$upstream_status" "$http_x_request_id" "$http_idempotency_key"';`}

// NginxVHost is Apache's vhost_combined (the virtual host and port before
// the address), as nginx setups copy it, with the combined format's
// fields appended.
var NginxVHost = LogFormat{Proxy: "nginx", Name: "vhost_combined", Def: `log_format vhost_combined '$host:$server_port $remote_addr - $remote_user [$time_local] "$request" '
    '$status $body_bytes_sent "$http_referer" "$http_user_agent" '
    '$request_time "$upstream_status" "$http_x_request_id" "$http_idempotency_key"';`}

// NginxIngress is ingress-nginx's default log-format-upstream, as its
// documentation gives it (user-guide/nginx-configuration/log-format).
// $req_id is the controller's request id (every http block the kit writes
// defines it as its nginx.tmpl does); $proxy_upstream_name and
// $proxy_alternative_upstream_name are set per location by the server
// that logs in it.
var NginxIngress = LogFormat{Proxy: "nginx", Name: "upstreaminfo", Def: `log_format upstreaminfo
    '$remote_addr - $remote_user [$time_local] "$request" '
    '$status $body_bytes_sent "$http_referer" "$http_user_agent" '
    '$request_length $request_time [$proxy_upstream_name] [$proxy_alternative_upstream_name] $upstream_addr '
    '$upstream_response_length $upstream_response_time $upstream_status $req_id';`}

// NginxProvider is idem's canonical schema (docs/log-schema.md) for an
// egress proxy in front of a third party: the line names its tier,
// provider, so that what went out to the provider is read as the
// provider's side.
var NginxProvider = LogFormat{Proxy: "nginx", Name: "provider", Def: `log_format provider escape=json '{"time":"$time_iso8601","tier":"provider",'
    '"request_id":"$http_x_request_id","idempotency_key":"$http_idempotency_key",'
    '"method":"$request_method","route":"$uri","status":$status,"msg":"provider call"}';`}

// HAProxyHTTPLog is HAProxy's option httplog, in the raw format
// containers log (no syslog header); the request headers a capture
// names are captured in its {...} block, in that order.
var HAProxyHTTPLog = LogFormat{Proxy: "haproxy", Name: "httplog", Def: "option httplog"}

// CaddyJSON is Caddy's JSON access log (its default encoder).
var CaddyJSON = LogFormat{Proxy: "caddy", Name: "json", Def: "format json"}

// The formats below are read through a --config source's log_format: the
// directive as the proxy's config has it. Each is laid out as no stock
// format is (fields reordered, the ids in the middle, times in forms of
// their own), so that only reading by the format's meaning reads them.

// NginxPiped is nginx writing '|'-separated fields, the status and the key
// first, $time_local (the end of the request) in the middle.
var NginxPiped = LogFormat{Proxy: "nginx", Name: "piped", Def: `log_format piped '$status|$http_idempotency_key|$request_time|[$time_local]|'
    '$http_x_request_id|$request_method $request_uri|$upstream_status|$remote_addr';`}

// NginxNestedJSON is a JSON template of nginx's with keys of its own,
// nested objects and an unquoted number.
var NginxNestedJSON = LogFormat{Proxy: "nginx", Name: "nested", Def: `log_format nested escape=json '{"at":"$msec","req":{"id":"$http_x_request_id",'
    '"idem":"$http_idempotency_key","line":"$request"},"res":{"code":$status,"up":"$upstream_status",'
    '"took":$request_time},"ip":"$remote_addr"}';`}

// HAProxyCaptured is HAProxy's log-format with the ids by capture slot
// (%[capture.req.hdr(N)]; a log-format cannot fetch request headers
// themselves, gone when the line is written) and in %hr, the request
// line quoted, the termination state and retries apart.
var HAProxyCaptured = LogFormat{Proxy: "haproxy", Name: "captured",
	Def: `log-format "%ci [%tr] %ST %Ta %tsc %rc %[capture.req.hdr(1)] %{+Q}r %hr %[capture.req.hdr(0)]"`}

// ApacheReordered is Apache httpd with the request id first, the arrival
// time to the millisecond in three parts, %D, the key, mod_unique_id's
// id and the connection status.
var ApacheReordered = LogFormat{Proxy: "apache", Name: "reordered", Syntax: "apache",
	Def: `LogFormat "%{X-Request-Id}i [%{%d/%b/%Y:%H:%M:%S}t.%{msec_frac}t %{%z}t] \"%r\" %>s %D \"%{Idempotency-Key}i\" %{UNIQUE_ID}e %h %X" reordered`}

// ApacheIdem is the layout idem's apache format names in its Setup: the
// combined fields, %D and the ids, read with no config at all.
var ApacheIdem = LogFormat{Proxy: "apache", Name: "idem",
	Def: `LogFormat "%h %l %u %t \"%r\" %>s %b \"%{Referer}i\" \"%{User-Agent}i\" %D \"%{X-Request-Id}i\" \"%{Idempotency-Key}i\"" idem`}

// TomcatEpoch is an AccessLogValve pattern (as server.xml writes it) with
// the start as epoch milliseconds, the duration in microseconds, the ids,
// the thread's name and the connection status.
var TomcatEpoch = LogFormat{Proxy: "tomcat", Name: "epoch", Syntax: "tomcat",
	Def: `%{begin:msec}t %a &quot;%r&quot; %s %{us}T %{X-Request-Id}i &quot;%{Idempotency-Key}i&quot; %I %X`}

// TomcatStock is Tomcat's combined pattern with %D, %F and the ids, which
// idem's tomcat format knows without a config.
var TomcatStock = LogFormat{Proxy: "tomcat", Name: "stock",
	Def: `%h %l %u %t &quot;%r&quot; %s %b &quot;%{Referer}i&quot; &quot;%{User-Agent}i&quot; %D %F &quot;%{X-Request-Id}i&quot; &quot;%{Idempotency-Key}i&quot;`}

// LighttpdBoth is lighttpd's accesslog.format with both its %t (the end
// of the request) and the start in epoch milliseconds.
var LighttpdBoth = LogFormat{Proxy: "lighttpd", Name: "both", Syntax: "lighttpd",
	Def: `%{X-Request-Id}i %h %t "%r" %>s %D "%{Idempotency-Key}i" %{begin:msec}t`}

// VarnishISO is varnishncsa -F with an ISO start to the microsecond,
// the method and path apart, Varnish's hit or miss and the key last.
var VarnishISO = LogFormat{Proxy: "varnish", Name: "iso", Syntax: "varnish",
	Def: `%{X-Request-Id}i %{%Y-%m-%dT%H:%M:%S}t.%{usec_frac}t %{%z}t "%m %U" %s %D %{Varnish:hitmiss}x "%{Idempotency-Key}i"`}

// NginxMain is the format nginx's own packages and container image call
// main: combined with the X-Forwarded-For header appended, quoted and
// unnamed (a list of addresses where the request crossed proxies).
var NginxMain = LogFormat{Proxy: "nginx", Name: "main", Def: `log_format main '$remote_addr - $remote_user [$time_local] "$request" '
    '$status $body_bytes_sent "$http_referer" '
    '"$http_user_agent" "$http_x_forwarded_for"';`}

// NginxSDK is JSON keyed by nginx variable names with the headers client
// SDKs mark their own retries with beside the key: Stainless's
// x-stainless-retry-count (openai, @anthropic-ai/sdk), the AWS SDK's
// amz-sdk-request ("attempt=N; max=M") and amz-sdk-invocation-id (one per
// call), Stripe's telemetry, and the user agent that names the SDK. Its
// request_id is nginx's own, the id it passes on as X-Request-Id.
var NginxSDK = LogFormat{Proxy: "nginx", Name: "idem_sdk", Def: `log_format idem_sdk escape=json '{"time_iso8601":"$time_iso8601","msec":"$msec",'
    '"request_id":"$request_id","http_idempotency_key":"$http_idempotency_key",'
    '"request_method":"$request_method","request_uri":"$request_uri","status":"$status",'
    '"request_time":"$request_time","upstream_addr":"$upstream_addr","upstream_status":"$upstream_status",'
    '"upstream_response_time":"$upstream_response_time","remote_addr":"$remote_addr",'
    '"http_user_agent":"$http_user_agent","http_x_stainless_retry_count":"$http_x_stainless_retry_count",'
    '"http_x_stainless_timeout":"$http_x_stainless_timeout","http_amz_sdk_request":"$http_amz_sdk_request",'
    '"http_amz_sdk_invocation_id":"$http_amz_sdk_invocation_id",'
    '"http_x_stripe_client_telemetry":"$http_x_stripe_client_telemetry"}';`}

// SquidNative is squid's own default format, named squid (its
// access_log's default): the end of the transaction, its duration in
// milliseconds, squid's result word and status; no id, no key.
var SquidNative = LogFormat{Proxy: "squid", Name: "squid", Def: `logformat squid %ts.%03tu %6tr %>a %Ss/%03>Hs %<st %rm %ru %[un %Sh/%<a %mt`}

// SquidIdem is a squid logformat with the ids as request headers, the
// start (%tS) and the end to the millisecond, the result word and both
// statuses, read through a config source's log_format.
var SquidIdem = LogFormat{Proxy: "squid", Name: "idem",
	Def: `logformat idem %{X-Request-Id}>h %tS %ts.%03tu %tr %>a "%rm %ru HTTP/%rv" %Ss/%03>Hs %<Hs %<st "%{Idempotency-Key}>h" %Sh/%<a`}

// SquidCombined is squid's predefined combined format: Apache's combined
// fields with %tl (the END of the transaction, to the second) for the
// date and squid's words (%Ss:%Sh) at the end. Squid writes it with code
// of its own: the definition is squid.conf's documentation of it.
var SquidCombined = LogFormat{Proxy: "squid", Name: "combined",
	Def: `logformat combined %>a %[ui %[un [%tl] "%rm %ru HTTP/%rv" %>Hs %<st "%{Referer}>h" "%{User-Agent}>h" %Ss:%Sh`}
