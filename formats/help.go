package formats

import (
	"fmt"
	"strings"

	"github.com/idem-cli/idem/model"
)

// groups orders the formats for people: what a line is, not the order
// it is tried in (see registry.go for that).
var groups = []struct {
	title string
	in    func(*format) bool
}{
	{"Request logs (browsers, proxies, load balancers)", func(f *format) bool {
		return (f.Kind == kindJSON || f.Kind == kindText) && (f.Tier == model.TierClient || f.Tier == model.TierProxy)
	}},
	{"Application and worker logs", func(f *format) bool { return (f.Kind == kindJSON || f.Kind == kindText) && f.Tier >= model.TierServer }},
	{"Request lines of any tier, read by the HTTP grammar inside them (the tier from what each line says)", func(f *format) bool {
		return (f.Kind == kindJSON || f.Kind == kindText) && f.Tier == model.TierUnknown
	}},
	{"Traces (each span is an observation, its tier from its kind: client, proxy or server)", func(f *format) bool { return f.Kind == kindTrace }},
	{"Exports and prefixes (unwrapped; their labels set the tier where they name one)", func(f *format) bool {
		return f.Kind == kindEnvelope
	}},
}

// Help is the text of 'idem help formats', made from the registry.
func Help() string {
	var b strings.Builder
	b.WriteString("idem recognises each line by its own shape, so one file may mix formats.\n")
	b.WriteString("Each NAME (or alias) works with --input-format and a config source's \"format\".\n")
	for _, g := range groups {
		fmt.Fprintf(&b, "\n%s\n", g.title)
		for _, f := range registry {
			if !g.in(f) {
				continue
			}
			names := f.Name
			if len(f.Aliases) > 0 {
				names += " (" + strings.Join(f.Aliases, ", ") + ")"
			}
			if len(names) > 12 {
				fmt.Fprintf(&b, "  %s\n  %-12s %s\n", names, "", f.Doc)
			} else {
				fmt.Fprintf(&b, "  %-12s %s\n", names, f.Doc)
			}
		}
	}
	b.WriteString("\nHow to make a proxy log what idem joins on (the request id and the key)\n")
	for _, f := range registry {
		if f.Setup != "" {
			fmt.Fprintf(&b, "  %s\n      %s\n", f.Name, f.Setup)
		}
	}
	b.WriteString(`
A proxy's own format string: a --config source's "log_format"
    Lines are read by what each variable of the format means (which is the
    request id, the key, the start or the end, in which unit), and only
    lines that format wrote; an unknown variable is kept as detail.
    "log_format_syntax" names the language where the string does not say
    it (apache, tomcat, tomcat9, lighttpd, varnish share Apache's %-codes
    with meanings of their own). One example in each:
`)
	for _, e := range logFormatExamples {
		note := ""
		if e.note != "" {
			note = "   (" + e.note + ")"
		}
		fmt.Fprintf(&b, "    %-9s %s%s\n", e.syntax, e.format, note)
	}
	b.WriteString(`
Inputs may be gzip or zstd compressed (detected by magic bytes), JSON lines,
a JSON array, a HAR or other JSON document, or text. Use --input-format and
--input-tier to override detection for every input, or a --config file per
source (docs/config.md, docs/exports.md). docs/formats.md has the fields
each format gives and how to make a proxy log the ids.
`)
	return b.String()
}

// Markdown is the generated table of docs/formats.md: every format in
// registry order, which is the order a line is tried in.
func Markdown() string {
	var b strings.Builder
	b.WriteString("| # | name | aliases | kind | tier | what |\n|---|---|---|---|---|---|\n")
	for i, f := range registry {
		tier := f.Tier.String()
		switch f.Kind {
		case kindEnvelope:
			tier = "from the line"
		case kindTrace:
			tier = "from the span's kind"
		}
		var aliases []string
		for _, a := range f.Aliases {
			aliases = append(aliases, "`"+a+"`")
		}
		what := f.Doc
		if f.Setup != "" {
			what += ". " + f.Setup
		}
		fmt.Fprintf(&b, "| %d | `%s` | %s | %s | %s | %s |\n", i+1, f.Name, strings.Join(aliases, ", "), f.Kind, tier, what)
	}
	return b.String()
}
