package trace

import (
	"bytes"
	"strings"

	"github.com/tidwall/gjson"
)

// Skip is a line that could not be read, with why.
type Skip struct {
	Source Source `json:"source"`
	Reason string `json:"reason"`
}

// batchResult is what one worker made of one batch of lines.
type batchResult struct {
	obs      []Observation
	ignored  int
	skips    []Skip
	formats  map[string]int
	secrets  map[string]int
	captured []*Captured
}

// parser turns lines into observations. Each worker owns one, so its
// caches need no locks.
type parser struct {
	src    *sourceRule // per-input overrides from flags and config, may be nil
	cfg    *Config
	cache  map[uint64]*shape
	rec    record
	last   *shape // the last line's, likely the next line's too
	out    *batchResult
	intern map[string]string
	// labels are the labels of the envelope being unwrapped, if any.
	labels map[string]string
	// captureKey and captureID, when set, keep the full request of lines
	// with that key (or key hash) or that request id.
	captureKey, captureID string
}

func newParser(cfg *Config, src *sourceRule) *parser {
	return &parser{cfg: cfg, src: src, cache: map[uint64]*shape{}, intern: map[string]string{}}
}

var bom = []byte{0xEF, 0xBB, 0xBF}

// parseLine reads one line of a JSON-lines input.
func (p *parser) parseLine(line []byte, src Source) {
	for len(line) > 0 && (line[len(line)-1] == '\n' || line[len(line)-1] == '\r') {
		line = line[:len(line)-1]
	}
	line = bytes.TrimPrefix(line, bom)
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return
	}
	if line[0] != '{' {
		if p.parseText(line, src) {
			return
		}
		if rest, labels := stripPrefix(line); len(rest) < len(line) {
			// kubectl logs --prefix/--timestamps: the line follows.
			p.unwrapLine(rest, labels, src)
			return
		}
		if line[0] == '[' {
			p.skip(src, "a JSON array on one line, not a JSON object")
			return
		}
		p.skip(src, "not a JSON object, nor a known text format")
		return
	}
	if !p.rec.scanObjectLike(line, p.last) {
		reason := "invalid JSON (truncated or malformed)"
		if p.rec.tooDeep {
			reason = "JSON nested deeper than 512 levels"
		}
		p.skip(src, reason)
		return
	}
	p.parseRecord(src)
}

// parseObject reads one JSON object: a log line, or an element streamed out
// of a document (a HAR entry, an element of a JSON array).
func (p *parser) parseObject(v gjson.Result, src Source) {
	if !v.IsObject() {
		p.skip(src, "not a JSON object")
		return
	}
	p.rec.load(v)
	p.parseRecord(src)
}

// parseRecord recognises and maps the record in p.rec.
func (p *parser) parseRecord(src Source) {
	sh := p.shapeOf(&p.rec)
	p.rec.shape = sh
	p.last = sh
	p.scanSecrets(&p.rec, sh)
	f := sh.format
	if f.expand != nil {
		f.expand(p, &p.rec, src)
		return
	}
	// The observation is built in its place in the batch, saving a copy of
	// the whole struct per line; it is taken back if the line says nothing.
	p.out.obs = append(p.out.obs, Observation{Source: src, Format: f.name, Tier: f.tier})
	o := &p.out.obs[len(p.out.obs)-1]
	ok := f.extract(p, &p.rec, o)
	if p.src != nil {
		ok = p.src.apply(&p.rec, o) || ok
	}
	if p.cfg != nil {
		p.cfg.applyEffect(o)
		o.Scope = p.cfg.scopeOf(&p.rec, o)
	}
	if p.labels != nil {
		p.labelTier(o, f.name == "canonical")
	}
	if !ok {
		p.out.obs = p.out.obs[:len(p.out.obs)-1]
		p.out.ignored++
		p.countFormat(f.name)
		return
	}
	p.capture(&p.rec, o)
	p.finish(o)
}

// observeArray parses each element of an array value (HAR entries inside a
// one-line HAR document).
func (p *parser) observeArray(a gjson.Result, src Source) {
	saved := p.rec
	a.ForEach(func(_, e gjson.Result) bool {
		p.rec = record{}
		p.parseObject(e, src)
		return true
	})
	p.rec = saved
}

// shapeOf returns the cached shape of the record's key set, working it
// out the first time: the format, the member index, the secret members.
// A hash collision between two key sets is caught by comparing the names.
func (p *parser) shapeOf(r *record) *shape {
	if r.hinted {
		return r.hint
	}
	sig := r.signature()
	if sh, ok := p.cache[sig]; ok && sh.matches(r) {
		return sh
	}
	sh := &shape{index: make(map[string]int, len(r.keys))}
	for i, k := range r.keys {
		k = strings.Clone(k)
		sh.keys = append(sh.keys, k)
		if _, dup := sh.index[k]; !dup {
			sh.index[k] = i
		}
		switch {
		case isSecretName(k):
			sh.secrets = append(sh.secrets, i)
		case k == "req" || k == "request" || k == "headers" || k == "res" || k == "response" || k == "resp_headers":
			sh.headers = append(sh.headers, i)
		}
	}
	sh.plainKeys = len(sh.index) == len(sh.keys)
	for _, k := range sh.keys {
		if strings.ContainsFunc(k, func(c rune) bool { return c == '"' || c == '\\' || c < 0x20 }) {
			sh.plainKeys = false
		}
	}
	sh.format = formats[len(formats)-1]
	if p.src != nil && p.src.format != nil {
		sh.format = p.src.format
	} else {
		for _, f := range formats {
			if f.match(r) {
				sh.format = f
				break
			}
		}
	}
	r.shape = sh
	for _, b := range bodyAliases {
		if r.path(b).Exists() {
			sh.body = b
			break
		}
	}
	r.shape = nil
	p.cache[sig] = sh
	return sh
}

