package report

import (
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/idem-cli/idem/diagnose"
	"github.com/idem-cli/idem/internal/iostreams"
	"github.com/idem-cli/idem/model"
	"github.com/idem-cli/idem/redact"
)

// A hand-written encoder for the findings of a compact (piped) report:
// a big diagnosis has tens of thousands of them, and encoding/json's
// reflection was most of the report's time. It writes each finding
// straight from the diagnosis, in exactly the bytes encoding/json makes
// of findingJSON(f) with HTML escaping off (TestFindingOfMatchesFindingJSON,
// FuzzAppendJSONString); the indented form still goes through
// encoding/json.

// findingWriter appends findings as appendFindingWith does, each rule's
// own texts (title to action, half a finding's bytes) quoted once.
type findingWriter struct {
	texts map[*diagnose.Rule][]byte // read only once made
}

func newFindingWriter(findings []*diagnose.Finding) *findingWriter {
	w := &findingWriter{texts: map[*diagnose.Rule][]byte{}}
	for _, f := range findings {
		if _, ok := w.texts[f.Rule]; !ok {
			w.texts[f.Rule] = appendRuleTexts(nil, f.Rule)
		}
	}
	return w
}

func (w *findingWriter) append(b []byte, f *diagnose.Finding) []byte {
	return appendFindingWith(b, f, w.texts[f.Rule])
}

// appendRuleTexts appends the fields of a finding that are its rule's.
func appendRuleTexts(b []byte, r *diagnose.Rule) []byte {
	b = appendField(b, ',', "title", r.Title)
	b = appendField(b, ',', "symptom", r.Symptom)
	b = appendField(b, ',', "hypothesis", r.Hypothesis)
	b = appendField(b, ',', "check", r.Check)
	return appendField(b, ',', "action", r.Action)
}

// appendFindingWith appends findingJSON(f) as compact JSON without
// building it (no copy of the finding and its evidence), with the rule's
// texts quoted already (nil: quote them).
func appendFindingWith(b []byte, f *diagnose.Finding, texts []byte) []byte {
	b = appendField(b, '{', "rule", f.Rule.ID)
	b = appendField(b, ',', "severity", f.Severity.String())
	b = appendField(b, ',', "intent", redact.String(intentID(f)))
	b = append(b, `,"keys":[`...)
	for i, k := range f.Keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, redact.String(k))
	}
	b = append(b, ']')
	if texts == nil {
		b = appendRuleTexts(b, f.Rule)
	} else {
		b = append(b, texts...)
	}
	b = appendField(b, ',', "narrative", redact.String(f.Narrative))
	if in := redact.String(f.Input); in != "" {
		b = appendField(b, ',', "input", in)
	}
	b = appendCounts(b, f.Counts)
	b = append(b, `,"evidence":[`...)
	for i, o := range f.Evidence {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendObservation(b, o)
	}
	b = append(b, ']')
	if len(f.Retries) > 0 {
		b = append(b, `,"retries":[`...)
		for i, rt := range f.Retries {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendRetry(b, rt)
		}
		b = append(b, ']')
	}
	return appendConfidence(b, f.Confidence)
}

// appendConfidence appends the finding's confidence and closes it, as
// encoding/json writes FindingJSON's last field.
func appendConfidence(b []byte, c diagnose.Confidence) []byte {
	level := c.Level
	if level == "" {
		level = diagnose.Proven
	}
	b = append(b, `,"confidence":`...)
	b = appendField(b, '{', "level", level)
	list := func(name string, l []string) {
		b = append(b, `,"`...)
		b = append(b, name...)
		b = append(b, `":[`...)
		for i, s := range l {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONString(b, redact.String(s))
		}
		b = append(b, ']')
	}
	list("rests_on", c.RestsOn)
	list("lacks", c.Lacks)
	return append(b, '}', '}')
}

// appendRetry appends retryJSON(rt) as encoding/json would.
func appendRetry(b []byte, rt diagnose.Retry) []byte {
	j := retryJSON(rt)
	b = appendField(b, '{', "request_id", j.RequestID)
	b = appendField(b, ',', "layer", j.Layer)
	b = appendField(b, ',', "why", j.Why)
	b = append(b, `,"after_ms":`...)
	b = strconv.AppendFloat(b, j.AfterMS, 'f', -1, 64)
	if j.Duplicate {
		b = append(b, `,"duplicate":true`...)
	}
	return append(b, '}')
}

