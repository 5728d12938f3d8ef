package report

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/idem-cli/idem/diagnose"
	"github.com/idem-cli/idem/model"
	"github.com/idem-cli/idem/redact"
)

// The idem.report/v1 document and its writer. A compact report's findings
// are written by the encoder in jsonenc.go, in the same bytes.

// reportJSON is the idem.report/v1 document (docs/report-json.md).
type reportJSON struct {
	Schema   string           `json:"schema"`
	Inputs   []inputJSON      `json:"inputs"`
	Summary  diagnose.Summary `json:"summary"`
	Findings []jsonFinding    `json:"findings"`
	// NotEvaluated names the rules that could not look, why, and what to
	// log to make them decidable.
	NotEvaluated []jsonNotEvaluated `json:"not_evaluated"`
}

// jsonNotEvaluated is a rule that could not look at these logs.
type jsonNotEvaluated struct {
	Rule    string `json:"rule"`
	Decides bool   `json:"decides"`
	Why     string `json:"why"`
	ToLog   string `json:"log"`
}

func notEvaluatedJSON(list []diagnose.NotEvaluated) []jsonNotEvaluated {
	out := []jsonNotEvaluated{}
	for _, ne := range list {
		out = append(out, jsonNotEvaluated{Rule: ne.Rule.ID, Decides: ne.Rule.Decides(), Why: ne.Why, ToLog: ne.Log})
	}
	return out
}

// inputJSON summarises one input.
type inputJSON struct {
	Path        string         `json:"path"`
	Format      string         `json:"format"`
	Tier        string         `json:"tier"`
	TierAssumed bool           `json:"tier_assumed,omitempty"`
	Compression string         `json:"compression,omitempty"`
	Lines       int            `json:"lines"`
	Skipped     int            `json:"skipped"`
	SkipSamples []skipJSON     `json:"skip_samples"`
	Formats     map[string]int `json:"formats"`
	Error       string         `json:"error,omitempty"`
	// Fields and Config say what idem understood of the input, with
	// --explain-fields (docs/report-json.md).
	Fields  []model.FieldUse `json:"fields,omitempty"`
	Config  map[string]any   `json:"config,omitempty"`
	Ignored int              `json:"set_aside,omitempty"`
	// Joined are the fields learned from the values they joined.
	Joined []model.FieldUse `json:"joined,omitempty"`
	// RequestLines are the lines that look like HTTP requests and that no
	// format read, with a config to start from.
	RequestLines *requestLinesJSON `json:"request_lines,omitempty"`
}

// requestLinesJSON is an input's lines that look like requests and that
// no format read.
type requestLinesJSON struct {
	Lines  int            `json:"lines"`
	First  string         `json:"first,omitempty"`
	Config map[string]any `json:"config,omitempty"`
}

// skipJSON is a skipped line.
type skipJSON struct {
	Source string `json:"source"`
	Reason string `json:"reason"`
}

// jsonFinding is one finding.
type jsonFinding struct {
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
	Evidence   []jsonEvidence `json:"evidence"`
	// Retries says who sent each retry of the finding's intents.
	Retries []jsonRetry `json:"retries,omitempty"`
	// Confidence says whether the logs show the finding or it is
	// inferred, from what, and what they lack.
	Confidence confidenceJSON `json:"confidence"`
}

// confidenceJSON is how sure a finding is (diagnose.Confidence).
type confidenceJSON struct {
	Level   string   `json:"level"`
	RestsOn []string `json:"rests_on"`
	Lacks   []string `json:"lacks"`
}

// jsonRetry is one retry and the layer that sent it (diagnose.Retry).
type jsonRetry struct {
	RequestID string  `json:"request_id"`
	Layer     string  `json:"layer"`
	Why       string  `json:"why"`
	AfterMS   float64 `json:"after_ms"`
	Duplicate bool    `json:"duplicate,omitempty"`
}

