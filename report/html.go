package report

import (
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"strings"
	"time"

	"github.com/idem-cli/idem/diagnose"
	"github.com/idem-cli/idem/model"
)

// The page is one file with its style inline and no script at all: it
// opens offline, can be attached to a ticket, and its Content-Security-
// Policy forbids every fetch and script, so nothing in it can call out.
// Log content reaches it through Safe (redaction, control characters) and
// then html/template's contextual escaping.

//go:embed html.tmpl
var htmlSource string

var htmlPage = template.Must(template.New("page").Parse(htmlSource))

// unstyled renders text bare, for pieces shared with the text report.
var unstyled = NewStyles(io.Discard, false)

// htmlLanes are the swimlanes, in the order a request crosses them.
var htmlLanes = []model.Tier{model.TierClient, model.TierProxy, model.TierServer, model.TierWorker, model.TierProvider}

type htmlDoc struct {
	Summary  string
	Tiers    string
	Missing  string
	Retries  string // the retries by layer
	Inputs   []htmlInput
	Groups   []htmlGroup
	Day      string
	Findings int
	// NotEvaluated are the rules that could not look; Verdict is what
	// stands in for the findings when there are none.
	NotEvaluated []htmlNotEvaluated
	NotEvalHead  string
	Verdict      string
}

type htmlNotEvaluated struct{ Rule, Why, Log string }

type htmlInput struct {
	Path, Format, Tier string
	Lines, Skipped     int
	Error              string
}

type htmlGroup struct {
	Rule, Title, Severity              string
	Symptom, Hypothesis, Check, Action string
	Count, Intents                     int
	First, Last, Worst                 string
	Findings                           []htmlFinding
	More                               string
}

type htmlFinding struct {
	Subject, Narrative string
	Confidence         string // proven or inferred, and on what
	Inferred           bool
	Retries            []string // who sent each retry, in words
	Day                string   // the evidence's one day, if it has one
	Timeline           *htmlTimeline
	Evidence           []htmlEvidence
}

type htmlEvidence struct {
	Time, Tier, Status, RequestID, Detail, Source string
	Lost, Effect                                  bool
}

type htmlTimeline struct {
	Start, End, Span string
	Lanes            []htmlLane
	Omitted          int
}

type htmlLane struct {
	Tier  string
	Bars  []htmlBar
	Marks []htmlMark
}

// htmlBar is one delivery as one tier saw it, from start to end.
type htmlBar struct {
	Style template.CSS // left and width, computed here from times
	Class string       // ok, lost, error
	Label string       // the delivery's number
	Title string       // shown on hover: ids, status, result, source
}

// htmlMark is a moment: an effect, or where a response was lost.
type htmlMark struct {
	Style template.CSS
	Class string // effect, failure
	Title string
}

// HTML writes the report as one self-contained page: the summary, the
// per-rule sections, and for each finding shown a swimlane timeline of its
// intents' deliveries (client, proxy, server, worker and provider lanes;
// bars from start to end; effects and failures marked; ids on hover).
func (r *Report) HTML(w io.Writer) error {
	groups := groupByRule(r.Findings)
	day, oneDay := sameDay(groups)
	doc := htmlDoc{Summary: "idem diagnose: " + r.summaryLine(), Tiers: strings.Join(r.Summary.Tiers, ", "),
		Missing: strings.Join(r.Summary.MissingTiers, ", "), Findings: len(r.Findings), Verdict: r.verdictLine(), NotEvalHead: r.notEvaluatedHead(),
		Retries: r.retriesLine()}
	for _, g := range r.notEvaluatedGroups() {
		doc.NotEvaluated = append(doc.NotEvaluated, htmlNotEvaluated{Rule: strings.Join(g.Rules, ", "), Why: g.Why, Log: g.Log})
	}
	if oneDay {
		doc.Day = day
	}
	if doc.Tiers == "" {
		doc.Tiers = "none"
	}
	for _, in := range r.Inputs {
		hi := htmlInput{Path: Safe(in.Path), Format: Safe(in.Format), Tier: tierWord(in), Lines: in.Lines, Skipped: in.Skipped}
		if in.Err != nil {
			hi.Error = Safe(in.Err.Error())
		}
		doc.Inputs = append(doc.Inputs, hi)
	}
	for _, g := range groups {
		hg := htmlGroup{Rule: g.Rule.ID, Title: g.Rule.Title, Severity: g.Severity.String(), Symptom: g.Rule.Symptom,
			Hypothesis: g.Rule.Hypothesis, Check: g.Rule.Check, Action: g.Rule.Action, Count: len(g.Findings), Intents: g.Intents,
			First: groupTime(g.First, oneDay), Last: groupTime(g.Last, oneDay), Worst: Safe(subject(g.Worst))}
		n := shown(len(g.Findings), r.Limit)
		for _, f := range g.Findings[:n] {
			hg.Findings = append(hg.Findings, htmlFindingOf(f))
		}
		if rest := len(g.Findings) - n; rest > 0 {
			hg.More = fmt.Sprintf("… and %s more (use --limit 0 or -o json)", thousands(rest))
		}
		doc.Groups = append(doc.Groups, hg)
	}
	return htmlPage.Execute(w, doc)
}