// appendObservation appends evidenceJSON(o) as encoding/json would.
func appendObservation(b []byte, o *model.Observation) []byte {
	b = appendField(b, '{', "source", redact.String(o.Source.String()))
	b = appendField(b, ',', "tier", o.Tier.String())
	b = appendField(b, ',', "request_id", redact.String(o.RequestID))
	b = append(b, `,"time":"`...)
	b = append(appendTime(b, o.Time), '"')
	b = append(b, `,"status":`...)
	b = strconv.AppendInt(b, int64(o.Status), 10)
	b = appendField(b, ',', "outcome", o.Outcome.String())
	if d := redact.String(o.Decision); d != "" {
		b = appendField(b, ',', "decision", d)
	}
	if r := redact.String(o.ResultID); r != "" {
		b = appendField(b, ',', "result_id", r)
	}
	if o.Effect {
		b = append(b, `,"effect":true`...)
	}
	if d := redact.String(o.Detail); d != "" {
		b = appendField(b, ',', "detail", d)
	}
	return append(b, '}')
}

// appendCounts appends the counts, names sorted, as encoding/json writes
// a map; nothing when there are none (omitempty).
func appendCounts(b []byte, counts map[string]int) []byte {
	if len(counts) == 0 {
		return b
	}
	b = append(b, `,"counts":{`...)
	names := make([]string, 0, len(counts))
	for k := range counts {
		names = append(names, k)
	}
	slices.Sort(names)
	for i, k := range names {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, k)
		b = append(b, ':')
		b = strconv.AppendInt(b, int64(counts[k]), 10)
	}
	return append(b, '}')
}

// appendField appends sep, "name": and the string value. Names are plain
// ASCII and need no escaping.
func appendField(b []byte, sep byte, name, value string) []byte {
	b = append(b, sep, '"')
	b = append(b, name...)
	b = append(b, '"', ':')
	return appendJSONString(b, value)
}

// appendJSONString quotes s as encoding/json does with HTML escaping off
// (\" \\ \b \f \n \r \t, other control bytes as \u00XX, invalid UTF-8 as
// \ufffd, U+2028 and U+2029 escaped), and also escapes what jsonSafe does:
// DEL, C1 controls and bidi controls.
func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		// Eight bytes at a time while none needs a second look.
		for i+8 <= len(s) && plainWord(s[i:i+8]) {
			i += 8
		}
		if i == len(s) {
			break
		}
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != 0x7f {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigit[c>>4], hexDigit[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		} else if r == '\u2028' || r == '\u2029' || iostreams.TerminalActive(r) {
			b = append(b, s[start:i]...)
			b = appendUnicodeEscape(b, r)
		} else {
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

const hexDigit = "0123456789abcdef"

// plainWord reports whether the eight bytes of s are printable ASCII
// other than " and \\, which appendJSONString copies as they are.
func plainWord(s string) bool {
	w := uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
	// The high bit of the lowest byte for which a test holds is set (of
	// others, maybe): below 0x20, equal to " or \\, 0x7f or above.
	below := (w - ones*0x20) &^ w
	quote := zeroByte(w ^ ones*'"')
	slash := zeroByte(w ^ ones*'\\')
	high := w | (w + ones)
	return (below|quote|slash|high)&(ones*0x80) == 0
}

const ones = 0x0101010101010101

// zeroByte sets the high bit of x's lowest zero byte, if it has one.
func zeroByte(x uint64) uint64 { return (x - ones) &^ x }

func appendUnicodeEscape(b []byte, r rune) []byte {
	return append(b, '\\', 'u', hexDigit[r>>12&0xf], hexDigit[r>>8&0xf], hexDigit[r>>4&0xf], hexDigit[r&0xf])
}

// jsonSafe escapes, in a JSON document encoding/json wrote, what it leaves
// raw and a terminal would act on (iostreams.TerminalActive), so `cat report.json`
// is as safe as the text report. Outside strings JSON is plain ASCII
// without DEL, so every such character is inside a string, and its \u
// escape decodes to the same value.
func jsonSafe(b []byte) []byte {
	i := 0
	for i < len(b) && b[i] < 0x7f {
		i++
	}
	if i == len(b) {
		return b
	}
	out := make([]byte, 0, len(b)+16)
	out = append(out, b[:i]...)
	for i < len(b) {
		c := b[i]
		if c < 0x7f {
			out = append(out, c)
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		if iostreams.TerminalActive(r) {
			out = appendUnicodeEscape(out, r)
		} else {
			out = append(out, b[i:i+size]...)
		}
		i += size
	}
	return out
}
