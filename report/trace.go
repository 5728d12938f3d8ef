package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/idem-cli/idem/diagnose"
	"github.com/idem-cli/idem/model"
	"github.com/idem-cli/idem/redact"
)

// timeLayout is how times are written in every output: RFC 3339 in UTC
// with milliseconds, sortable and unambiguous when pasted elsewhere.
const timeLayout = "2006-01-02T15:04:05.000Z07:00"

// formatTime writes t in TimeLayout, or "-" when unknown.
func formatTime(t time.Time) string {
	var b [32]byte
	return string(appendTime(b[:0], t))
}

// appendTime appends FormatTime(t). Years 0 to 9999 are written by hand,
// a report has one time per piece of evidence; time.Format writes others.
func appendTime(b []byte, t time.Time) []byte {
	if t.IsZero() {
		return append(b, '-')
	}
	t = t.UTC()
	year, month, day := t.Date()
	if year < 0 || year > 9999 {
		return t.AppendFormat(b, timeLayout)
	}
	hour, minute, sec := t.Clock()
	ms := t.Nanosecond() / 1e6 // truncated, as .000 does
	return append(b, byte('0'+year/1000), byte('0'+year/100%10), byte('0'+year/10%10), byte('0'+year%10), '-',
		byte('0'+int(month)/10), byte('0'+int(month)%10), '-', byte('0'+day/10), byte('0'+day%10), 'T',
		byte('0'+hour/10), byte('0'+hour%10), ':', byte('0'+minute/10), byte('0'+minute%10), ':',
		byte('0'+sec/10), byte('0'+sec%10), '.', byte('0'+ms/100), byte('0'+ms/10%10), byte('0'+ms%10), 'Z')
}

// traceJSON is the idem.trace/v1 document.
type traceJSON struct {
	Schema     string         `json:"schema"`
	Key        string         `json:"key"`
	Deliveries []deliveryJSON `json:"deliveries"`
	Effects    []effectJSON   `json:"effects"`
	Related    []relatedJSON  `json:"related"`
	Inputs     []*model.Input `json:"inputs"`
}

// deliveryJSON is one delivery of a traced intent.
type deliveryJSON struct {
	RequestID    string            `json:"request_id"`
	Synthetic    bool              `json:"synthetic,omitempty"`
	Scope        string            `json:"scope,omitempty"`
	Observations []observationJSON `json:"observations"`
	// Retries says who sent this delivery again (a later delivery of the
	// intent) or twice (a proxy's own retry).
	Retries []jsonRetry `json:"retries,omitempty"`
}

// observationJSON is one tier's view of a delivery.
type observationJSON struct {
	Tier        string  `json:"tier"`
	Format      string  `json:"format"`
	Time        string  `json:"time"`
	DurationMS  float64 `json:"duration_ms"`
	Method      string  `json:"method,omitempty"`
	Route       string  `json:"route,omitempty"`
	Status      int     `json:"status"`
	Outcome     string  `json:"outcome"`
	Detail      string  `json:"detail,omitempty"`
	Decision    string  `json:"decision,omitempty"`
	State       string  `json:"state,omitempty"`
	Fingerprint string  `json:"fingerprint,omitempty"`
	ResultID    string  `json:"result_id,omitempty"`
	Replayed    bool    `json:"replayed,omitempty"`
	Effect      bool    `json:"effect,omitempty"`
	Attempt     int     `json:"attempt,omitempty"`
	Message     string  `json:"message,omitempty"`
	Labels      string  `json:"labels,omitempty"`
	Source      string  `json:"source"`
}

// effectJSON is one business effect.
type effectJSON struct {
	ResultID  string `json:"result_id"`
	RequestID string `json:"request_id"`
	Tier      string `json:"tier"`
	Time      string `json:"time"`
	Source    string `json:"source"`
}

// relatedJSON is an intent under another key tied to the one traced, as
// idem diagnose ties them (diagnose.Result.Related).
type relatedJSON struct {
	Key        string   `json:"key"`
	Deliveries int      `json:"deliveries"`
	Effects    int      `json:"effects"`
	Start      string   `json:"start"`
	By         []string `json:"by"`
}

