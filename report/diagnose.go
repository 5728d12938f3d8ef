package report

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"sort"
	"strings"
	"time"

	"github.com/idem-cli/idem/diagnose"
	"github.com/idem-cli/idem/model"
	"github.com/idem-cli/idem/redact"
)

// Report is a diagnosis ready to render.
type Report struct {
	Inputs   []*model.Input
	Summary  diagnose.Summary
	Findings []*diagnose.Finding
	// Compact writes JSON on one line (for pipes) instead of indented.
	Compact bool
	// Limit is how many findings of each rule text, Markdown and HTML show
	// in full (0: all; DefaultLimit is what idem diagnose uses). JSON
	// always has every finding.
	Limit int
}

// ReportJSON is the idem.report/v1 document (docs/report-json.md).
type ReportJSON struct {
	Schema   string           `json:"schema"`
	Inputs   []InputJSON      `json:"inputs"`
	Summary  diagnose.Summary `json:"summary"`
	Findings []FindingJSON    `json:"findings"`
}

// InputJSON summarises one input.
type InputJSON struct {
	Path        string         `json:"path"`
	Format      string         `json:"format"`
	Tier        string         `json:"tier"`
	Compression string         `json:"compression,omitempty"`
	Lines       int            `json:"lines"`
	Skipped     int            `json:"skipped"`
	SkipSamples []SkipJSON     `json:"skip_samples"`
	Formats     map[string]int `json:"formats"`
	Error       string         `json:"error,omitempty"`
}

// SkipJSON is a skipped line.
type SkipJSON struct {
	Source string `json:"source"`
	Reason string `json:"reason"`
}

// FindingJSON is one finding.
type FindingJSON struct {
	Rule       string         `json:"rule"`
	Severity   string         `json:"severity"`
	Intent     string         `json:"intent"`
	Keys       []string       `json:"keys"`
	Title      string         `json:"title"`
	Symptom    string         `json:"symptom"`
	Hypothesis string         `json:"hypothesis"`
	Check      string         `json:"check"`
	Action     string         `json:"action"`
	Narrative  string         `json:"narrative"`
	Input      string         `json:"input,omitempty"`
	Counts     map[string]int `json:"counts,omitempty"`
	Evidence   []EvidenceJSON `json:"evidence"`
}

// EvidenceJSON is one observation behind a finding.
type EvidenceJSON struct {
	Source    string `json:"source"`
	Tier      string `json:"tier"`
	RequestID string `json:"request_id"`
	Time      string `json:"time"`
	Status    int    `json:"status"`
	Outcome   string `json:"outcome"`
	Decision  string `json:"decision,omitempty"`
	ResultID  string `json:"result_id,omitempty"`
	Effect    bool   `json:"effect,omitempty"`
	Detail    string `json:"detail,omitempty"`
}

func inputsJSON(inputs []*model.Input) []InputJSON {
	out := []InputJSON{}
	for _, in := range inputs {
		j := InputJSON{Path: redact.String(in.Path), Format: in.Format, Tier: in.Tier, Compression: in.Compression,
			Lines: in.Lines, Skipped: in.Skipped, SkipSamples: []SkipJSON{}, Formats: in.Formats}
		for _, s := range in.SkipSamples {
			j.SkipSamples = append(j.SkipSamples, SkipJSON{Source: redact.String(s.Source.String()), Reason: s.Reason})
		}
		if in.Err != nil {
			j.Error = redact.String(in.Err.Error())
		}
		if j.Formats == nil {
			j.Formats = map[string]int{}
		}
		out = append(out, j)
	}
	return out
}

func evidenceJSON(o *model.Observation) EvidenceJSON {
	return EvidenceJSON{Source: redact.String(o.Source.String()), Tier: o.Tier.String(), RequestID: redact.String(o.RequestID),
		Time: FormatTime(o.Time), Status: o.Status, Outcome: o.Outcome.String(), Decision: redact.String(o.Decision),
		ResultID: redact.String(o.ResultID), Effect: o.Effect, Detail: redact.String(o.Detail)}
}