func htmlFindingOf(f *diagnose.Finding) htmlFinding {
	hf := htmlFinding{Subject: Safe(subject(f)), Narrative: Safe(f.Narrative), Timeline: timelineOf(f.Intents),
		Confidence: Safe(f.Confidence.Summary()), Inferred: f.Confidence.Level == diagnose.Inferred}
	for _, rt := range f.Retries {
		hf.Retries = append(hf.Retries, Safe(retryText(rt)))
	}
	day, oneDay := obsDay(f.Evidence)
	if oneDay {
		hf.Day = day
	}
	for _, o := range f.Evidence {
		hf.Evidence = append(hf.Evidence, htmlEvidence{Time: rowTime(o, oneDay), Tier: o.Tier.String(), Status: evidenceStatus(o),
			RequestID: Safe(o.RequestID), Detail: strings.TrimSpace(observationExtras(unstyled, o)), Source: Safe(o.Source.String()),
			Lost: o.Outcome.Lost(), Effect: o.Effect})
	}
	return hf
}

// timelineOf lays the deliveries of intents out on one time axis, one lane
// per tier that saw any of them.
func timelineOf(intents []*model.Intent) *htmlTimeline {
	var deliveries []*model.Delivery
	omitted := 0
	for _, in := range intents {
		deliveries = append(deliveries, in.Deliveries...)
		omitted += in.Count() - len(in.Deliveries)
	}
	var t0, t1 time.Time
	for _, d := range deliveries {
		for _, o := range d.Observations {
			if o.Time.IsZero() {
				continue
			}
			if t0.IsZero() || o.Time.Before(t0) {
				t0 = o.Time
			}
			if e := endOf(o); e.After(t1) {
				t1 = e
			}
			if o.Time.After(t1) {
				t1 = o.Time
			}
		}
	}
	if t0.IsZero() {
		return nil
	}
	span := t1.Sub(t0)
	if span <= 0 {
		span = time.Millisecond
	}
	pos := func(t time.Time) float64 { return float64(t.Sub(t0)) / float64(span) * 100 }
	tl := &htmlTimeline{Start: formatTime(t0), End: formatTime(t1), Span: span.Round(time.Millisecond).String(), Omitted: omitted}
	for _, tier := range htmlLanes {
		lane := htmlLane{Tier: tier.String()}
		for n, d := range deliveries {
			var obs []*model.Observation
			for _, o := range d.Observations {
				if o.Tier == tier && !o.Time.IsZero() {
					obs = append(obs, o)
				}
			}
			if len(obs) == 0 {
				continue
			}
			start, end := obs[0].Time, endOf(obs[0])
			class, status, result := "ok", "", ""
			var lost *model.Observation
			var spans []string // the names of the spans drawn, in the bar's title
			for _, o := range obs {
				if model.IsSpan(o) && o.Message != "" && len(spans) < 8 {
					spans = append(spans, o.Message)
				}
				if o.Time.Before(start) {
					start = o.Time
				}
				if e := endOf(o); e.After(end) {
					end = e
				}
				if o.Time.After(end) {
					end = o.Time
				}
				switch {
				case o.Outcome.Lost():
					class, lost = "lost", o
				case o.Status >= 400 && class != "lost":
					class = "error"
				}
				if o.Status > 0 {
					status = fmt.Sprint(o.Status)
				}
				if o.ResultID != "" {
					result = o.ResultID
				}
				if o.Effect {
					lane.Marks = append(lane.Marks, htmlMark{Style: markStyle(pos(o.Time)), Class: "effect",
						Title: Safe(fmt.Sprintf("effect %s at %s (%s)", o.ResultID, formatTime(o.Time), o.Source))})
				}
			}
			left := pos(start)
			width := max(pos(end)-left, 1.5) // wide enough for its number
			left = min(left, 100-width)
			title := fmt.Sprintf("delivery %d: request %s, key %s", n+1, d.RequestID, d.Key)
			if status != "" {
				title += ", status " + status
			}
			if lost != nil {
				title += ", " + lostLabel(lost)
			}
			if result != "" {
				title += ", result " + result
			}
			if len(spans) > 0 {
				title += ", spans " + strings.Join(spans, ", ")
			}
			title += fmt.Sprintf("; %s to %s (%s)", formatTime(start), formatTime(end), obs[0].Source)
			lane.Bars = append(lane.Bars, htmlBar{Style: template.CSS(fmt.Sprintf("left:%.2f%%;width:%.2f%%", left, width)),
				Class: class, Label: fmt.Sprint(n + 1), Title: Safe(title)})
			if lost != nil {
				lane.Marks = append(lane.Marks, htmlMark{Style: markStyle(pos(endOf(lost))), Class: "failure",
					Title: Safe(fmt.Sprintf("%s: %s at %s (%s)", tier, lostLabel(lost), formatTime(endOf(lost)), lost.Source))})
			}
		}
		if len(lane.Bars) > 0 {
			tl.Lanes = append(tl.Lanes, lane)
		}
	}
	return tl
}

func markStyle(pct float64) template.CSS {
	return template.CSS(fmt.Sprintf("left:%.2f%%", min(max(pct, 0), 100)))
}