// observationToJSON converts an observation for JSON output, redacted.
func observationToJSON(o *model.Observation) observationJSON {
	return observationJSON{
		Tier: o.Tier.String(), Format: o.Format, Time: formatTime(o.Time),
		DurationMS: float64(o.Duration.Microseconds()) / 1000,
		Method:     redact.String(o.Method), Route: redact.String(o.Route), Status: o.Status,
		Outcome: o.Outcome.String(), Detail: redact.String(o.Detail), Decision: redact.String(o.Decision),
		State: redact.String(o.State), Fingerprint: redact.String(o.Fingerprint), ResultID: redact.String(o.ResultID),
		Replayed: o.Replayed, Effect: o.Effect, Attempt: o.Attempt, Message: redact.String(o.Message),
		Labels: redact.String(o.Labels), Source: o.Source.String(),
	}
}

// NewTraceJSON builds the trace document for key from its intents.
func NewTraceJSON(set *model.Set, key string, intents []*model.Intent) traceJSON {
	doc := traceJSON{Schema: "idem.trace/v1", Key: redact.String(key), Deliveries: []deliveryJSON{},
		Effects: []effectJSON{}, Related: []relatedJSON{}, Inputs: set.Inputs}
	seen := map[string]bool{}
	for _, in := range intents {
		seen[in.ID] = true
	}
	// What ties other keys to this one is what the diagnosis finds.
	var diag *diagnose.Result
	if len(intents) > 0 {
		diag = diagnose.Run(set, diagnose.DefaultOptions())
	}
	for _, in := range intents {
		// The effects as the diagnosis counts them, so trace and diagnose
		// agree (one per result id; a server's 2xx where no line logs one).
		effectOf := map[*model.Observation]bool{}
		for _, o := range diagnose.Effects(set, in) {
			effectOf[o] = true
		}
		// Who sent each retry, as the diagnosis attributes it; by request
		// id and first line, as the diagnosis may read a copy of the
		// intent, and two trips may share an id (two processes' counters).
		retries := map[string][]diagnose.Retry{}
		for _, rt := range diag.RetriesOf(in) {
			retries[tripKey(rt.Delivery)] = append(retries[tripKey(rt.Delivery)], rt)
		}
		for _, d := range in.Deliveries {
			dj := deliveryJSON{RequestID: redact.String(d.RequestID), Synthetic: d.Synthetic, Scope: redact.String(in.Scope)}
			for _, rt := range retries[tripKey(d)] {
				dj.Retries = append(dj.Retries, retryJSON(rt))
			}
			for _, o := range d.Observations {
				dj.Observations = append(dj.Observations, observationToJSON(o))
				if effectOf[o] {
					doc.Effects = append(doc.Effects, effectJSON{ResultID: redact.String(o.ResultID), RequestID: redact.String(d.RequestID),
						Tier: o.Tier.String(), Time: formatTime(o.Time), Source: o.Source.String()})
				}
			}
			doc.Deliveries = append(doc.Deliveries, dj)
		}
		for _, rel := range diag.Related(in) {
			r := rel.Intent
			if seen[r.ID] {
				continue
			}
			seen[r.ID] = true
			doc.Related = append(doc.Related, relatedJSON{Key: redact.String(r.Key), Deliveries: len(r.Deliveries),
				Effects: len(diagnose.Effects(set, r)), Start: formatTime(r.Start()), By: rel.By})
		}
	}
	return doc
}

// WriteJSON writes v as JSON without HTML escaping and with terminal
// controls escaped (jsonSafe): indented for a person at a terminal,
// compact (one line) for a pipe.
func WriteJSON(w io.Writer, v any, indent bool) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if indent {
		enc.SetIndent("", "  ")
	}
	if err := enc.Encode(v); err != nil {
		return err
	}
	_, err := w.Write(jsonSafe(b.Bytes()))
	return err
}