// findingJSON is what the report says of f.
func findingJSON(f *diagnose.Finding) FindingJSON {
	fj := FindingJSON{Rule: f.Rule.ID, Severity: f.Severity.String(), Intent: redact.String(intentID(f)), Keys: redactAll(f.Keys),
		Title: f.Rule.Title, Symptom: f.Rule.Symptom, Hypothesis: f.Rule.Hypothesis, Check: f.Rule.Check, Action: f.Rule.Action,
		Narrative: redact.String(f.Narrative), Input: redact.String(f.Input), Counts: f.Counts, Evidence: make([]EvidenceJSON, 0, len(f.Evidence))}
	for _, o := range f.Evidence {
		fj.Evidence = append(fj.Evidence, evidenceJSON(o))
	}
	return fj
}

func intentID(f *diagnose.Finding) string {
	if len(f.Intents) > 0 {
		return f.Intents[0].ID
	}
	return ""
}

func redactAll(list []string) []string {
	out := make([]string, 0, len(list))
	for _, s := range list {
		out = append(out, redact.String(s))
	}
	return out
}

// JSON writes the report as idem.report/v1. Findings are written one at a
// time, so a report of many findings is never held whole in memory; the
// bytes are those of encoding a ReportJSON (two-space indentation, or none
// when Compact).
func (r *Report) JSON(w io.Writer) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	nl, in1, in2, sep := "\n", "  ", "    ", ": "
	if r.Compact {
		nl, in1, in2, sep = "", "", "", ":"
	}
	head := ReportJSON{Schema: "idem.report/v1", Inputs: inputsJSON(r.Inputs), Summary: r.Summary}
	bw.WriteString("{" + nl)
	for _, part := range []struct {
		name string
		v    any
	}{{"schema", head.Schema}, {"inputs", head.Inputs}, {"summary", head.Summary}} {
		var b bytes.Buffer
		if err := r.encodeTo(&b, part.v, in1); err != nil {
			return err
		}
		fmt.Fprintf(bw, "%s%q%s%s,%s", in1, part.name, sep, b.Bytes(), nl)
	}
	if len(r.Findings) == 0 {
		bw.WriteString(in1 + `"findings"` + sep + "[]" + nl + "}\n")
		return bw.Flush()
	}
	bw.WriteString(in1 + `"findings"` + sep + "[" + nl)
	var fw *findingWriter
	if r.Compact {
		fw = newFindingWriter(r.Findings)
	}
	err := inOrder(len(r.Findings), 256, func(i int, out *bytes.Buffer) error {
		out.WriteString(in2)
		if r.Compact {
			out.Write(fw.append(out.AvailableBuffer(), r.Findings[i]))
		} else if err := r.encodeTo(out, findingJSON(r.Findings[i]), in2); err != nil {
			return err
		}
		if i < len(r.Findings)-1 {
			out.WriteByte(',')
		}
		out.WriteString(nl)
		return nil
	}, func(b []byte) { bw.Write(b) })
	if err != nil {
		return err
	}
	bw.WriteString(in1 + "]" + nl + "}\n")
	return bw.Flush()
}

// inOrder encodes items 0..n-1 in chunks of size on every core and hands
// the chunks to write in order, holding only a few chunks at a time;
// write must not keep the bytes it is given, which are reused.
func inOrder(n, size int, encode func(i int, out *bytes.Buffer) error, write func([]byte)) error {
	type chunk struct {
		b   bytes.Buffer
		err error
	}
	count := (n + size - 1) / size
	results := make([]chan *chunk, count)
	for k := range results {
		results[k] = make(chan *chunk, 1)
	}
	workers := runtime.GOMAXPROCS(0)
	window := make(chan struct{}, 2*workers)
	// Chunks written are handed back to be filled again: a big report
	// would otherwise make, and clear, a fresh buffer for every chunk.
	free := make(chan *chunk, 2*workers+workers)
	jobs := make(chan int)
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		defer close(jobs)
		for k := 0; k < count; k++ {
			select {
			case window <- struct{}{}:
			case <-stop:
				return
			}
			jobs <- k
		}
	}()
	for w := 0; w < workers; w++ {
		go func() {
			for k := range jobs {
				var c *chunk
				select {
				case c = <-free:
					c.b.Reset()
				default:
					c = &chunk{}
					c.b.Grow(size * 1536) // a finding is about a kilobyte or so
				}
				for i := k * size; i < min(n, (k+1)*size) && c.err == nil; i++ {
					c.err = encode(i, &c.b)
				}
				results[k] <- c
			}
		}()
	}
	for k := 0; k < count; k++ {
		c := <-results[k]
		<-window
		if c.err != nil {
			return c.err
		}
		write(c.b.Bytes())
		select {
		case free <- c:
		default:
		}
	}
	return nil
}