func retryJSON(rt diagnose.Retry) jsonRetry {
	return jsonRetry{RequestID: redact.String(rt.Delivery.RequestID), Layer: string(rt.Layer), Why: redact.String(rt.Why),
		AfterMS: float64(rt.After.Microseconds()) / 1000, Duplicate: rt.Duplicate}
}

// jsonEvidence is one observation behind a finding.
type jsonEvidence struct {
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

func inputsJSON(inputs []*model.Input) []inputJSON {
	out := []inputJSON{}
	for _, in := range inputs {
		j := inputJSON{Path: redact.String(in.Path), Format: in.Format, Tier: in.Tier, TierAssumed: in.TierAssumed, Compression: in.Compression,
			Lines: in.Lines, Skipped: in.Skipped, SkipSamples: []skipJSON{}, Formats: in.Formats}
		for _, s := range in.SkipSamples {
			j.SkipSamples = append(j.SkipSamples, skipJSON{Source: redact.String(s.Source.String()), Reason: s.Reason})
		}
		if in.Err != nil {
			j.Error = redact.String(in.Err.Error())
		}
		if j.Formats == nil {
			j.Formats = map[string]int{}
		}
		if len(in.Fields) > 0 {
			j.Fields, j.Config, j.Ignored = in.Fields, configSource(in), in.Ignored
		}
		j.Joined = in.Joined
		if rl := in.RequestLines; rl != nil {
			j.RequestLines = &requestLinesJSON{Lines: rl.Lines}
			if rl.Pattern != "" {
				j.RequestLines.First, j.RequestLines.Config = redact.String(rl.First.String()), ConfigPattern(in)
			}
		}
		out = append(out, j)
	}
	return out
}

func evidenceJSON(o *model.Observation) jsonEvidence {
	return jsonEvidence{Source: redact.String(o.Source.String()), Tier: o.Tier.String(), RequestID: redact.String(o.RequestID),
		Time: formatTime(o.Time), Status: o.Status, Outcome: o.Outcome.String(), Decision: redact.String(o.Decision),
		ResultID: redact.String(o.ResultID), Effect: o.Effect, Detail: redact.String(o.Detail)}
}

// findingJSON is what the report says of f.
func findingJSON(f *diagnose.Finding) jsonFinding {
	fj := jsonFinding{Rule: f.Rule.ID, Severity: f.Severity.String(), Intent: redact.String(intentID(f)), Keys: redactAll(f.Keys),
		Title: f.Rule.Title, Symptom: f.Rule.Symptom, Hypothesis: f.Rule.Hypothesis, Check: f.Rule.Check, Action: f.Rule.Action,
		Narrative: redact.String(f.Narrative), Input: redact.String(f.Input), Counts: f.Counts, Evidence: make([]jsonEvidence, 0, len(f.Evidence))}
	for _, o := range f.Evidence {
		fj.Evidence = append(fj.Evidence, evidenceJSON(o))
	}
	for _, rt := range f.Retries {
		fj.Retries = append(fj.Retries, retryJSON(rt))
	}
	fj.Confidence = confidenceJSON{Level: f.Confidence.Level, RestsOn: redactAll(f.Confidence.RestsOn), Lacks: redactAll(f.Confidence.Lacks)}
	if fj.Confidence.Level == "" {
		fj.Confidence.Level = diagnose.Proven
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
	head := reportJSON{Schema: "idem.report/v1", Inputs: inputsJSON(r.Inputs), Summary: r.Summary}
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
	var tail bytes.Buffer // after the findings: the rules that could not look
	if err := r.encodeTo(&tail, notEvaluatedJSON(r.NotEvaluated), in1); err != nil {
		return err
	}
	end := "," + nl + in1 + `"not_evaluated"` + sep + tail.String() + nl + "}\n"
	if len(r.Findings) == 0 {
		bw.WriteString(in1 + `"findings"` + sep + "[]" + end)
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
	bw.WriteString(in1 + "]" + end)
	return bw.Flush()
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