// matches reports whether r has exactly this shape's member names, in
// order (and no name twice, which the index could not represent).
func (sh *shape) matches(r *record) bool {
	if len(sh.keys) != len(r.keys) || len(sh.index) != len(sh.keys) {
		return false
	}
	for i, k := range r.keys {
		if sh.keys[i] != k {
			return false
		}
	}
	return true
}

func (p *parser) countFormat(name string) {
	if p.out.formats == nil {
		p.out.formats = map[string]int{}
	}
	p.out.formats[name]++
}

func (p *parser) skip(src Source, reason string) {
	p.out.skips = append(p.out.skips, Skip{Source: src, Reason: reason})
}

// emit keeps an observation. Its strings may point into the batch's line
// buffer, which is never reused, so they stay valid; whoever keeps an
// observation beyond the sink call keeps that buffer alive, which is why
// the correlator copies what it keeps (see Correlator.Add).
func (p *parser) emit(o *Observation) {
	p.out.obs = append(p.out.obs, *o)
	p.finish(&p.out.obs[len(p.out.obs)-1])
}

// finish completes an observation already in the batch: the per-source
// tier, the field caps, the correlator's preparation.
func (p *parser) finish(o *Observation) {
	if p.src != nil && p.src.tierSet {
		o.Tier = p.src.tier
	}
	o.Route = capLen(o.Route)
	o.Decision = capLen(o.Decision)
	o.State = capLen(o.State)
	o.Detail = capLen(o.Detail)
	o.Client = capLen(o.Client)
	o.ActivityType = capLen(o.ActivityType)
	o.RequestID = capLen(o.RequestID)
	o.Key = capLen(o.Key)
	o.KeyHash = capLen(o.KeyHash)
	o.Scope = capLen(o.Scope)
	o.Fingerprint = capLen(o.Fingerprint)
	o.ResultID = capLen(o.ResultID)
	o.WorkflowID = capLen(o.WorkflowID)
	o.RunID = capLen(o.RunID)
	o.ActivityID = capLen(o.ActivityID)
	o.Message = capLen(o.Message)
	prepare(o)
	p.countFormat(o.Format)
}

// maxField bounds what one field may cost in memory; ids and keys longer
// than this are cut (and still compare equal if their first 1 KiB do).
const maxField = 1024

func capLen(s string) string {
	if len(s) > maxField {
		return s[:maxField]
	}
	return s
}

// keep returns a string of its own for s, shared for repeated values: the
// secret counts outlive the line their field names come from.
func (p *parser) keep(s string) string {
	if v, ok := p.intern[s]; ok {
		return v
	}
	v := strings.Clone(s)
	if len(p.intern) < 4096 {
		p.intern[v] = v
	}
	return v
}

// scanSecrets counts credential-bearing fields by path, never their values,
// for the secret-in-logs rule. Which members to look at is known from the
// shape; only their values are checked per line.
func (p *parser) scanSecrets(r *record, sh *shape) {
	for _, i := range sh.secrets {
		if present(r.vals[i]) != "" {
			p.secret(r.keys[i])
		}
	}
	for _, i := range sh.headers {
		if v := r.vals[i]; v.IsObject() {
			p.scanHeaders(r.keys[i], v, 0)
		}
	}
	if sh.body != "" {
		p.secret(sh.body + " (request body)")
	}
}

func (p *parser) scanHeaders(prefix string, v gjson.Result, depth int) {
	if depth > 3 {
		return
	}
	v.ForEach(func(k, val gjson.Result) bool {
		name := k.Str
		if val.IsObject() && name != "" {
			p.scanHeaders(prefix+"."+name, val, depth+1)
			return true
		}
		if val.IsArray() && (name == "headers" || name == "cookies") {
			// HAR: [{name, value}]
			val.ForEach(func(_, e gjson.Result) bool {
				n := e.Get("name").Str
				if (name == "cookies" || isSecretName(n)) && present(e.Get("value")) != "" {
					p.secret(prefix + "." + name + "." + strings.ToLower(n))
				}
				return true
			})
			return true
		}
		if isSecretName(name) && present(val) != "" {
			p.secret(prefix + "." + name)
		}
		return true
	})
}

func (p *parser) secret(path string) {
	if p.out.secrets == nil {
		p.out.secrets = map[string]int{}
	}
	p.out.secrets[p.keep(path)]++
}

// isSecretName matches header and field names that carry credentials.
func isSecretName(name string) bool {
	n := strings.ReplaceAll(strings.ToLower(name), "-", "_")
	switch {
	case strings.Contains(n, "authorization"), strings.Contains(n, "cookie"),
		strings.Contains(n, "api_key"), strings.Contains(n, "apikey"),
		strings.Contains(n, "password"), strings.Contains(n, "passwd"),
		strings.Contains(n, "secret"), strings.HasSuffix(n, "token"), strings.HasSuffix(n, "_token_value"):
		return true
	}
	return false
}

// unwrapLine reads a line that followed a prefix, with the prefix's labels.
func (p *parser) unwrapLine(line []byte, labels map[string]string, src Source) {
	saved := p.labels
	p.labels = mergeLabels(saved, labels)
	defer func() { p.labels = saved }()
	line = bytes.TrimSpace(line)
	switch {
	case len(line) == 0:
		p.out.ignored++
	case line[0] == '{':
		if !p.rec.scanObject(line) {
			p.skip(src, "invalid JSON (truncated or malformed)")
			return
		}
		p.parseRecord(src)
	case p.parseText(line, src):
	default:
		p.out.ignored++
	}
}
