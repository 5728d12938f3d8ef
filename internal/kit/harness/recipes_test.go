package harness

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/idem-cli/idem/diagnose"
	"github.com/idem-cli/idem/formats"
	"github.com/idem-cli/idem/ingest"
	"github.com/idem-cli/idem/internal/kit/capture"
	"github.com/idem-cli/idem/load"
	"github.com/idem-cli/idem/model"
)

// Every proxy recipe that 'idem help formats' and docs/formats.md give
// (a format's Setup) is run as written, its config taken from the Setup
// string's backquoted spans, in front of a double charge sent as curl and
// most SDKs send it, with no X-Request-Id: a payment whose client timed
// out while the server charged, a retry under the same key (the stored
// result), and a retry under a new key (a second charge). What the proxy
// and the backend logged must show it: the lost trip joined across the
// tiers, and the retry under a new key naming both keys.

// recipeSpans returns the config in a Setup string: its backquoted spans.
func recipeSpans(t *testing.T, format string) []string {
	t.Helper()
	f := formats.ByName(format)
	if f == nil {
		t.Fatalf("no format %s", format)
	}
	var spans []string
	for _, m := range regexp.MustCompile("`([^`]+)`").FindAllStringSubmatch(f.Setup, -1) {
		spans = append(spans, m[1])
	}
	if len(spans) == 0 {
		t.Fatalf("%s's Setup holds no config in backquotes: %s", format, f.Setup)
	}
	return spans
}

// recipeLog is the access log every recipe's proxy writes.
const recipeLog = "access.log"

// recipe starts a proxy with its format's recipe in front of upstream.
// seesLoss is whether the proxy can log that a client gave up: Apache's
// mod_proxy does not watch the client's connection while the backend
// works, so it logs the lost trip as answered (201, %X "-").
type recipe struct {
	start    func(t *testing.T, spans []string, upstream string) *capture.Proxy
	seesLoss bool
}

var recipes = map[string]recipe{
	"nginx":    {start: nginxRecipe, seesLoss: true},
	"combined": {start: nginxRecipe, seesLoss: true},
	"haproxy": {seesLoss: true, start: func(t *testing.T, spans []string, upstream string) *capture.Proxy {
		return capture.StartHAProxy(t, capture.HAProxyConfig{
			Log:    capture.AccessLog{File: recipeLog, Format: capture.LogFormat{Proxy: "haproxy", Name: "recipe", Def: strings.Join(spans, "\n  ")}},
			Routes: fmt.Sprintf("  default_backend app\n\nbackend app\n  server app1 %s\n", upstream),
		})
	}},
	"apache": {start: func(t *testing.T, spans []string, upstream string) *capture.Proxy {
		def, routes := splitRecipe(spans, "LogFormat ")
		return capture.StartApache(t, capture.ApacheConfig{
			Logs: []capture.AccessLog{{File: recipeLog, Format: capture.LogFormat{Proxy: "apache", Name: "idem", Def: def}}},
			Routes: func(int) string {
				return strings.Join(routes, "\n") + fmt.Sprintf("\nProxyPass / http://%s/\n", upstream)
			},
		})
	}},
	"caddy": {seesLoss: true, start: func(t *testing.T, spans []string, upstream string) *capture.Proxy {
		def, routes := splitRecipe(spans, "format ")
		return capture.StartCaddy(t, capture.CaddyConfig{
			Log:    capture.AccessLog{File: recipeLog, Format: capture.LogFormat{Proxy: "caddy", Name: "recipe", Def: def}},
			Routes: "\t" + strings.Join(routes, "\n\t") + fmt.Sprintf("\n\treverse_proxy %s\n", upstream),
		})
	}},
}

// splitRecipe parts a recipe's spans into its log format's definition
// (the span that begins with prefix) and the other directives.
func splitRecipe(spans []string, prefix string) (def string, rest []string) {
	for _, s := range spans {
		if strings.HasPrefix(s, prefix) {
			def = s
		} else {
			rest = append(rest, s)
		}
	}
	return def, rest
}

// nginxRecipe runs nginx with the recipe's log_format and its other
// directives where it proxies.
func nginxRecipe(t *testing.T, spans []string, upstream string) *capture.Proxy {
	def, location := splitRecipe(spans, "log_format ")
	name := strings.Fields(def)[1]
	return capture.StartNginx(t, capture.NginxConfig{
		Logs: []capture.AccessLog{{File: recipeLog, Format: capture.LogFormat{Proxy: "nginx", Name: name, Def: def}}},
		HTTP: func(port int) string {
			return fmt.Sprintf("  proxy_http_version 1.1;\n  server {\n    listen 127.0.0.1:%d;\n    location / {\n      %s\n      proxy_pass http://%s;\n    }\n  }\n",
				port, strings.Join(location, "\n      "), upstream)
		},
	})
}

