package report

import (
	"encoding/xml"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/idem-cli/idem/redact"
	"github.com/idem-cli/idem/replay"
)

// ReplayJSON writes idem.replay/v1.
func ReplayJSON(w io.Writer, res *replay.Result, indent bool) error {
	out := *res
	out.Target = redact.String(out.Target)
	out.Request.URL = redact.String(out.Request.URL)
	out.Request.Key = redact.String(out.Request.Key)
	out.Request.Headers = map[string]string{}
	for name, v := range res.Request.Headers {
		out.Request.Headers[name] = replay.ShowHeader(name, v)
	}
	out.Assertions = append([]replay.Assertion(nil), res.Assertions...)
	for i := range out.Assertions {
		out.Assertions[i].Expected = redact.String(out.Assertions[i].Expected)
		out.Assertions[i].Actual = redact.String(out.Assertions[i].Actual)
	}
	if out.Assertions == nil {
		out.Assertions = []replay.Assertion{}
	}
	if res.Reason != nil {
		r := *res.Reason
		r.Error = redact.String(r.Error)
		out.Reason = &r
	}
	return WriteJSON(w, out, indent)
}

func stepName(probe string) string {
	if probe == "" {
		return "replay"
	}
	return "probe " + probe
}

// replayVerdict is the one-line verdict.
func replayVerdict(res *replay.Result) string {
	switch res.Verdict {
	case replay.VerdictBroken:
		return "the replay contract is broken"
	case replay.VerdictInconclusive:
		return "the replay is inconclusive (it never reached the contract)"
	}
	return "the replay contract held"
}

// replayHint says what to do about an inconclusive replay, naming the
// flags that change it ("" when there is nothing to say).
func replayHint(res *replay.Result) string {
	why := res.Reason
	if why == nil {
		return ""
	}
	prefix := ""
	if why.Probe != "" {
		prefix = stepName(why.Probe) + ": "
	}
	switch why.Kind {
	case replay.ReasonCredentials:
		if len(why.Dropped) == 0 {
			return fmt.Sprintf("%sthe target answered %d and the capture held no credentials; give them with --header 'Name: value'", prefix, why.Status)
		}
		verb := "was"
		if len(why.Dropped) > 1 {
			verb = "were"
		}
		return fmt.Sprintf("%sthe target answered %d: the captured %s %s not resent; add --keep-auth to resend captured credentials, or --header to give fresh ones",
			prefix, why.Status, strings.Join(why.Dropped, ", "), verb)
	case replay.ReasonRoute:
		return fmt.Sprintf("%sthe target answered %d for %s %s: the route looks wrong for this target; check --target (scheme, host, port, path prefix) against the captured URL",
			prefix, why.Status, res.Request.Method, redact.String(res.Request.URL))
	case replay.ReasonRateLimited:
		return prefix + "the target answered 429 before its idempotency layer saw the key: wait (Retry-After) and run it again"
	case replay.ReasonUnavailable:
		return fmt.Sprintf("%sthe target answered %d before any contract answer: its upstream is down; run it again when it is up", prefix, why.Status)
	case replay.ReasonUnreachable:
		return fmt.Sprintf("%snothing answers at %s (%s): check --target", prefix, redact.String(res.Target), why.Error)
	}
	return ""
}

func replaySummary(res *replay.Result) string {
	s := fmt.Sprintf("%d passed, %d failed, %d skipped", res.Passed, res.Failed, res.Skipped)
	if res.Info > 0 {
		s += fmt.Sprintf(", %d info", res.Info)
	}
	if res.Inconclusive > 0 {
		s += fmt.Sprintf(", %d inconclusive", res.Inconclusive)
	}
	return s
}

// ReplayText writes the assertions like hurl: PASS or FAIL, expected and got.
func ReplayText(w io.Writer, st styles, res *replay.Result) {
	fmt.Fprintf(w, "%s %s (profile %s)\n", st.Title.Render("idem replay →"), Safe(res.Target), res.Profile)
	rq := res.Request
	fmt.Fprintf(w, "request   %s %s  key %s  request id %s  %s\n", rq.Method, Safe(rq.URL), st.Code.Render(Safe(rq.Key)), Safe(rq.RequestID), st.Faint.Render("from "+Safe(rq.Source)))
	orig := "not in the capture or the logs"
	if res.Original.Status > 0 || res.Original.ResultID != "" {
		orig = fmt.Sprintf("%s %s", statusOrDash(res.Original.Status), Safe(res.Original.ResultID))
		if res.Original.Source != "" {
			orig += "  " + st.Faint.Render(Safe(res.Original.Source))
		}
	}
	fmt.Fprintf(w, "original  %s\n", orig)
	last := "-"
	for _, a := range res.Assertions {
		if a.Probe != last {
			fmt.Fprintf(w, "\n%s\n", st.Label.Render(stepName(a.Probe)))
			last = a.Probe
		}
		style := st.Critical
		switch a.Status {
		case replay.Inconclusive:
			style = st.Warning
		case replay.Info:
			style = st.Info
		case replay.Skip:
			style = st.Faint
		case replay.Pass:
			style = st.OK
		}
		mark := style.Render(a.Status.String())
		fmt.Fprintf(w, "  %s  %-36s expected %s, got %s\n", mark, a.Name, Safe(a.Expected), Safe(a.Actual))
	}
	if len(res.NotRun) > 0 {
		fmt.Fprintf(w, "\nnot sent: %s\n", strings.Join(res.NotRun, ", "))
	}
	summary := replaySummary(res) + ": " + replayVerdict(res)
	switch res.Verdict {
	case replay.VerdictBroken:
		summary = st.Critical.Render(summary)
	case replay.VerdictInconclusive:
		summary = st.Warning.Render(summary)
	default:
		summary = st.OK.Render(summary)
	}
	fmt.Fprintf(w, "\n%s\n", summary)
	if hint := replayHint(res); hint != "" {
		fmt.Fprintf(w, "%s\n", Safe(hint))
	}
}