// encodeTo encodes v onto out as encoding/json does without HTML escaping,
// made terminal-safe: compact, or indented two spaces nested at prefix.
func (r *Report) encodeTo(out *bytes.Buffer, v any, prefix string) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if !r.Compact {
		enc.SetIndent(prefix, "  ")
	}
	if err := enc.Encode(v); err != nil {
		return err
	}
	out.Write(jsonSafe(bytes.TrimSuffix(b.Bytes(), []byte("\n")))) // without Encode's newline
	return nil
}

// summaryLine is the one-line count of what was read and found.
func (r *Report) summaryLine() string {
	s := r.Summary
	line := fmt.Sprintf("%s, %s (%d skipped, %d ignored), %s (%d unkeyed), %s (%d with findings, %d without); %s",
		plural(s.Inputs, "input", "inputs"), plural(s.Lines, "line", "lines"), s.Skipped, s.Ignored,
		plural(s.Deliveries, "delivery", "deliveries"), s.Unkeyed, plural(s.Intents, "intent", "intents"), s.WithFindings, s.Healthy,
		findingCounts(s))
	if s.OwnTraffic > 0 {
		line += fmt.Sprintf("; %s of idem replay's own traffic set apart", plural(s.OwnTraffic, "delivery", "deliveries"))
	}
	return line
}

// idlessNote says how many request lines joined nothing for want of a
// request id and a key, and where the fix is; "" when none.
func (r *Report) idlessNote() string {
	var parts []string
	for _, t := range []string{"client", "proxy", "server"} {
		if n := r.Summary.Idless[t]; n > 0 {
			parts = append(parts, plural(n, t+" line", t+" lines"))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return "no request id and no key: " + strings.Join(parts, ", ") + " joined nothing; make that tier log them (the format's setup in 'idem help formats' and docs/formats.md)"
}

// findingCounts says how many findings there are, by severity.
func findingCounts(s diagnose.Summary) string {
	if s.Findings == 0 {
		return "no findings"
	}
	var parts []string
	for _, c := range []struct {
		n    int
		name string
	}{{s.Critical, "critical"}, {s.Warning, "warning"}, {s.Info, "info"}} {
		if c.n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", c.n, c.name))
		}
	}
	return plural(s.Findings, "finding", "findings") + ": " + strings.Join(parts, ", ")
}

func plural(n int, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, one)
	}
	return fmt.Sprintf("%d %s", n, many)
}

// Text writes the report for a terminal (styled) or a pipe (plain).
func (r *Report) Text(w io.Writer, st Styles, width int) {
	if width < 40 {
		width = 40
	}
	fmt.Fprintf(w, "%s %s\n", st.Title.Render("idem diagnose:"), r.summaryLine())
	seen := strings.Join(r.Summary.Tiers, ", ")
	if seen == "" {
		seen = "none"
	}
	fmt.Fprintf(w, "tiers seen: %s", seen)
	if len(r.Summary.MissingTiers) > 0 {
		fmt.Fprintf(w, "; %s", st.Warning.Render("missing: "+strings.Join(r.Summary.MissingTiers, ", ")))
	}
	fmt.Fprintln(w)
	if note := r.idlessNote(); note != "" {
		fmt.Fprintf(w, "%s\n", st.Warning.Render(note))
	}
	r.skipsText(w, st)
	if len(r.Findings) == 0 {
		fmt.Fprintf(w, "\n%s\n", st.OK.Render("No findings."))
		return
	}
	r.findingsText(w, st, width)
}