func TestSetupRecipes(t *testing.T) {
	for _, name := range []string{"nginx", "combined", "haproxy", "caddy", "apache"} {
		t.Run(name, func(t *testing.T) {
			r := recipes[name]
			b := StartBackend(t)
			p := r.start(t, recipeSpans(t, name), b.Addr)
			sent := doubleCharge(t, p.URL, b, nil)
			p.Stop()
			set := loadRecipe(t, p.Log(recipeLog), b.LogPath)
			checkTripsJoined(t, set, sent)
			if r.seesLoss {
				checkDoubleCharge(t, set, sent)
			} else {
				checkUnseenLoss(t, set, sent)
			}
		})
	}
}

// loadRecipe logs what the proxy and the backend wrote and reads it as
// idem diagnose does.
func loadRecipe(t *testing.T, paths ...string) *model.Set {
	t.Helper()
	for _, p := range paths {
		if b, err := os.ReadFile(p); err == nil {
			t.Logf("%s:\n%s", p, b)
		}
	}
	set, err := load.Files(context.Background(), paths, load.Options{Read: ingest.Options{}, Build: diagnose.DefaultOptions().Build()})
	if err != nil {
		t.Fatal(err)
	}
	return set
}

// checkTripsJoined asks that every trip's proxy and server lines are one
// delivery, joined by the id the recipe passes on.
func checkTripsJoined(t *testing.T, set *model.Set, sent []capture.Sent) {
	t.Helper()
	for _, s := range sent {
		for _, in := range set.FindIntent(s.Key) {
			for _, d := range in.Deliveries {
				if d.At(model.TierProxy) == nil || d.At(model.TierServer) == nil {
					t.Errorf("key %s: delivery %s is seen by %s alone", s.Key, d.RequestID, capture.Tiers(d))
				}
			}
		}
	}
}

// checkUnseenLoss is the check for a proxy that cannot see a client give
// up, in front of a backend that logs no payload: idem must not call the
// double charge healthy: it finds it, or says the rules that would could
// not look.
func checkUnseenLoss(t *testing.T, set *model.Set, sent []capture.Sent) {
	t.Helper()
	res := diagnose.Run(set, diagnose.DefaultOptions())
	for _, f := range res.Findings {
		if f.Rule.ID == "retry-new-key" && slices.Contains(f.Keys, sent[0].Key) && slices.Contains(f.Keys, sent[2].Key) {
			return
		}
	}
	if !res.Inconclusive() {
		t.Errorf("the double charge (keys %s, %s) is neither found nor said to be out of sight: %d findings, not evaluated %v",
			sent[0].Key, sent[2].Key, len(res.Findings), res.NotEvaluated)
	}
}

// With the nginx recipe, a client that sends its own X-Request-Id: nginx
// logs it beside its own $request_id and passes its own on. The line's
// second id is the one the server logged: one trip each, not a proxy-only
// and a server-only half, and nothing blamed on the server.
func TestSetupRecipeClientRequestID(t *testing.T) {
	b := StartBackend(t)
	p := nginxRecipe(t, recipeSpans(t, "nginx"), b.Addr)
	sent := doubleCharge(t, p.URL, b, capture.NewID)
	p.Stop()
	set := loadRecipe(t, p.Log(recipeLog), b.LogPath)
	checkTripsJoined(t, set, sent)
	for _, s := range sent {
		for _, in := range set.FindIntent(s.Key) {
			for _, d := range in.Deliveries {
				if d.RequestID == s.RequestID {
					t.Errorf("key %s: the trip goes by the client's id %s, which the server never saw", s.Key, s.RequestID)
				}
			}
		}
	}
	for _, f := range checkDoubleCharge(t, set, sent).Findings {
		if f.Rule.ID == "request-id-not-propagated" {
			t.Errorf("the server was blamed: %s", f.Narrative)
		}
	}
}