// ReplayMarkdown writes the replay for an incident: the request and each
// assertion.
func ReplayMarkdown(w io.Writer, res *replay.Result) {
	fmt.Fprintf(w, "## idem replay: %s\n\n", replayVerdict(res))
	rq := res.Request
	fmt.Fprintf(w, "| target | profile | method | URL | key | request id | from |\n|---|---|---|---|---|---|---|\n")
	fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %s |\n\n", md(res.Target), res.Profile, rq.Method, md(rq.URL), md(rq.Key), md(rq.RequestID), md(rq.Source))
	fmt.Fprintf(w, "Original answer: %s %s", statusOrDash(res.Original.Status), md(res.Original.ResultID))
	if res.Original.Source != "" {
		fmt.Fprintf(w, " (%s)", md(res.Original.Source))
	}
	fmt.Fprintf(w, ".\n\n")
	fmt.Fprintf(w, "| step | assertion | result | expected | got |\n|---|---|---|---|---|\n")
	for _, a := range res.Assertions {
		r := a.Status.String()
		if a.Status == replay.Fail || a.Status == replay.Inconclusive {
			r = "**" + r + "**"
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s |\n", stepName(a.Probe), md(a.Name), r, md(a.Expected), md(a.Actual))
	}
	fmt.Fprintf(w, "\n%s.\n", replaySummary(res))
	if len(res.NotRun) > 0 {
		fmt.Fprintf(w, "\nNot sent: %s.\n", md(strings.Join(res.NotRun, ", ")))
	}
	if hint := replayHint(res); hint != "" {
		fmt.Fprintf(w, "\n%s.\n", md(hint))
	}
}

type junitSuite struct {
	XMLName  xml.Name    `xml:"testsuite"`
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Skipped  int         `xml:"skipped,attr"`
	Time     string      `xml:"time,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Failure   *junitFailure `xml:"failure,omitempty"`
	Skipped   *junitSkipped `xml:"skipped,omitempty"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Text    string `xml:",chardata"`
}

type junitSkipped struct {
	Message string `xml:"message,attr"`
}

// ReplayJUnit writes the assertions as a JUnit XML test suite for CI.
func ReplayJUnit(w io.Writer, res *replay.Result) error {
	s := junitSuite{Name: "idem replay " + redact.String(res.Target), Tests: len(res.Assertions), Failures: res.Failed,
		Skipped: res.Skipped + res.Inconclusive, Time: fmt.Sprintf("%.3f", res.Duration/1000)}
	for _, a := range res.Assertions {
		c := junitCase{Name: a.Name, Classname: stepName(a.Probe)}
		msg := fmt.Sprintf("expected %s, got %s", redact.String(a.Expected), redact.String(a.Actual))
		switch a.Status {
		case replay.Inconclusive:
			c.Skipped = &junitSkipped{Message: "inconclusive: " + msg}
		case replay.Info:
			// Information is not a test outcome: the case passes.
		case replay.Skip:
			c.Skipped = &junitSkipped{Message: msg}
		case replay.Fail:
			c.Failure = &junitFailure{Message: msg, Text: msg}
		}
		s.Cases = append(s.Cases, c)
	}
	io.WriteString(w, xml.Header)
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(s); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// ReplayPlan writes what a replay would send: every request, secrets
// redacted, with an equivalent curl command. Nothing is sent. The curl
// lines are printed as Curl wrote them: it redacts before quoting and
// escapes every character a terminal would interpret, and redacting the
// quoted text again could eat a closing quote.
func ReplayPlan(w io.Writer, st styles, p *replay.Plan, target string) {
	fmt.Fprintf(w, "%s %d request(s) to %s would be sent:\n", st.Title.Render("idem replay --dry-run:"), p.Count(), Safe(target))
	if d := p.Base.Dropped; len(d) > 0 {
		fmt.Fprintf(w, "not resent from the capture: %s (add --keep-auth to resend them)\n", Safe(strings.Join(d, ", ")))
	}
	for _, s := range p.Steps {
		fmt.Fprintf(w, "\n%s  %s\n", st.Label.Render(stepName(s.Probe)), Safe(s.Note))
		for _, r := range s.Requests {
			fmt.Fprintf(w, "  %s %s\n", r.Method, Safe(replay.ShowURL(r.URL)))
			var names []string
			for n := range r.Header {
				names = append(names, n)
			}
			sort.Strings(names)
			for _, n := range names {
				fmt.Fprintf(w, "    %s: %s\n", Safe(n), Safe(replay.ShowHeader(n, strings.Join(r.Header[n], ", "))))
			}
			if len(r.Body) > 0 {
				body := redact.String(string(r.Body))
				if len(body) > 2000 {
					body = body[:2000] + "…"
				}
				fmt.Fprintf(w, "    %s\n", Safe(body))
			}
			fmt.Fprintf(w, "  %s\n", st.Faint.Render("equivalent:"))
			for _, line := range strings.Split(r.Curl(), "\n") {
				fmt.Fprintf(w, "    %s\n", line)
			}
		}
	}
}
