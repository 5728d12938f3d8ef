package load_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/idem-cli/idem/ingest"
	"github.com/idem-cli/idem/load"
	"github.com/idem-cli/idem/model"
)

// proxyLines are nginx's lines of three requests: the ids it logs are
// certain.
const proxyLines = `{"time_iso8601":"2026-11-30T09:00:00+00:00","msec":"1796029200.100","request_id":"req-0001","http_idempotency_key":"key-0001","request_method":"POST","request_uri":"/v1/orders","status":"201","request_time":"0.100"}
{"time_iso8601":"2026-11-30T09:00:01+00:00","msec":"1796029201.100","request_id":"req-0002","http_idempotency_key":"key-0001","request_method":"POST","request_uri":"/v1/orders","status":"201","request_time":"0.100"}
{"time_iso8601":"2026-11-30T09:00:02+00:00","msec":"1796029202.100","request_id":"req-0003","http_idempotency_key":"key-0002","request_method":"POST","request_uri":"/v1/orders","status":"201","request_time":"0.100"}
`

// serverLines name nothing as any vocabulary does.
const serverLines = `{"when":"2026-11-30T09:00:00.050Z","corr":"req-0001","idem":"key-0001","what":"placed","host":"app-1"}
{"when":"2026-11-30T09:00:01.050Z","corr":"req-0002","idem":"key-0001","what":"replayed","host":"app-1"}
{"when":"2026-11-30T09:00:02.050Z","corr":"req-0003","idem":"key-0002","what":"placed","host":"app-1"}
`