// doubleCharge sends the lesson's traffic through base, with no
// X-Request-Id but where clientID gives one, and waits until the backend
// has logged every request it received.
func doubleCharge(t *testing.T, base string, b *Backend, clientID func() string) []capture.Sent {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	k1, k2 := capture.NewID(), capture.NewID()
	body := `{"amount":4200,"currency":"EUR","customer":"cus_42"}`
	rid := func() string {
		if clientID == nil {
			return ""
		}
		return clientID()
	}
	steps := []capture.Request{
		// The client's patience leaves a loaded machine's proxy time to
		// pass the request on before the client goes.
		{Step: "charge-timeout", Base: base, Path: "/v1/orders?delay=2000ms", Key: k1, Body: body, Timeout: 800 * time.Millisecond, RequestID: rid()},
		{Step: "same-key-retry", Base: base, Path: "/v1/orders", Key: k1, Body: body, RequestID: rid()},
		{Step: "new-key-retry", Base: base, Path: "/v1/orders", Key: k2, Body: body, RequestID: rid()},
	}
	var sent []capture.Sent
	for i, r := range steps {
		s := capture.Send(ctx, r)
		sent = append(sent, s)
		if i == 0 {
			time.Sleep(1500 * time.Millisecond) // the server charges after the client has gone
		}
	}
	var received []string
	for _, h := range b.Hits() {
		received = append(received, h.RequestID)
	}
	if len(received) != 3 {
		t.Fatalf("the backend received %d requests of 3 (%q): the traffic did not go as meant", len(received), received)
	}
	if slices.Contains(received, "") {
		t.Fatalf("the backend received %q: the proxy passed on no request id", received)
	}
	if _, err := capture.WaitFor(ctx, b.LogPath, received...); err != nil {
		t.Fatal(err)
	}
	if sent[0].Ended != capture.EndedTimeout || sent[1].Status != 201 || !sent[1].Replayed || sent[2].Status != 201 ||
		sent[2].ResultID == sent[1].ResultID {
		t.Fatalf("the traffic did not end as meant: %+v", sent)
	}
	time.Sleep(200 * time.Millisecond) // the proxy writes its line as the request ends
	return sent
}

// checkDoubleCharge finds the double charge the traffic made, and
// returns the diagnosis.
func checkDoubleCharge(t *testing.T, set *model.Set, sent []capture.Sent) *diagnose.Result {
	t.Helper()
	k1, k2 := sent[0].Key, sent[2].Key
	in := set.FindIntent(k1)
	if len(in) != 1 {
		t.Fatalf("key %s: %d intents", k1, len(in))
	}
	var joined bool
	for _, d := range in[0].Deliveries {
		if d.Lost() != nil && d.At(model.TierProxy) != nil && d.At(model.TierServer) != nil {
			joined = true
		}
	}
	if !joined || len(in[0].Deliveries) != 2 {
		for _, d := range in[0].Deliveries {
			t.Logf("delivery %s: %s", d.RequestID, capture.Tiers(d))
		}
		t.Errorf("key %s: the lost trip's proxy and server lines are not one delivery of two", k1)
	}
	res := diagnose.Run(set, diagnose.DefaultOptions())
	var found, lost bool
	for _, f := range res.Findings {
		t.Logf("%s %s: %s", f.Severity, f.Rule.ID, f.Narrative)
		if f.Rule.ID == "retry-new-key" && slices.Contains(f.Keys, k1) && slices.Contains(f.Keys, k2) {
			found = true
			// Two order ids are two effects: a fact, said first.
			want := fmt.Sprintf("2 effects: %s, %s. ", sent[1].ResultID, sent[2].ResultID) // the replay gave the first
			if f.Severity != diagnose.Critical || !strings.HasPrefix(f.Narrative, want) {
				t.Errorf("the double charge told as a maybe (%s, want it to open with %q): %s", f.Severity, want, f.Narrative)
			}
		}
		if slices.Contains(f.Keys, k1) && strings.Contains(f.Narrative, "contract held") {
			t.Errorf("%s says the contract held for a key of the duplicate: %s", f.Rule.ID, f.Narrative)
		}
		if f.Rule.ID == "response-lost" && slices.Contains(f.Keys, k1) {
			lost = true
		}
	}
	if !found || !lost {
		t.Errorf("the double charge was not found (retry-new-key %v, response-lost %v)", found, lost)
	}
	return res
}

// The Apache capture's idem layout (capture.ApacheIdem, kept in
// fixtures/real/apache) is the recipe's LogFormat, to the letter.
func TestApacheCaptureIsTheRecipe(t *testing.T) {
	if spans := recipeSpans(t, "apache"); spans[0] != capture.ApacheIdem.Def {
		t.Errorf("apache's Setup gives\n%s\nthe capture runs\n%s", spans[0], capture.ApacheIdem.Def)
	}
}

// Tomcat serves, it does not proxy: its recipe's pattern is the one the
// Tomcat capture runs (capture.TomcatStock, kept in fixtures/real/tomcat).
func TestTomcatCaptureIsTheRecipe(t *testing.T) {
	if spans := recipeSpans(t, "tomcat"); !strings.Contains(spans[0], ` pattern="`+capture.TomcatStock.Def+`"`) {
		t.Errorf("tomcat's Setup gives\n%s\nthe capture runs the pattern\n%s", spans[0], capture.TomcatStock.Def)
	}
}