func (r *Report) skipsText(w io.Writer, st Styles) {
	for _, in := range r.Inputs {
		if len(in.Formats) > 1 {
			var parts []string
			for f, n := range in.Formats {
				parts = append(parts, fmt.Sprintf("%s %d", f, n))
			}
			sort.Strings(parts)
			fmt.Fprintf(w, "%s %s: %s\n", st.Faint.Render("formats:"), Safe(in.Path), strings.Join(parts, ", "))
		}
		if in.Err != nil {
			fmt.Fprintf(w, "%s %s: %s\n", st.Critical.Render("input cut short:"), Safe(in.Path), Safe(in.Err.Error()))
		}
		if in.Skipped == 0 {
			continue
		}
		fmt.Fprintf(w, "%s %s: %s skipped\n", st.Warning.Render("skipped lines:"), Safe(in.Path), plural(in.Skipped, "line", "lines"))
		for _, s := range in.SkipSamples {
			fmt.Fprintf(w, "  %s  %s\n", st.Faint.Render(Safe(s.Source.String())), s.Reason)
		}
		if in.Skipped > len(in.SkipSamples) {
			fmt.Fprintf(w, "  %s\n", st.Faint.Render(fmt.Sprintf("… and %d more", in.Skipped-len(in.SkipSamples))))
		}
	}
}

func sevStyle(st Styles, s diagnose.Severity) interface{ Render(...string) string } {
	switch s {
	case diagnose.Critical:
		return st.Critical
	case diagnose.Warning:
		return st.Warning
	}
	return st.Info
}

func evidenceStatus(o *model.Observation) string {
	switch {
	case o.Outcome.Lost():
		return o.Outcome.String()
	case o.Status > 0:
		return fmt.Sprint(o.Status)
	}
	return "-"
}

func shorten(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n-1] + "…"
}

// Markdown writes the report to paste into an incident channel or ticket.
// Every piece of log content goes through MD, so no log line can add rows,
// links or markup.
func (r *Report) Markdown(w io.Writer) {
	s := r.Summary
	fmt.Fprintf(w, "## idem diagnosis\n\n")
	fmt.Fprintf(w, "| inputs | lines | skipped | ignored | deliveries | unkeyed | intents | with findings | without | critical | warning | info |\n")
	fmt.Fprintf(w, "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	fmt.Fprintf(w, "| %d | %d | %d | %d | %d | %d | %d | %d | %d | %d | %d | %d |\n\n", s.Inputs, s.Lines, s.Skipped, s.Ignored, s.Deliveries,
		s.Unkeyed, s.Intents, s.WithFindings, s.Healthy, s.Critical, s.Warning, s.Info)
	if s.OwnTraffic > 0 {
		fmt.Fprintf(w, "%s of idem replay's own traffic (request ids idem-replay-…, probe keys) were set apart, not diagnosed.\n\n",
			plural(s.OwnTraffic, "delivery", "deliveries"))
	}
	fmt.Fprintf(w, "Tiers seen: %s.", strings.Join(s.Tiers, ", "))
	if len(s.MissingTiers) > 0 {
		fmt.Fprintf(w, " Missing: %s, so what happened there could not be seen.", strings.Join(s.MissingTiers, ", "))
	}
	fmt.Fprintf(w, "\n\n")
	if note := r.idlessNote(); note != "" {
		fmt.Fprintf(w, "**%s**\n\n", MD(note))
	}
	fmt.Fprintf(w, "| input | format | tier | lines | skipped |\n|---|---|---|---:|---:|\n")
	for _, in := range r.Inputs {
		fmt.Fprintf(w, "| %s | %s | %s | %d | %d |\n", MD(in.Path), MD(in.Format), in.Tier, in.Lines, in.Skipped)
	}
	for _, in := range r.Inputs {
		for _, sk := range in.SkipSamples {
			fmt.Fprintf(w, "\n- skipped %s: %s", MD(sk.Source.String()), MD(sk.Reason))
		}
	}
	fmt.Fprintln(w)
	if len(r.Findings) == 0 {
		fmt.Fprintf(w, "\nNo findings.\n")
		return
	}
	r.findingsMarkdown(w)
}

