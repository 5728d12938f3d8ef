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
	out.Assertions = append([]replay.Assertion(nil), res.Assertions...)
	for i := range out.Assertions {
		out.Assertions[i].Actual = redact.String(out.Assertions[i].Actual)
	}
	if out.Assertions == nil {
		out.Assertions = []replay.Assertion{}
	}
	return WriteJSON(w, out, indent)
}

func stepName(probe string) string {
	if probe == "" {
		return "replay"
	}
	return "probe " + probe
}

// ReplayText writes the assertions like hurl: PASS or FAIL, expected and got.
func ReplayText(w io.Writer, st Styles, res *replay.Result) {
	fmt.Fprintf(w, "%s %s (profile %s)\n", st.Title.Render("idem replay →"), Safe(res.Target), res.Profile)
	rq := res.Request
	fmt.Fprintf(w, "request   %s %s  key %s  request id %s  %s\n", rq.Method, Safe(rq.URL), st.Code.Render(Safe(rq.Key)), Safe(rq.RequestID), st.Faint.Render("from "+Safe(rq.Source)))
	orig := "not in the logs"
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
		var mark string
		switch {
		case a.Skipped:
			mark = st.Faint.Render("SKIP")
		case a.Pass:
			mark = st.OK.Render("PASS")
		default:
			mark = st.Critical.Render("FAIL")
		}
		fmt.Fprintf(w, "  %s  %-36s expected %s, got %s\n", mark, a.Name, Safe(a.Expected), Safe(a.Actual))
	}
	summary := fmt.Sprintf("%d passed, %d failed, %d skipped", res.Passed, res.Failed, res.Skipped)
	if res.Failed > 0 {
		summary = st.Critical.Render(summary)
	} else {
		summary = st.OK.Render(summary)
	}
	fmt.Fprintf(w, "\n%s\n", summary)
}

// ReplayMarkdown writes the replay for an incident: the request and each
// assertion.
func ReplayMarkdown(w io.Writer, res *replay.Result) {
	verdict := "the replay contract held"
	if res.Failed > 0 {
		verdict = "the replay contract is broken"
	}
	fmt.Fprintf(w, "## idem replay: %s\n\n", verdict)
	rq := res.Request
	fmt.Fprintf(w, "| target | profile | method | URL | key | request id | from |\n|---|---|---|---|---|---|---|\n")
	fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %s |\n\n", MD(res.Target), res.Profile, rq.Method, MD(rq.URL), MD(rq.Key), MD(rq.RequestID), MD(rq.Source))
	fmt.Fprintf(w, "Original answer in the logs: %s %s.\n\n", statusOrDash(res.Original.Status), MD(res.Original.ResultID))
	fmt.Fprintf(w, "| step | assertion | result | expected | got |\n|---|---|---|---|---|\n")
	for _, a := range res.Assertions {
		r := "PASS"
		if a.Skipped {
			r = "SKIP"
		} else if !a.Pass {
			r = "**FAIL**"
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s |\n", stepName(a.Probe), MD(a.Name), r, MD(a.Expected), MD(a.Actual))
	}
	fmt.Fprintf(w, "\n%d passed, %d failed, %d skipped.\n", res.Passed, res.Failed, res.Skipped)
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
		Skipped: res.Skipped, Time: fmt.Sprintf("%.3f", res.Duration/1000)}
	for _, a := range res.Assertions {
		c := junitCase{Name: a.Name, Classname: stepName(a.Probe)}
		msg := fmt.Sprintf("expected %s, got %s", redact.String(a.Expected), redact.String(a.Actual))
		if a.Skipped {
			c.Skipped = &junitSkipped{Message: msg}
		} else if !a.Pass {
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
// redacted, with an equivalent curl command. Nothing is sent.
func ReplayPlan(w io.Writer, st Styles, p *replay.Plan, target string) {
	fmt.Fprintf(w, "%s %d request(s) to %s would be sent:\n", st.Title.Render("idem replay --dry-run:"), p.Count(), Safe(target))
	for _, s := range p.Steps {
		fmt.Fprintf(w, "\n%s  %s\n", st.Label.Render(stepName(s.Probe)), Safe(s.Note))
		for _, r := range s.Requests {
			fmt.Fprintf(w, "  %s %s\n", r.Method, Safe(r.URL))
			var names []string
			for n := range r.Header {
				names = append(names, n)
			}
			sort.Strings(names)
			for _, n := range names {
				fmt.Fprintf(w, "    %s: %s\n", Safe(n), Safe(replay.ShowHeader(n, strings.Join(r.Header[n], ", "))))
			}
			if len(r.Body) > 0 {
				body := string(r.Body)
				if len(body) > 2000 {
					body = body[:2000] + "…"
				}
				fmt.Fprintf(w, "    %s\n", Safe(redact.String(body)))
			}
			fmt.Fprintf(w, "  %s\n", st.Faint.Render("equivalent:"))
			for _, line := range strings.Split(r.Curl(), "\n") {
				fmt.Fprintf(w, "    %s\n", Safe(line))
			}
		}
	}
}
