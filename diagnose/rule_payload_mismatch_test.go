package diagnose_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/idem-cli/idem/diagnose"
)

// reusedKey is an order, then its key again with the payload fp2 and
// what the server did with it.
func reusedKey(fp2 string, answer ...ob) []ob {
	return append([]ob{
		server("r1").key("k-1").post().at(0).took(0.2).status(201).fp("sha256:aaaa"),
		server("r1").key("k-1").at(0.1).effect("ord_1"),
		server("r2").key("k-1").post().at(30).fp(fp2),
	}, answer...)
}

// unhashed is reusedKey where no tier logged a payload.
func unhashed(answer ...ob) []ob {
	obs := reusedKey("", answer...)
	for i := range obs {
		obs[i].o.Fingerprint = ""
	}
	return obs
}

var payloadMismatchCases = ruleCases{
	rule: "payload-mismatch",
	fire: []ruleCase{
		{name: "the second payload ran too",
			obs:  reusedKey("sha256:bbbb", server("r2").key("k-1").at(30.1).effect("ord_2")),
			want: []want{{severity: diagnose.Critical, keys: []string{"k-1"}, says: "ran the second payload too"}}},
		{name: "the second payload was refused with 422",
			obs:  reusedKey("sha256:bbbb", server("r2").key("k-1").at(30.1).status(422).decision("conflict")),
			want: []want{{severity: diagnose.Warning, keys: []string{"k-1"}, says: "answered 422 before the effect"}}},
		{name: "no payload logged: the second delivery answered 422, the draft's status for a reused key",
			obs:  unhashed(server("r2").key("k-1").at(30.1).status(422)),
			want: []want{{severity: diagnose.Warning, keys: []string{"k-1"}, says: "then delivery r2 was answered 422 at 13:30:30.100Z, the server's refusal of a key reused with another payload: likely a mismatch (no tier logged both payloads", conf: diagnose.Inferred, lacks: "both payloads"}}},
		{name: "no payload logged: 400 saying the body differs",
			obs:  unhashed(server("r2").key("k-1").at(30.1).status(400).msg("Idempotency-Key reused with a different request body")),
			want: []want{{severity: diagnose.Warning, keys: []string{"k-1"}, says: "was answered 400"}}},
		{name: "no payload logged: 409 saying the fingerprint does not match",
			obs:  unhashed(server("r2").key("k-1").at(30.1).status(409).msg("request fingerprint mismatch")),
			want: []want{{severity: diagnose.Warning, keys: []string{"k-1"}, says: "was answered 409"}}},
		{name: "the second payload got the first one's stored result",
			obs:  reusedKey("sha256:bbbb", server("r2").key("k-1").at(30.1).status(201).decision("replay").result("ord_1")),
			want: []want{{severity: diagnose.Critical, keys: []string{"k-1"}, says: "without comparing payloads"}}},
	},
	quiet: []ruleCase{
		// One field away: the key had never succeeded (its first
		// delivery failed), so a 422 may be the body's validation.
		{name: "no payload logged: the first delivery failed with 500, the second got 422", obs: []ob{
			server("r1").key("k-1").post().at(0).took(0.2).status(500),
			server("r2").key("k-1").post().at(30).took(0.2).status(422),
		}},
		{name: "no payload logged: a 400 that does not say the payload differs (validation)",
			obs: unhashed(server("r2").key("k-1").at(30.1).status(400).msg("amount must be positive"))},
		{name: "no payload logged: 409 with Retry-After is in progress, not a mismatch",
			obs: unhashed(server("r2").key("k-1").at(30.1).status(409).retryAfter())},
		{name: "no payload logged: every delivery answered 422 (a payload refused each time)", obs: []ob{
			server("r1").key("k-1").post().at(0).took(0.2).status(422),
			server("r2").key("k-1").post().at(30).took(0.2).status(422),
		}},
		{name: "both payloads logged and equal: a 422 is about something else",
			obs: reusedKey("sha256:aaaa", server("r2").key("k-1").at(30.1).status(422))},
		{name: "the same payload got the stored result",
			obs: reusedKey("sha256:aaaa", server("r2").key("k-1").at(30.1).status(201).decision("replay").result("ord_1"))},
		{name: "the fingerprints were logged by different tiers", obs: []ob{
			server("r1").key("k-1").post().at(0).status(201).fp("sha256:aaaa"),
			server("r1").key("k-1").at(0.1).effect("ord_1"),
			proxy("r2").key("k-1").post().at(30).status(201).fp("canon:bbbb"),
			server("r2").key("k-1").post().at(30.1).status(201).decision("replay").result("ord_1"),
		}},
		{name: "the other payload came under another key", obs: []ob{
			server("r1").key("k-1").post().at(0).status(201).fp("sha256:aaaa"),
			server("r1").key("k-1").at(0.1).effect("ord_1"),
			server("r2").key("k-2").post().at(30).status(201).fp("sha256:bbbb"),
			server("r2").key("k-2").at(30.1).effect("ord_2"),
		}},
	},
}

// TestMismatchFromTheLibrarysAnswer: node-idempotency's own capture, with
// the payload hashes it logged taken out, still shows the reused key: the
// library answered 422, and the rule reads that answer.
func TestMismatchFromTheLibrarysAnswer(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"app.jsonl", "access.json.log"} {
		b, err := os.ReadFile(filepath.Join("../fixtures/real/node-idempotency", name))
		if err != nil {
			t.Fatal(err)
		}
		b = regexp.MustCompile(`"payload_hash":"[^"]*",?`).ReplaceAll(b, nil)
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	const key = "a6098932-5699-458f-ae86-b24fb20d52f0"
	for _, tt := range []struct {
		dir, says string
	}{
		{"../fixtures/real/node-idempotency", "with fingerprint sha256:fdf9013fee36"},
		{dir, "was answered 422 at 12:34:53.437Z, the server's refusal of a key reused with another payload: likely a mismatch"},
	} {
		res, _ := diagnoseFiles(t, filepath.Join(tt.dir, "app.jsonl"), filepath.Join(tt.dir, "access.json.log"))
		var got []string
		for _, f := range (diagnose.Filter{Rules: []string{"payload-mismatch"}, Keys: []string{key}}).Apply(res.Findings) {
			got = append(got, f.Severity.String()+": "+f.Narrative)
		}
		if len(got) != 1 || !strings.HasPrefix(got[0], "warning: ") || !strings.Contains(got[0], tt.says) {
			t.Errorf("%s: payload-mismatch for %s = %q, want one warning saying %q", tt.dir, key, got, tt.says)
		}
	}
}