// SequenceDiagram draws the deliveries of intents as a Mermaid
// sequenceDiagram: client → proxy → server → provider, with notes where a
// response went missing, a conflict or an in-progress answer came back.
func SequenceDiagram(intents []*model.Intent) string {
	var b strings.Builder
	b.WriteString("sequenceDiagram\n")
	used := map[model.Tier]bool{}
	var deliveries []*model.Delivery
	for _, in := range intents {
		for _, d := range in.Deliveries {
			deliveries = append(deliveries, d)
			for _, o := range d.Observations {
				used[o.Tier] = true
			}
		}
	}
	sort.SliceStable(deliveries, func(i, j int) bool { return deliveries[i].Start().Before(deliveries[j].Start()) })
	// A diagram of hundreds of deliveries helps nobody: draw the first and
	// last few and say how many were left out.
	const drawn = 12
	omitted := 0
	for _, in := range intents {
		omitted += in.Count() - len(in.Deliveries)
	}
	if len(deliveries) > drawn {
		omitted += len(deliveries) - drawn
		deliveries = append(deliveries[:drawn/2:drawn/2], deliveries[len(deliveries)-drawn/2:]...)
	}
	names := map[model.Tier]string{model.TierClient: "C", model.TierProxy: "P", model.TierServer: "S", model.TierWorker: "W", model.TierProvider: "X"}
	var tiers []model.Tier
	for t := model.TierClient; t <= model.TierProvider; t++ {
		if used[t] {
			tiers = append(tiers, t)
			fmt.Fprintf(&b, "    participant %s as %s\n", names[t], t)
		}
	}
	if len(tiers) == 0 {
		return b.String()
	}
	for n, d := range deliveries {
		if omitted > 0 && n == len(deliveries)/2 {
			fmt.Fprintf(&b, "    Note over %s: %d more deliveries not drawn\n", names[tiers[0]], omitted)
		}
		for _, e := range deliveryEvents(d, names, tiers) {
			b.WriteString(e.line)
		}
	}
	return b.String()
}

// event is one line of a diagram and when it happened.
type event struct {
	at   time.Time
	line string
}

// deliveryEvents are the messages and notes of one delivery in the order
// they happened: the request down the tiers, then each response back, a
// lost one marked where it was lost, and the effects, ordered by time
// across participants (a proxy that saw its client leave before the server
// answered is drawn so). Where the tiers' clocks contradict the path (a
// tier saw the request before the tier that sent it), they are skewed: the
// events keep path order and a note says so.
func deliveryEvents(d *model.Delivery, names map[model.Tier]string, tiers []model.Tier) []event {
	present := map[model.Tier]*model.Observation{}
	var path []model.Tier
	for _, o := range d.Observations {
		if _, ok := present[o.Tier]; !ok {
			present[o.Tier] = o
			path = append(path, o.Tier)
		}
	}
	var events []event
	add := func(at time.Time, format string, a ...any) {
		events = append(events, event{at, fmt.Sprintf("    "+format+"\n", a...)})
	}
	label := Mermaid(fmt.Sprintf("%s %s key %s req %s", d.Method(), d.Route(), shorten(d.Key, 24), shorten(d.RequestID, 13)))
	if len(path) == 1 {
		add(present[path[0]].Time, "Note over %s: %s", names[path[0]], label)
	}
	skew := ""
	for i := 0; i+1 < len(path); i++ {
		from, to := present[path[i]], present[path[i+1]]
		add(from.Time, "%s->>%s: %s", names[path[i]], names[path[i+1]], label)
		if !from.Time.IsZero() && !to.Time.IsZero() && to.Time.Before(from.Time) && skew == "" {
			skew = fmt.Sprintf("%s logged it %s before %s sent it", path[i+1], from.Time.Sub(to.Time).Round(time.Millisecond), path[i])
		}
	}
	// Responses travel back; where one was lost, a note says so.
	var witnessed *model.Observation
	for i := len(path) - 1; i > 0; i-- {
		inner, outer := present[path[i]], present[path[i-1]]
		msg := Mermaid(responseLabel(d, inner))
		if witness := lostLeg(inner, outer); witness != nil {
			at := endOf(witness)
			add(at, "%s--x%s: %s", names[path[i]], names[path[i-1]], msg)
			add(at, "Note over %s: %s", names[witness.Tier], Mermaid(lostLabel(witness)))
			witnessed = witness
			break
		}
		add(responseTime(d, inner), "%s-->>%s: %s", names[path[i]], names[path[i-1]], msg)
	}
	// The first tier's caller giving up is a moment of its own, before or
	// after the effect, whoever else witnessed the loss.
	if c := present[path[0]]; c.Outcome.Lost() && c != witnessed {
		add(endOf(c), "Note over %s: %s", names[c.Tier], Mermaid(lostLabel(c)))
	}
	for _, o := range d.Observations {
		if o.Effect {
			add(o.Time, "Note over %s: effect %s", names[o.Tier], Mermaid(o.ResultID))
		}
	}
	if skew != "" {
		over := names[tiers[0]]
		if len(tiers) > 1 {
			over += "," + names[tiers[len(tiers)-1]]
		}
		return append([]event{{line: fmt.Sprintf("    Note over %s: clocks disagree (%s), drawn in path order\n", over, Mermaid(skew))}}, events...)
	}
	// An event without a time keeps its place after the one before it.
	for i := range events {
		if events[i].at.IsZero() && i > 0 {
			events[i].at = events[i-1].at
		}
	}
	sort.SliceStable(events, func(i, j int) bool { return events[i].at.Before(events[j].at) })
	return events
}