func write(t *testing.T, dir, name, s string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestFilesLearnWhatJoins: the server's request id and key are learned
// from nginx's values and join each request's two lines; a host that
// joins nothing is not learned; standard input, read once, learns
// nothing. (Values shorter than four bytes are not sampled: they cannot
// name one request among many.)
func TestFilesLearnWhatJoins(t *testing.T) {
	dir := t.TempDir()
	proxy, server := write(t, dir, "nginx.jsonl", proxyLines), write(t, dir, "app.jsonl", serverLines)
	set, err := load.Files(context.Background(), []string{proxy, server}, load.Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, u := range set.Inputs[1].Joined {
		got[u.Field] = u.Path + " " + u.By
	}
	if got["request_id"] != "corr joined 3 of 3 sampled values to proxy request ids" || got["key"] != "idem joined 2 of 2 sampled values to proxy keys" || len(got) != 2 {
		t.Errorf("learned %v", got)
	}
	if len(set.Inputs[0].Joined) != 0 {
		t.Errorf("the proxy's own input learned %v", set.Inputs[0].Joined)
	}
	in := set.FindIntent("key-0001")
	if len(in) != 1 || len(in[0].Deliveries) != 2 {
		t.Fatalf("key key-0001: %v", in)
	}
	for _, d := range in[0].Deliveries {
		if d.At(model.TierProxy) == nil || d.At(model.TierServer) == nil {
			t.Errorf("delivery %s holds %d lines, want nginx's and the server's", d.RequestID, len(d.Observations))
		}
	}
	set, err = load.Files(context.Background(), []string{proxy, "-"}, load.Options{Read: ingest.Options{Stdin: strings.NewReader(serverLines)}})
	if err != nil {
		t.Fatal(err)
	}
	if len(set.Inputs[1].Joined) != 0 {
		t.Errorf("standard input learned %v", set.Inputs[1].Joined)
	}
}

// appLines name their request id and key as the vocabulary does.
const appLines = `{"time":"2026-11-30T09:00:00.050Z","msg":"order created","request_id":"req-0001","idempotency_key":"key-0001","method":"POST","path":"/v1/orders","status":201}
{"time":"2026-11-30T09:00:01.050Z","msg":"order replayed","request_id":"req-0002","idempotency_key":"key-0001","method":"POST","path":"/v1/orders","status":201}
{"time":"2026-11-30T09:00:02.050Z","msg":"order created","request_id":"req-0003","idempotency_key":"key-0002","method":"POST","path":"/v1/orders","status":201}
`

// TestProxyLearnsFromTheServer: an Apache or nginx combined line with the
// request id and the key appended (idem's own setup advice), their values
// not shaped like generated ids, names neither; the server's log names
// the same values, so the proxy's fields are learned by position, and
// each request's two lines join.
func TestProxyLearnsFromTheServer(t *testing.T) {
	const access = `127.0.0.1 - - [30/Nov/2026:09:00:00 +0000] "POST /v1/orders HTTP/1.1" 201 57 "-" "curl/8.5.0" 100123 "req-0001" "key-0001"
127.0.0.1 - - [30/Nov/2026:09:00:01 +0000] "POST /v1/orders HTTP/1.1" 201 57 "-" "curl/8.5.0" 100234 "req-0002" "key-0001"
127.0.0.1 - - [30/Nov/2026:09:00:02 +0000] "POST /v1/orders HTTP/1.1" 201 57 "-" "curl/8.5.0" 100345 "req-0003" "key-0002"
`
	dir := t.TempDir()
	proxy, server := write(t, dir, "access.log", access), write(t, dir, "app.jsonl", appLines)
	set, err := load.Files(context.Background(), []string{proxy, server}, load.Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := joined(set.Inputs[0])
	if got["request_id"] != "$11 joined 3 of 3 sampled values to server request ids" || got["key"] != "$12 joined 2 of 2 sampled values to server keys" || len(got) != 2 {
		t.Errorf("the proxy learned %v", got)
	}
	if len(set.Inputs[1].Joined) != 0 {
		t.Errorf("the server, which names its ids, learned %v", set.Inputs[1].Joined)
	}
	in := set.FindIntent("key-0001")
	if len(in) != 1 || len(in[0].Deliveries) != 2 {
		t.Fatalf("key key-0001: %v", in)
	}
	for _, d := range in[0].Deliveries {
		if d.At(model.TierProxy) == nil || d.At(model.TierServer) == nil {
			t.Errorf("delivery %s holds %d lines, want the proxy's and the server's", d.RequestID, len(d.Observations))
		}
	}
}

// TestServerLearnsByPosition: a server's text lines (a request line
// read by its grammar, the id after it unnamed) learn the id's position
// from the ids nginx names.
func TestServerLearnsByPosition(t *testing.T) {
	const server = `INFO:     127.0.0.1:54321 - "POST /v1/orders HTTP/1.1" 201 Created req-0001
INFO:     127.0.0.1:54322 - "POST /v1/orders HTTP/1.1" 201 Created req-0002
INFO:     127.0.0.1:54323 - "POST /v1/orders HTTP/1.1" 201 Created req-0003
`
	dir := t.TempDir()
	proxy, app := write(t, dir, "nginx.jsonl", proxyLines), write(t, dir, "uvicorn.log", server)
	set, err := load.Files(context.Background(), []string{proxy, app}, load.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := joined(set.Inputs[1]); got["request_id"] != "$7 joined 3 of 3 sampled values to proxy request ids" || len(got) != 1 {
		t.Errorf("the server learned %v", got)
	}
	if len(set.Inputs[0].Joined) != 0 {
		t.Errorf("nginx, which names its ids, learned %v", set.Inputs[0].Joined)
	}
	in := set.FindIntent("key-0001")
	if len(in) != 1 || len(in[0].Deliveries) != 2 || in[0].Deliveries[0].At(model.TierServer) == nil {
		t.Fatalf("key key-0001: %v", in)
	}
}

// TestNothingJoinsWhatIsNoJoin: a request id two trips named (a counter
// each replica restarts) is no join, nor is a number (a byte count equal
// to the server's numeric ids), nor an input's own values.
func TestNothingJoinsWhatIsNoJoin(t *testing.T) {
	dir := t.TempDir()
	// Two nginx lines each of req-0001 and req-0002: two trips each.
	reused := proxyLines + strings.ReplaceAll(strings.ReplaceAll(proxyLines, "09:00:0", "09:10:0"), "req-0003", "req-0001")
	reused = strings.Replace(reused, `"request_id":"req-0003"`, `"request_id":"req-0002"`, 1)
	for name, tc := range map[string]struct{ proxy, server string }{
		"an id two trips named": {reused, serverLines},
		"a byte count equal to a numeric id (ten digits: not scoped to its process)": {
			`127.0.0.1 - - [30/Nov/2026:09:00:00 +0000] "POST /v1/orders HTTP/1.1" 201 1000000001 "-" "curl/8.5.0"
127.0.0.1 - - [30/Nov/2026:09:00:01 +0000] "POST /v1/orders HTTP/1.1" 201 1000000002 "-" "curl/8.5.0"
127.0.0.1 - - [30/Nov/2026:09:00:02 +0000] "POST /v1/orders HTTP/1.1" 201 1000000003 "-" "curl/8.5.0"
`,
			strings.NewReplacer("req-000", "100000000").Replace(appLines),
		},
	} {
		t.Run(name, func(t *testing.T) {
			p, s := write(t, dir, "proxy.log", tc.proxy), write(t, dir, "app.jsonl", tc.server)
			set, err := load.Files(context.Background(), []string{p, s}, load.Options{})
			if err != nil {
				t.Fatal(err)
			}
			for _, in := range set.Inputs {
				if got := joined(in); got["request_id"] != "" {
					t.Errorf("%s learned %v", in.Path, got)
				}
			}
		})
	}
	// One input alone learns nothing from itself: a second input that
	// names nothing it holds is needed for a join.
	self := `{"when":"2026-11-30T09:00:00.050Z","request_id":"req-0001","copy":"req-0001","msg":"a"}
{"when":"2026-11-30T09:00:01.050Z","request_id":"req-0002","copy":"req-0002","msg":"b"}
{"when":"2026-11-30T09:00:02.050Z","copy":"req-0001","msg":"c"}
{"when":"2026-11-30T09:00:03.050Z","copy":"req-0002","msg":"d"}
`
	a, b := write(t, dir, "self.jsonl", self), write(t, dir, "other.jsonl", `{"when":"2026-11-30T09:00:00Z","msg":"unrelated"}`+"\n")
	set, err := load.Files(context.Background(), []string{a, b}, load.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := joined(set.Inputs[0]); len(got) != 0 {
		t.Errorf("an input learned from its own ids: %v", got)
	}
}

func joined(in *model.Input) map[string]string {
	got := map[string]string{}
	for _, u := range in.Joined {
		got[u.Field] = u.Path + " " + u.By
	}
	return got
}