// TraceText writes the timeline of the intents for key, laid out for
// width columns.
func TraceText(w io.Writer, st styles, set *model.Set, key string, intents []*model.Intent, width int) {
	width = max(width, 40)
	doc := NewTraceJSON(set, key, intents)
	delivered := doc.Deliveries // the deliveries of each intent in turn
	for _, in := range intents {
		effects := diagnose.Effects(set, in)
		fmt.Fprintf(w, "%s %s\n", st.Title.Render("intent"), st.Code.Render(Safe(in.Key)))
		if in.Scope != "" {
			fmt.Fprintf(w, "  scope      %s\n", Safe(in.Scope))
		}
		fmt.Fprintf(w, "  started    %s\n", formatTime(in.Start()))
		total := in.Count()
		fmt.Fprintf(w, "  deliveries %d, effects %d\n", total, len(effects))
		if total > len(in.Deliveries) {
			fmt.Fprintf(w, "  %s\n", st.Faint.Render(fmt.Sprintf("(the first and last %d are shown; %d in between are not)", len(in.Deliveries)/2, total-len(in.Deliveries))))
		}
		// Each delivery's lines in the order of their events: a server's
		// answer at its end, after the lines it wrote meanwhile.
		var all []*model.Observation
		for _, d := range in.Deliveries {
			n := len(all)
			all = append(all, d.Observations...)
			slices.SortStableFunc(all[n:], diagnose.HappenedFirst)
		}
		rows := newTraceRows(st, all, 4, width) // one alignment for the whole intent
		for i, d := range in.Deliveries {
			label, rid, what := fmt.Sprintf("delivery %d", i+1), Safe(d.RequestID), Safe(d.Method())+" "+Safe(d.Route())
			if textWidth(label+rid+what)+6 <= width {
				fmt.Fprintf(w, "\n  %s %s  %s\n", st.Label.Render(label), rid, what)
			} else {
				fmt.Fprintf(w, "\n  %s %s\n    %s\n", st.Label.Render(label), rid, what)
			}
			if i < len(delivered) {
				for _, rt := range delivered[i].Retries {
					for j, line := range wrapWords(Safe(retryJSONText(rt)), max(20, width-6)) {
						lead := "  "
						if j == 0 {
							lead = "↻ "
						}
						fmt.Fprintf(w, "    %s%s\n", st.Faint.Render(lead), line)
					}
				}
			}
			rows.write(w, st, len(d.Observations))
		}
		delivered = delivered[len(in.Deliveries):]
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "%s\n", st.Title.Render("effects"))
	if len(doc.Effects) == 0 {
		fmt.Fprintf(w, "  %s\n", st.Faint.Render("none logged"))
	}
	effects := newGrid("time", "result", "by request", "tier", "source")
	for _, e := range doc.Effects {
		effects.add(plain(e.Time), cell{Safe(e.ResultID), st.Code.Render}, plain(Safe(e.RequestID)), plain(e.Tier),
			cell{Safe(e.Source), st.Faint.Render})
	}
	effects.write(w, st, 2, width)
	fmt.Fprintf(w, "%s\n", st.Title.Render("related intents (tied by a finding or the same payload)"))
	if len(doc.Related) == 0 {
		fmt.Fprintf(w, "  %s\n", st.Faint.Render("none"))
	}
	for _, r := range doc.Related {
		fmt.Fprintf(w, "  %s  %s  %s, %s  %s\n", r.Start, Safe(r.Key), Count(r.Deliveries, "delivery", "deliveries"), Count(r.Effects, "effect", "effects"),
			st.Faint.Render("("+strings.Join(r.By, ", ")+")"))
	}
}

// traceRows lays out an intent's observations aligned in columns (time,
// tier, status, what the line says, source): a table where it fits, else
// with what the line says and its source on the next lines. A line that
// says nothing the model reads shows its message. An export's labels
// follow their line.
type traceRows struct {
	g, head       *grid
	obs           []*model.Observation
	widths        []int
	fits          bool
	indent, width int
	next          int
}

