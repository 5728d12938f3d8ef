package report

import (
	"bytes"
	"encoding/xml"
	"net/url"
	"os/exec"
	"strings"
	"testing"

	"github.com/idem-cli/idem/contract"
	"github.com/idem-cli/idem/model"
	"github.com/idem-cli/idem/replay"
)

func inconclusiveResult() *replay.Result {
	return &replay.Result{Schema: "idem.replay/v1", Target: "http://ops:pw-1234@127.0.0.1:8080", Profile: "article",
		Request:  replay.RequestInfo{Method: "POST", URL: "http://127.0.0.1:8080/v1/orders", Key: "order-42", Source: "client.har:10"},
		Original: replay.Original{Status: 201, ResultID: "demo-request-42", Source: "client.har:77"},
		Assertions: []replay.Assertion{{Name: "reached the contract", Status: replay.Inconclusive, Expected: "an answer from the idempotency layer",
			Actual: "401 (the target wants credentials)"}},
		Verdict: replay.VerdictInconclusive, Inconclusive: 1, NotRun: []string{"probe mismatch"},
		Reason: &replay.Reason{Kind: replay.ReasonCredentials, Status: 401, Dropped: []string{"Authorization", "?api_key"}}}
}

func TestReplayReportsSayInconclusive(t *testing.T) {
	res := inconclusiveResult()
	var text, md, junit bytes.Buffer
	ReplayText(&text, NewStyles(&text, false), res)
	ReplayMarkdown(&md, res)
	if err := ReplayJUnit(&junit, res); err != nil {
		t.Fatal(err)
	}
	for name, out := range map[string]string{"text": text.String(), "markdown": md.String()} {
		for _, want := range []string{"INCONCLUSIVE", "the replay is inconclusive (it never reached the contract)", "Authorization, ?api\\_key", "--keep-auth", "probe mismatch", "demo-request-42", "client.har:77"} {
			if name == "text" {
				want = strings.ReplaceAll(want, `\_`, "_")
			}
			if !strings.Contains(out, want) {
				t.Errorf("%s lacks %q:\n%s", name, want, out)
			}
		}
		if strings.Contains(out, "FAIL") || strings.Contains(out, "pw-1234") {
			t.Errorf("%s:\n%s", name, out)
		}
	}
	var suite struct {
		Tests   int `xml:"tests,attr"`
		Skipped int `xml:"skipped,attr"`
		Cases   []struct {
			Skipped *struct {
				Message string `xml:"message,attr"`
			} `xml:"skipped"`
		} `xml:"testcase"`
	}
	if err := xml.Unmarshal(junit.Bytes(), &suite); err != nil || suite.Skipped != 1 || suite.Cases[0].Skipped == nil ||
		!strings.HasPrefix(suite.Cases[0].Skipped.Message, "inconclusive: ") {
		t.Errorf("junit %v:\n%s", err, junit.String())
	}
	var js bytes.Buffer
	if err := ReplayJSON(&js, res, false); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"verdict":"inconclusive"`, `"reason":{"kind":"credentials","status":401,"dropped":["Authorization","?api_key"]}`, `"not_run":["probe mismatch"]`, `"inconclusive":1`} {
		if !strings.Contains(js.String(), want) {
			t.Errorf("json lacks %s:\n%s", want, js.String())
		}
	}
}

func TestReplayInfoIsNotAFailure(t *testing.T) {
	res := &replay.Result{Target: "http://127.0.0.1:8080", Profile: "article", Verdict: replay.VerdictHeld, Passed: 1, Info: 1,
		Assertions: []replay.Assertion{{Name: "status", Status: replay.Pass, Expected: "201", Actual: "201"},
			{Name: "replay marker Idempotent-Replayed", Status: replay.Info, Expected: "true (optional: the profile does not require it)", Actual: "(none)"}}}
	var text, md bytes.Buffer
	ReplayText(&text, NewStyles(&text, false), res)
	ReplayMarkdown(&md, res)
	if !strings.Contains(text.String(), "INFO  replay marker") || !strings.Contains(text.String(), "1 passed, 0 failed, 0 skipped, 1 info: the replay contract held") {
		t.Errorf("text:\n%s", text.String())
	}
	if !strings.Contains(md.String(), "## idem replay: the replay contract held") || !strings.Contains(md.String(), "| INFO |") {
		t.Errorf("markdown:\n%s", md.String())
	}
}

// The dry-run's curl lines, as printed, are a valid shell command even
// when a masked credential ends a quoted argument.
func TestReplayPlanCurlIsValidShell(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash is not installed")
	}
	target, _ := url.Parse("http://ops:pw-1234@127.0.0.1:8080")
	c := &model.Captured{Method: "POST", URL: "https://shop.example.com/v1/login?api_key=AK1&next=/home", Key: "k", HasBody: true,
		Body: []byte("user=ann&password=hunter2&remember=1"), Headers: []model.Header{{Name: "Authorization", Value: "Bearer abcdef123456"},
			{Name: "Cookie", Value: "session=9f8e7d6c"}, {Name: "X-Note", Value: "a token=abcdef"}}}
	p, err := replay.NewPlan(c, "k", replay.Original{}, replay.Options{Target: target, Profile: contract.Profiles["article"], KeepAuth: true})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	ReplayPlan(&out, NewStyles(&out, false), p, target.String())
	var cmd []string
	in := false
	for _, line := range strings.Split(out.String(), "\n") {
		switch {
		case strings.HasPrefix(line, "    curl "):
			in = true
		case in && !strings.HasPrefix(line, "      "):
			in = false
		}
		if in {
			cmd = append(cmd, strings.TrimPrefix(line, "    "))
		}
	}
	if len(cmd) < 4 {
		t.Fatalf("no curl command in\n%s", out.String())
	}
	script := strings.Join(cmd, "\n")
	if err := exec.Command(bash, "-n", "-c", script).Run(); err != nil {
		t.Errorf("bash -n: %v\n%s", err, script)
	}
	if !strings.Contains(script, `-H 'Authorization: [REDACTED]' \`) || !strings.Contains(script, "password=[REDACTED]") {
		t.Errorf("curl:\n%s", script)
	}
	for _, secret := range []string{"abcdef123456", "hunter2", "9f8e7d6c", "pw-1234", "AK1"} {
		if strings.Contains(out.String(), secret) {
			t.Errorf("%s shown:\n%s", secret, out.String())
		}
	}
}
