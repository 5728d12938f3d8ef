package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/idem-cli/idem/redact"
	"github.com/idem-cli/idem/trace"
)

// TimeLayout is how times are written in every output: RFC 3339 in UTC
// with milliseconds, sortable and unambiguous when pasted elsewhere.
const TimeLayout = "2006-01-02T15:04:05.000Z07:00"

// FormatTime writes t in TimeLayout, or "-" when unknown.
func FormatTime(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.UTC().Format(TimeLayout)
}

// TraceJSON is the idem.trace/v1 document.
type TraceJSON struct {
	Schema     string         `json:"schema"`
	Key        string         `json:"key"`
	Deliveries []DeliveryJSON `json:"deliveries"`
	Effects    []EffectJSON   `json:"effects"`
	Related    []RelatedJSON  `json:"related"`
	Inputs     []*trace.Input `json:"inputs"`
}

// DeliveryJSON is one delivery of a traced intent.
type DeliveryJSON struct {
	RequestID    string            `json:"request_id"`
	Synthetic    bool              `json:"synthetic,omitempty"`
	Scope        string            `json:"scope,omitempty"`
	Observations []ObservationJSON `json:"observations"`
}

// ObservationJSON is one tier's view of a delivery.
type ObservationJSON struct {
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

// EffectJSON is one business effect.
type EffectJSON struct {
	ResultID  string `json:"result_id"`
	RequestID string `json:"request_id"`
	Tier      string `json:"tier"`
	Time      string `json:"time"`
	Source    string `json:"source"`
}

// RelatedJSON is an intent under another key with the same fingerprint.
type RelatedJSON struct {
	Key        string `json:"key"`
	Deliveries int    `json:"deliveries"`
	Effects    int    `json:"effects"`
	Start      string `json:"start"`
}

// ObservationToJSON converts an observation for JSON output, redacted.
func ObservationToJSON(o *trace.Observation) ObservationJSON {
	return ObservationJSON{
		Tier: o.Tier.String(), Format: o.Format, Time: FormatTime(o.Time),
		DurationMS: float64(o.Duration.Microseconds()) / 1000,
		Method:     redact.String(o.Method), Route: redact.String(o.Route), Status: o.Status,
		Outcome: o.Outcome.String(), Detail: redact.String(o.Detail), Decision: redact.String(o.Decision),
		State: redact.String(o.State), Fingerprint: redact.String(o.Fingerprint), ResultID: redact.String(o.ResultID),
		Replayed: o.Replayed, Effect: o.Effect, Attempt: o.Attempt, Message: redact.String(o.Message),
		Labels: redact.String(o.Labels), Source: o.Source.String(),
	}
}

// NewTraceJSON builds the trace document for key from its intents.
func NewTraceJSON(set *trace.Set, key string, intents []*trace.Intent) TraceJSON {
	doc := TraceJSON{Schema: "idem.trace/v1", Key: redact.String(key), Deliveries: []DeliveryJSON{},
		Effects: []EffectJSON{}, Related: []RelatedJSON{}, Inputs: set.Inputs}
	seen := map[*trace.Intent]bool{}
	for _, in := range intents {
		seen[in] = true
	}
	for _, in := range intents {
		for _, d := range in.Deliveries {
			dj := DeliveryJSON{RequestID: redact.String(d.RequestID), Synthetic: d.Synthetic, Scope: redact.String(in.Scope)}
			for _, o := range d.Observations {
				dj.Observations = append(dj.Observations, ObservationToJSON(o))
				if o.Effect {
					doc.Effects = append(doc.Effects, EffectJSON{ResultID: redact.String(o.ResultID), RequestID: redact.String(d.RequestID),
						Tier: o.Tier.String(), Time: FormatTime(o.Time), Source: o.Source.String()})
				}
			}
			doc.Deliveries = append(doc.Deliveries, dj)
		}
		for _, r := range set.Related(in) {
			if seen[r] {
				continue
			}
			seen[r] = true
			doc.Related = append(doc.Related, RelatedJSON{Key: redact.String(r.Key), Deliveries: len(r.Deliveries),
				Effects: len(r.Effects()), Start: FormatTime(r.Start())})
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

// TraceText writes the timeline of the intents for key.
func TraceText(w io.Writer, st Styles, set *trace.Set, key string, intents []*trace.Intent) {
	st.showLabels = true // the timeline has room for an export's labels; evidence tables do not
	doc := NewTraceJSON(set, key, intents)
	for _, in := range intents {
		effects := in.Effects()
		fmt.Fprintf(w, "%s %s\n", st.Title.Render("intent"), st.Code.Render(Safe(in.Key)))
		if in.Scope != "" {
			fmt.Fprintf(w, "  scope      %s\n", Safe(in.Scope))
		}
		fmt.Fprintf(w, "  started    %s\n", FormatTime(in.Start()))
		total := max(in.Total, len(in.Deliveries))
		fmt.Fprintf(w, "  deliveries %d, effects %d\n", total, len(effects))
		if total > len(in.Deliveries) {
			fmt.Fprintf(w, "  %s\n", st.Faint.Render(fmt.Sprintf("(the first and last %d are shown; %d in between are not)", len(in.Deliveries)/2, total-len(in.Deliveries))))
		}
		for i, d := range in.Deliveries {
			fmt.Fprintf(w, "\n  %s %s  %s %s\n", st.Label.Render(fmt.Sprintf("delivery %d", i+1)),
				Safe(d.RequestID), Safe(d.Method()), Safe(d.Route()))
			for _, o := range d.Observations {
				fmt.Fprintf(w, "    %s  %-8s %s%s  %s\n", FormatTime(o.Time), o.Tier, statusText(st, o),
					observationExtras(st, o), st.Faint.Render(o.Source.String()))
			}
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "%s\n", st.Title.Render("effects"))
	if len(doc.Effects) == 0 {
		fmt.Fprintf(w, "  %s\n", st.Faint.Render("none logged"))
	}
	for _, e := range doc.Effects {
		fmt.Fprintf(w, "  %s  result %s  by %s at %s  %s\n", e.Time, st.Code.Render(Safe(e.ResultID)), Safe(e.RequestID), e.Tier, st.Faint.Render(e.Source))
	}
	fmt.Fprintf(w, "%s\n", st.Title.Render("related intents (same fingerprint, other keys)"))
	if len(doc.Related) == 0 {
		fmt.Fprintf(w, "  %s\n", st.Faint.Render("none"))
	}
	for _, r := range doc.Related {
		fmt.Fprintf(w, "  %s  %s  %d deliveries, %d effects\n", r.Start, Safe(r.Key), r.Deliveries, r.Effects)
	}
}

func statusText(st Styles, o *trace.Observation) string {
	var s string
	switch {
	case o.Outcome.Lost():
		s = st.Critical.Render(fmt.Sprintf("%-4s %s", statusOrDash(o.Status), o.Outcome))
	case o.Status >= 400:
		s = st.Warning.Render(fmt.Sprintf("%-4d", o.Status))
	case o.Status > 0:
		s = st.OK.Render(fmt.Sprintf("%-4d", o.Status))
	default:
		s = st.Faint.Render(fmt.Sprintf("%-4s", "-"))
	}
	return s
}

func statusOrDash(n int) string {
	if n == 0 {
		return "-"
	}
	return fmt.Sprint(n)
}

func observationExtras(st Styles, o *trace.Observation) string {
	var parts []string
	if o.Duration > 0 {
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
	if o.Labels != "" && st.showLabels {
		parts = append(parts, st.Faint.Render("["+Safe(o.Labels)+"]"))
	}
	if len(parts) == 0 {
		return ""
	}
	return "  " + strings.Join(parts, " ")
}
