package report

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

func htmlOf(t *testing.T, r *Report) string {
	t.Helper()
	var b bytes.Buffer
	if err := r.HTML(&b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestHTMLGolden(t *testing.T) {
	golden(t, "retry-new-key.html", []byte(htmlOf(t, build(t, "../fixtures/scenarios/retry-new-key/*"))))
}

// TestHTMLIsSelfContainedAndStrict: nothing in the page can fetch or run
// anything, and log content cannot add markup, whatever it holds.
func TestHTMLIsSelfContainedAndStrict(t *testing.T) {
	pages := map[string]string{
		"hostile report":   htmlOf(t, hostileReport()),
		"hostile fixtures": htmlOf(t, build(t, "../fixtures/hostile/*")),
		"incident":         htmlOf(t, build(t, "../fixtures/incident/*")),
	}
	href := regexp.MustCompile(`(?i)\b(href|src|action|formaction|srcset|background)\s*=\s*"([^"]*)"`)
	for name, page := range pages {
		if !strings.Contains(page, `content="default-src 'none'; style-src 'unsafe-inline'"`) {
			t.Errorf("%s: no Content-Security-Policy forbidding fetches and scripts", name)
		}
		for _, bad := range []string{"<script", "<img", "<iframe", "<link", "@import", "url(", "javascript:", "\x1b", "\u202e", "\x7f"} {
			if strings.Contains(strings.ToLower(page), strings.ToLower(bad)) {
				t.Errorf("%s: the page holds %q", name, bad)
			}
		}
		for _, m := range href.FindAllStringSubmatch(page, -1) {
			if m[1] != "href" || !strings.HasPrefix(m[2], "#rule-") {
				t.Errorf("%s: %s=%q points outside the page", name, m[1], m[2])
			}
		}
		for _, c := range page {
			if c < 0x20 && c != '\n' && c != '\t' || c >= 0x80 && c <= 0x9f {
				t.Errorf("%s: control character %U in the page", name, c)
				break
			}
		}
	}
	hostile := pages["hostile report"]
	for _, want := range []string{"&lt;script&gt;alert(1)&lt;/script&gt;", `\e[31m`} {
		if !strings.Contains(hostile, want) {
			t.Errorf("hostile report: %q is not shown as text", want)
		}
	}
}

func TestHTMLTimeline(t *testing.T) {
	page := htmlOf(t, build(t, "../fixtures/scenarios/retry-new-key/*"))
	for _, tc := range []struct {
		what string
		re   string
		n    int
	}{
		{"findings", `<article class="finding">`, 2},
		{"lanes", `<div class="lane" data-tier="`, 6},
		{"client lanes", `data-tier="client"`, 2},
		// retry-new-key: two deliveries seen by three tiers; response-lost:
		// the first of them again.
		{"bars", `<div class="bar `, 9},
		{"lost bars", `<div class="bar lost"`, 4},
		{"effects", `<span class="mark effect"`, 3},
		{"failures", `<span class="mark failure"`, 4},
		{"ids on hover", `title="delivery 1: request 5a0c7e21-0b1d-4c2e-8f3a-4b5c6d7e8f90, key c0ffee00-1111-4222-8333-444455556666`, 6},
		{"result on hover", `result tr_002`, 2},
	} {
		if got := strings.Count(page, tc.re); got != tc.n {
			t.Errorf("%s: %d of %q, want %d", tc.what, got, tc.re, tc.n)
		}
	}
}

// chromium finds Debian's headless browser; a test that needs it skips
// without it, except in CI, where .ci/reports.sh installs it.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{os.Getenv("IDEM_CHROMIUM"), "chromium", "chromium-browser"} {
		if name == "" {
			continue
		}
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatal("CI must run this test: chromium is needed (.ci/reports.sh installs it)")
	}
	t.Skip("chromium is not installed (apt-get install chromium)")
	return ""
}

func runChromium(t *testing.T, bin string, args ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	base := []string{"--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-extensions",
		"--hide-scrollbars", "--user-data-dir=" + t.TempDir()}
	cmd := exec.CommandContext(ctx, bin, append(base, args...)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium %s: %v\n%s", strings.Join(args, " "), err, stderr.Bytes())
	}
	return stdout.Bytes()
}

// artifacts is where screenshots are kept: $IDEM_ARTIFACTS (CI), else a
// directory that outlives the test, printed.
func artifacts(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("IDEM_ARTIFACTS")
	if dir == "" {
		d, err := os.MkdirTemp("", "idem-artifacts-")
		if err != nil {
			t.Fatal(err)
		}
		dir = d
	}
	dir = filepath.Join(dir, "html")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestHTMLInChromium renders the bundled incidents and the hostile report
// in headless Chromium: the DOM the browser built has the lanes, bars and
// findings the report has, log content stayed text, and a screenshot of
// each is kept.
func TestHTMLInChromium(t *testing.T) {
	bin := chromium(t)
	dir := t.TempDir()
	out := artifacts(t)
	cases := []struct {
		name     string
		r        *Report
		findings int
		lanes    []string
	}{
		{"retry-new-key", build(t, "../fixtures/scenarios/retry-new-key/*"), 2, []string{"client", "proxy", "server"}},
		{"incident", build(t, "../fixtures/incident/*"), 2, []string{"client", "proxy", "server"}},
		{"external-duplicate", build(t, "../fixtures/scenarios/external-duplicate/*"), -1, []string{"server"}},
		{"hostile", hostileReport(), len(hostileReport().Findings), []string{"client", "server"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			page := filepath.Join(dir, tc.name+".html")
			if err := os.WriteFile(page, []byte(htmlOf(t, tc.r)), 0o644); err != nil {
				t.Fatal(err)
			}
			dom := string(runChromium(t, bin, "--dump-dom", "file://"+page))
			if !strings.Contains(dom, `<h1>idem diagnosis</h1>`) {
				t.Fatalf("Chromium did not render the page:\n%.2000s", dom)
			}
			if got := strings.Count(dom, `<article class="finding">`); tc.findings >= 0 && got != tc.findings {
				t.Errorf("%d findings in the DOM, want %d", got, tc.findings)
			}
			if got, want := strings.Count(dom, `<section class="rule"`), len(tc.r.Findings); got == 0 || got > want {
				t.Errorf("%d rule sections in the DOM for %d findings", got, want)
			}
			for _, lane := range tc.lanes {
				if !strings.Contains(dom, fmt.Sprintf(`<div class="lane" data-tier="%s">`, lane)) {
					t.Errorf("no %s lane in the DOM", lane)
				}
			}
			if strings.Count(dom, `<div class="bar `) == 0 {
				t.Errorf("no delivery bars in the DOM")
			}
			// Scripts cannot run and log content is text: the browser's own
			// DOM has no element the report did not write.
			for _, bad := range []string{"<script", "<img", "<iframe"} {
				if strings.Contains(dom, bad) {
					t.Errorf("the DOM holds %s", bad)
				}
			}
			shot := filepath.Join(out, tc.name+".png")
			runChromium(t, bin, "--window-size=1200,1600", "--screenshot="+shot, "file://"+page)
			if st, err := os.Stat(shot); err != nil || st.Size() < 10_000 {
				t.Errorf("no screenshot at %s: %v", shot, err)
			}
			t.Logf("screenshot: %s", shot)
		})
	}
}