func newTraceRows(st styles, obs []*model.Observation, indent, width int) *traceRows {
	g := newGrid("time", "tier", "status", "detail", "source")
	g.flex = 3
	head := newGrid(g.names[:3]...)
	_, oneDay := obsDay(obs)
	for _, o := range obs {
		detail := strings.TrimSpace(observationExtras(st, o))
		if detail == "" && o.Message != "" {
			detail = Safe(shorten(o.Message, 200))
		}
		g.add(plain(rowTime(o, oneDay)), plain(o.Tier.String()), cell{evidenceStatus(o), statusStyle(st, o)},
			plain(detail), cell{Safe(o.Source.String()), st.Faint.Render})
		head.add(g.rows[len(g.rows)-1][:3]...)
	}
	r := &traceRows{g: g, head: head, obs: obs, indent: indent, width: width}
	r.widths, r.fits = g.widths(indent, width)
	if !r.fits {
		r.widths, _ = head.widths(indent, width)
	}
	return r
}

// write writes the next n rows.
func (r *traceRows) write(w io.Writer, st styles, n int) {
	pad := strings.Repeat(" ", r.indent)
	for i := r.next; i < min(r.next+n, len(r.obs)); i++ {
		if r.fits {
			(&grid{names: r.g.names, right: r.g.right, flex: r.g.flex, rows: r.g.rows[i : i+1]}).writeWidths(w, st, r.indent, r.widths)
		} else {
			(&grid{names: r.head.names, right: r.head.right, flex: -1, rows: r.head.rows[i : i+1]}).writeWidths(w, st, r.indent, r.widths)
			room := r.width - r.indent - 2
			lines := wrapWords(r.g.rows[i][3].text, room)
			src := r.g.rows[i][4].text
			if n := len(lines); n > 0 && textWidth(lines[n-1])+2+textWidth(src) <= room {
				lines[n-1] += "  " + st.Faint.Render(src)
			} else {
				lines = append(lines, st.Faint.Render(src))
			}
			for _, line := range lines {
				fmt.Fprintf(w, "%s  %s\n", pad, line)
			}
		}
		if o := r.obs[i]; o.Labels != "" {
			// Shown "k=v, k=v" so that they wrap between labels.
			for j, line := range wrapWords("labels "+strings.ReplaceAll(Safe(o.Labels), ",", ", "), r.width-r.indent-2) {
				if j > 0 {
					line = "  " + line
				}
				fmt.Fprintf(w, "%s  %s\n", pad, st.Faint.Render(line))
			}
		}
	}
	r.next = min(r.next+n, len(r.obs))
}

func statusOrDash(n int) string {
	if n == 0 {
		return "-"
	}
	return fmt.Sprint(n)
}

func observationExtras(st styles, o *model.Observation) string {
	var parts []string
	if model.IsSpan(o) && o.Message != "" {
		parts = append(parts, `span "`+Safe(shorten(o.Message, 80))+`"`)
	}
	switch {
	case o.StandsAtEnd():
		// The row stands at the answer; the span says when it began.
		parts = append(parts, o.Duration.Round(time.Millisecond).String()+" from "+o.Time.UTC().Format("15:04:05.000Z"))
	case o.Duration > 0:
		parts = append(parts, o.Duration.Round(time.Millisecond).String())
	}
	if o.Detail != "" {
		parts = append(parts, "("+Safe(o.Detail)+")")
	}
	if o.Decision != "" {
		parts = append(parts, "decision="+Safe(o.Decision))
	}
	if o.State != "" {
		parts = append(parts, "state="+Safe(o.State))
	}
	if o.Replayed {
		parts = append(parts, "replayed")
	}
	if o.Attempt > 0 {
		parts = append(parts, fmt.Sprintf("attempt=%d", o.Attempt))
	}
	if o.ResultID != "" {
		parts = append(parts, "result="+Safe(o.ResultID))
	}
	if o.Effect {
		parts = append(parts, st.Warning.Render("EFFECT"))
	}
	if len(parts) == 0 {
		return ""
	}
	return "  " + strings.Join(parts, " ")
}

// retryJSONText is a retry of a trace in words, as retryText says a
// finding's.
func retryJSONText(rt jsonRetry) string {
	s := "sent again by " + diagnose.Layer(rt.Layer).Words()
	if rt.AfterMS > 0 {
		s += ", " + (time.Duration(rt.AfterMS*1000) * time.Microsecond).Round(time.Millisecond).String() + " after the first"
	}
	if rt.Duplicate {
		s += ", making a duplicate"
	}
	return s + ": " + rt.Why
}