// endOf is when a tier was done with the request. A client's or a proxy's
// line is one per request, stamped with its start and carrying its
// duration; a server's or worker's lines are events stamped when they
// happened.
func endOf(o *model.Observation) time.Time {
	if o.Tier <= model.TierProxy {
		return o.End()
	}
	return o.Time
}

// responseTime is when tier o answered: the last line of that tier with a
// status, else its end.
func responseTime(d *model.Delivery, o *model.Observation) time.Time {
	at := endOf(o)
	for _, x := range d.Observations {
		if x.Tier == o.Tier && x.Status > 0 {
			at = endOf(x)
		}
	}
	return at
}

func responseLabel(d *model.Delivery, o *model.Observation) string {
	var parts []string
	status := 0
	for _, x := range d.Observations {
		if x.Tier == o.Tier && x.Status > 0 {
			status = x.Status
		}
	}
	if status > 0 {
		parts = append(parts, fmt.Sprint(status))
	} else {
		parts = append(parts, "no response")
	}
	if o.Tier < model.TierServer {
		return strings.Join(parts, " ")
	}
	if dec, _ := d.Decision(); dec != "" {
		parts = append(parts, dec)
	}
	if r := d.ResultID(); r != "" {
		parts = append(parts, r)
	}
	return strings.Join(parts, " ")
}

func lostLabel(o *model.Observation) string {
	s := o.Outcome.String()
	if o.Duration > 0 {
		s += fmt.Sprintf(" after %s", o.Duration.Round(1e6))
	}
	if o.Detail != "" {
		s += " " + o.Detail
	}
	return s
}

// lostLeg says whether the response from inner to outer went missing, and
// returns the observation that witnessed it: a client that timed out or was
// reset, a proxy that saw its client leave (that leg is the proxy's
// downstream), or a proxy that gave up on its upstream.
func lostLeg(inner, outer *model.Observation) *model.Observation {
	switch {
	case inner.Outcome == model.OutcomeClientClosed:
		return inner
	case outer.Tier == model.TierClient && outer.Outcome.Lost():
		return outer
	case outer.Outcome == model.OutcomeUpstreamTimeout || outer.Outcome == model.OutcomeUpstreamReset:
		return outer
	}
	return nil
}

// cellOutcome shows "-" where a line says nothing of a response.
func cellOutcome(o *model.Observation) string {
	if o.Outcome == model.OutcomeUnknown {
		return "-"
	}
	return o.Outcome.String()
}
