// Text lines: the config's patterns, then each text format in registry
// order, each refusing first what it could not have written.

package formats

import (
	"strings"
	"unsafe"

	"github.com/idem-cli/idem/model"
)

// parseText reads a text line with the configured patterns, then the
// text formats in registry order (or only the one the input is forced
// to). It reports whether one matched.
func (p *Parser) parseText(line []byte, src model.Source) bool {
	s := bytesToString(line)
	first := len(p.out.Obs)
	p.textDepth++
	ok := p.readText(s, src)
	p.textDepth--
	if ok && p.textDepth == 0 && len(p.out.Obs) > first {
		p.textLine(s, first) // fields learned by position (join.go)
	}
	return ok
}

// readText is parseText's reading proper.
func (p *Parser) readText(s string, src model.Source) bool {
	p.raw = s
	if p.cfg != nil {
		for _, pat := range p.cfg.patterns {
			if m := pat.re.FindStringSubmatch(s); m != nil {
				var o model.Observation
				o.Source, o.Format, o.Tier = src, pat.name, pat.tier
				for i, name := range pat.re.SubexpNames() {
					if set, ok := mappable[name]; ok && m[i] != "" && m[i] != "-" {
						set(&o, m[i])
					}
				}
				if o.Outcome == model.OutcomeUnknown && o.Status > 0 {
					o.Outcome = proxyOutcome(o.Status)
				}
				p.textDone(&o)
				return true
			}
		}
	}
	if f := p.forced(); f != nil && f.text != nil {
		return f.text(p, s, src)
	}
	for _, f := range textFormats {
		if f.text(p, s, src) {
			return true
		}
	}
	return false
}

// lacks reports whether text line s lacks literal lit, which several
// formats' first checks look for (the combined formats, Apache's and
// Tomcat's stock layouts): the line is scanned for it once.
func (p *Parser) lacks(s, lit string) bool {
	if lit == p.absent && len(s) == len(p.absentIn) && unsafe.StringData(s) == unsafe.StringData(p.absentIn) {
		return true
	}
	if strings.Contains(s, lit) {
		return false
	}
	p.absent, p.absentIn = lit, s
	return true
}

// textDone keeps an observation read from a text line.
func (p *Parser) textDone(o *model.Observation) {
	p.labelTier(o, false)
	if p.Explain {
		p.explainText(o)
	}
	p.emit(o)
}
