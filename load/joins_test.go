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
