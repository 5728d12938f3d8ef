package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/idem-cli/idem/model"
)

// What idem understood of each input (--explain-fields): which path of
// its lines it took for each field, and what said so, then the same as
// a config entry the user can paste and correct.

// configFields is the config's "fields" for an input: the path used most
// for each field a config can map (docs/config.md). Fields read by
// position, or made (a fingerprint of a body, an effect), have none.
func configFields(in *model.Input) map[string]string {
	out := map[string]string{}
	for _, u := range in.Fields {
		if u.Path == "" || strings.HasPrefix(u.By, "SHA-256") {
			continue
		}
		name := u.Field
		switch name {
		case "effect", "trace_id":
			continue
		case "duration":
			if !strings.HasSuffix(u.By, "in ms") {
				continue
			}
			name = "duration_ms"
		}
		if _, ok := out[name]; !ok {
			out[name] = u.Path // in.Fields lists the most used first
		}
	}
	return out
}

// configSource is the config's "sources" entry that says what idem
// understood of in.
func configSource(in *model.Input) map[string]any {
	src := map[string]any{"path": "*" + filepath.Base(in.Path), "tier": in.Tier}
	if f := configFields(in); len(f) > 0 {
		src["fields"] = f
	}
	return src
}

// FieldsText writes, for each input explained, the fields taken from its
// lines and the lines set aside, then the config entry.
func FieldsText(w io.Writer, st styles, inputs []*model.Input) {
	first := true
	for _, in := range inputs {
		if len(in.Fields) == 0 && in.Ignored == 0 {
			continue
		}
		if first {
			fmt.Fprintf(w, "\n%s\n", st.Title.Render("What idem understood of each input:"))
			first = false
		}
		fmt.Fprintf(w, "%s %s (format %s, %s tier): %s read, %s set aside (valid lines that say nothing about a request), %d skipped\n",
			st.Faint.Render("input:"), Safe(in.Path), Safe(in.Format), Safe(tierWord(in)), Count(in.Observations, "line", "lines"), Count(in.Ignored, "line", "lines"), in.Skipped)
		for _, u := range in.Fields {
			path := u.Path
			if path == "" {
				path = "(by position)"
			}
			fmt.Fprintf(w, "  %-12s ← %s  %s\n", u.Field, Safe(path), st.Faint.Render(Safe(fmt.Sprintf("%s; %s", u.By, Count(u.Lines, "line", "lines")))))
		}
		fmt.Fprintf(w, "  %s %s\n", st.Faint.Render("as --config:"), Safe(ConfigJSON(configSource(in))))
	}
}

// JoinsText says, for each input, the fields learned from the values
// they joined: no name said what they were, another tier's ids did.
func JoinsText(w io.Writer, st styles, inputs []*model.Input) {
	for _, in := range inputs {
		for _, u := range in.Joined {
			fmt.Fprintf(w, "%s %s: %s ← %s %s\n", st.Faint.Render("learned:"), Safe(in.Path), u.Field, Safe(u.Path), st.Faint.Render("("+Safe(u.By)+")"))
		}
	}
}

// ConfigPattern is the config entry that reads an input's lines that
// look like HTTP requests and that no format read: a pattern laid out
// from the first (docs/config.md), its tier and names to correct.
func ConfigPattern(in *model.Input) map[string]any {
	return map[string]any{"patterns": []map[string]any{{"name": "requests", "tier": "proxy", "regex": in.RequestLines.Pattern}}}
}

// ConfigJSON is a config entry as one line of JSON, its regular
// expressions as written (no \u003c for "<").
func ConfigJSON(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return ""
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// RequestLinesNote says what an input's unread request lines are.
func RequestLinesNote(in *model.Input) string {
	rl := in.RequestLines
	verb := "look"
	if rl.Lines == 1 {
		verb = "looks"
	}
	first := ""
	if rl.Pattern != "" {
		first = "; the first at " + rl.First.String()
	}
	return fmt.Sprintf("%s %s like HTTP requests (a method, a path and a status found%s) but no format reads them", Count(rl.Lines, "line", "lines"), verb, first)
}
