package formats

import (
	"bytes"
	"slices"
	"strings"

	"github.com/idem-cli/idem/formats/grammar"
	"github.com/idem-cli/idem/model"
	"github.com/idem-cli/idem/redact"

	"github.com/tidwall/gjson"
)

// Result is what a parser made of a run of lines. It is reused: Reset
// keeps its buffers.
type Result struct {
	Obs []model.Observation
	// Raw holds each observation's record as read, when the parser keeps
	// them (Parser.KeepRaw): the JSON object, or the text line.
	Raw     []string
	Ignored int // valid lines that say nothing about a request
	Skips   []model.Skip
	Secrets map[string]int // credential-bearing field paths, by count

	// formats counts observations and ignored lines by format, but for
	// the last run of one format, counted in run and runFormat: a map
	// update per run, not per line (FormatCounts adds it in).
	formats   map[string]int
	runFormat string
	run       int

	// Repaired counts lines read although they are not valid JSON: raw
	// control bytes inside strings, which stringEnd lets through.
	Repaired int
	// LastRepair says what the last repair was, when it was not the raw
	// control bytes' (a field of an impossible type, named).
	LastRepair string
	// Uses counts where each field was read from (Lines unset in the
	// keys), when the parser explains (Parser.Explain).
	Uses map[model.FieldUse]int
	// Candidates are sampled values by path of the records whose request
	// id or key no reading named, when the parser samples (Parser.Sample).
	Candidates map[string][]string
	// RequestLines counts the text lines no format read that look like
	// HTTP requests; RequestPattern lays out the first (RequestFirst) as
	// a config pattern (explain.go).
	RequestLines   int
	RequestFirst   model.Source
	RequestPattern string
	// Assumed counts, by tier, the observations whose tier is their
	// format's default, which no line of their process confirmed
	// (Parser.Settle).
	Assumed [model.TierProvider + 1]int
	// votes are the lines whose tier their process's lines decide
	// (Callers.Settle).
	votes []tierVote
}

// FormatCounts returns how many observations and ignored lines each
// format gave.
func (r *Result) FormatCounts() map[string]int {
	if r.run > 0 {
		if r.formats == nil {
			r.formats = map[string]int{}
		}
		r.formats[r.runFormat] += r.run
		r.runFormat, r.run = "", 0
	}
	return r.formats
}

// Reset empties r, keeping its buffers.
func (r *Result) Reset() {
	*r = Result{Obs: r.Obs[:0], Raw: r.Raw[:0], Skips: r.Skips[:0], votes: r.votes[:0]}
}

// Parser turns lines into observations. Each reading worker owns one, so
// its caches need no locks.
type Parser struct {
	// KeepRaw keeps each observation's record in Result.Raw.
	KeepRaw bool
	// Explain counts where each field was read from in Result.Uses.
	Explain bool
	// Sample keeps the values of records it could not fully name in
	// Result.Candidates, for the fields their values join (join.go).
	Sample  bool
	sampled int

	src    *SourceRule // per-input overrides from flags and config, may be nil
	cfg    *Config
	cache  map[uint64]*shape
	rec    record
	last   *shape // the last line's, likely the next line's too
	out    *Result
	intern map[string]string
	// labels are the labels of the envelope being unwrapped, if any.
	labels map[string]string
	raw    string // the record being read, for Result.Raw
	// absent is a literal a text line was found not to hold (absentIn),
	// so that the formats that look for the same one scan it once.
	absent, absentIn string
	// as, when set, is the format the next record is read as, whatever
	// its shape says (an envelope reading its own document's fields).
	as *format
	// depth counts the envelopes being unwrapped around the record.
	depth int
	// cur is the format reading the record.
	cur *format
	// vocab is the scratch of the reading by vocabulary.
	vocab vocabReader
	// values are what the source's log_format last read (reused).
	values grammar.Values
	// w3c is the W3C #Fields header in force, w3cMicrosoft whether its
	// #Software is IIS's (w3c.go); cri holds a container runtime's
	// partial lines until their end, a run per stream, joined within
	// criMax bytes (cri.go).
	w3c          *w3cHeader
	w3cMicrosoft bool
	cri          [criStreams]criRun
	criMax       int
	// lineLen is the length of the line the reader handed parseLine (-1
	// while reading a streamed value): a line of that length is not
	// within another's.
	lineLen int
	// logfmtBuf is a logfmt line laid out as the JSON object it says
	// (logfmt.go), each line after the last (never written over).
	logfmtBuf []byte
	// reqline is what a generic request line leaves for the lines after
	// it: its header dump, its response, a retry mark (requestline.go).
	reqline reqLine
	// unwrappedUnread says a line unwrapped from a prefix was read by no
	// format (explain.go counts it if it looks like a request).
	unwrappedUnread bool
	// textDepth counts the text lines being read within one another (a
	// prefix unwrapped): positions are the outermost line's.
	textDepth int
}

// maxEnvelopes bounds envelopes within envelopes: a hostile export could
// nest them without end.
const maxEnvelopes = 8

// NewParser makes a parser with the config's patterns, scope and effect
// matchers and the input's overrides (both may be nil).
func NewParser(cfg *Config, src *SourceRule) *Parser {
	return &Parser{cfg: cfg, src: src, cache: map[uint64]*shape{}, intern: map[string]string{}}
}

// Into makes the parser write to out.
func (p *Parser) Into(out *Result) { p.out = out }

// Line reads one line of a line-oriented input (JSON lines or text).
func (p *Parser) Line(line []byte, src model.Source) { p.parseLine(line, src) }

// Object reads one JSON value streamed out of a document: a HAR entry, or
// an element of a JSON array.
func (p *Parser) Object(v gjson.Result, src model.Source) { p.parseObject(v, src) }

// BOM is the UTF-8 byte order mark some exporters write first.
var BOM = []byte{0xEF, 0xBB, 0xBF}

// parseLine reads one line of a JSON-lines input.
func (p *Parser) parseLine(line []byte, src model.Source) {
	p.absentIn = "" // a reused buffer may hold another line where this one was
	for len(line) > 0 && (line[len(line)-1] == '\n' || line[len(line)-1] == '\r') {
		line = line[:len(line)-1]
	}
	if len(line) == 0 || line[0] != '{' || line[len(line)-1] != '}' {
		// Not the usual {...} line, which has nothing to trim.
		line = bytes.TrimPrefix(line, BOM)
		line = bytes.TrimSpace(line)
	}
	if len(line) == 0 {
		return
	}
	p.lineLen = len(line)
	if p.src != nil && p.src.logFormat != nil {
		p.readLogFormat(p.src.logFormat, bytesToString(line), src)
		return
	}
	if forced := p.forced(); forced != nil && forced.text != nil && line[0] == '{' {
		if !p.parseText(line, src) {
			p.skip(src, "a JSON object, not a "+forced.Name+" line (the input's format is set to "+forced.Name+")")
		}
		return
	}
	// "{ [" opens no JSON object (a member's name is a string): it is
	// curl -v's note of the data it sent or received, a text line.
	if line[0] != '{' || len(line) > 2 && line[1] == ' ' && line[2] == '[' {
		p.unwrappedUnread = false
		if p.parseText(line, src) {
			// A prefix was read and nothing after it: a request line no
			// format reads is skipped, said, not set aside.
			if p.unwrappedUnread && p.unreadRequest(bytesToString(line), src) {
				p.out.Ignored--
				p.skip(src, unreadRequestReason)
			}
			return
		}
		request := p.unreadRequest(bytesToString(line), src)
		if f := p.forced(); f != nil && f.text != nil {
			p.skip(src, "not a "+f.Name+" line (the input's format is set to "+f.Name+")")
			return
		}
		if request {
			p.skip(src, unreadRequestReason)
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
	if p.rec.ctl {
		p.out.Repaired++
	}
	p.parseRecord(src)
}

// parseObject reads one JSON object: a log line, or an element streamed out
// of a document (a HAR entry, an element of a JSON array).
func (p *Parser) parseObject(v gjson.Result, src model.Source) {
	p.lineLen = -1 // no line: whatever it unwraps is within it
	if !v.IsObject() {
		p.skip(src, "not a JSON object")
		return
	}
	p.rec.load(v)
	p.parseRecord(src)
}

// parseRecord recognises and maps the record in p.rec.
func (p *Parser) parseRecord(src model.Source) {
	sh := p.shapeOf(&p.rec)
	p.rec.shape = sh
	if p.rec.hinted && !p.rec.laidOut {
		// The second line in a row of this key set, or one laid out
		// otherwise: its separators are worth keeping for the next.
		sh.learnLayout(&p.rec)
	}
	p.last = sh
	p.scanSecrets(&p.rec, sh)
	p.raw = p.rec.raw()
	f := sh.format
	if p.as != nil {
		f, p.as = p.as, nil
	}
	if f.expand != nil {
		if p.depth >= maxEnvelopes {
			p.skip(src, "envelopes nested more than 8 deep")
			return
		}
		p.depth++
		expanded := f.expand(p, &p.rec, src)
		p.depth--
		if expanded {
			return
		}
	}
	// The observation is built in its place in the batch, saving a copy of
	// the whole struct per line; it is taken back if the line says nothing.
	o := p.slot()
	o.Source, o.Format, o.Tier = src, f.Name, f.Tier
	p.cur = f
	ok := f.extract(p, &p.rec, o)
	if p.src != nil {
		ok = p.src.apply(&p.rec, o) || ok
	}
	if o.RequestID == "" && (o.Key != "" || o.Method != "") {
		traceFromRecord(&p.rec, o)
	}
	if p.cfg != nil {
		p.cfg.applyEffect(o)
		o.Scope = p.cfg.scopeOf(&p.rec, o)
	}
	if p.labels != nil {
		p.labelTier(o, f.Name == "canonical")
	}
	if p.rec.odd != "" && !p.rec.ctl {
		p.out.Repaired++
		p.out.LastRepair = p.rec.odd
	}
	if !ok {
		p.out.Obs = p.out.Obs[:len(p.out.Obs)-1]
		p.out.Ignored++
		p.countFormat(f.Name)
		if p.Sample {
			p.sampleRecord(&p.rec, nil)
		}
		return
	}
	if p.Sample || p.Explain {
		// Asked for: off the usual line's path.
		p.sampleRecord(&p.rec, o)
		p.explainRecord(&p.rec, o, f)
	}
	p.finish(o)
}

// slot appends a zero observation to the batch and returns it, zeroed
// where it lies: appending a literal builds it on the stack and copies
// the whole struct in.
func (p *Parser) slot() *model.Observation {
	obs := p.out.Obs
	n := len(obs)
	if n == cap(obs) {
		obs = slices.Grow(obs, 1)
	}
	obs = obs[:n+1]
	p.out.Obs = obs
	o := &obs[n]
	*o = model.Observation{}
	return o
}

// observeArray parses each element of an array value (HAR entries inside a
// one-line HAR document).
func (p *Parser) observeArray(a gjson.Result, src model.Source) {
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
func (p *Parser) shapeOf(r *record) *shape {
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
		case redact.IsSecretName(k):
			sh.secrets = append(sh.secrets, i)
		case k == "headers" || k == "resp_headers" || wrappers[normName(k)]:
			// Header maps, and the wrappers loggers nest them in
			// (meta.req.headers, context.headers).
			sh.headers = append(sh.headers, i)
		}
	}
	sh.plainKeys = len(sh.index) == len(sh.keys)
	for _, k := range sh.keys {
		if strings.ContainsFunc(k, func(c rune) bool { return c == '"' || c == '\\' || c < 0x20 }) {
			sh.plainKeys = false
		}
	}
	sh.format = jsonFormat
	if p.src != nil && p.src.format != nil && p.src.format.text == nil {
		sh.format = p.src.format
	} else {
		for _, f := range jsonFormats {
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

func (p *Parser) countFormat(name string) {
	if r := p.out; name == r.runFormat {
		r.run++
	} else {
		r.FormatCounts()
		r.runFormat, r.run = name, 1
	}
}

func (p *Parser) skip(src model.Source, reason string) {
	p.out.Skips = append(p.out.Skips, model.Skip{Source: src, Reason: reason})
}

// emit keeps an observation. Its strings may point into the batch's line
// buffer, which is never reused, so they stay valid; whoever keeps an
// observation beyond the sink call keeps that buffer alive, which is why
// the correlator copies what it keeps (see Correlator.Add).
func (p *Parser) emit(o *model.Observation) {
	p.out.Obs = append(p.out.Obs, *o)
	p.finish(&p.out.Obs[len(p.out.Obs)-1])
}

// finish completes an observation already in the batch: the per-source
// tier, the field caps, the raw record.
func (p *Parser) finish(o *model.Observation) {
	if p.src != nil && p.src.tierSet {
		o.Tier = p.src.tier
	}
	// One test for the usual line, whose fields are all short: a string
	// stored back costs a write barrier while the collector runs.
	if max(len(o.Route), len(o.Decision), len(o.State), len(o.Detail), len(o.Client),
		len(o.RequestID), len(o.Key), len(o.KeyHash), len(o.Scope), len(o.Fingerprint), len(o.ResultID),
		len(o.Message), len(o.Method), len(o.Labels), len(o.Process), len(o.AltRequestID), len(o.RetryMark), len(o.PreviousKey)) > MaxField || o.Workflow != nil {
		capFields(o)
	}
	if p.KeepRaw {
		p.out.Raw = append(p.out.Raw, p.raw)
	}
	p.countFormat(o.Format)
}

// MaxField bounds what one field may cost in memory; ids and keys longer
// than this are cut (and still compare equal if their first 1 KiB do).
const MaxField = 1024

// capFields cuts o's fields to MaxField.
func capFields(o *model.Observation) {
	o.Route = capLen(o.Route)
	o.Decision = capLen(o.Decision)
	o.State = capLen(o.State)
	o.Detail = capLen(o.Detail)
	o.Client = capLen(o.Client)
	o.Process = capLen(o.Process)
	o.RequestID = capLen(o.RequestID)
	o.AltRequestID = capLen(o.AltRequestID)
	o.Key = capLen(o.Key)
	o.KeyHash = capLen(o.KeyHash)
	o.Scope = capLen(o.Scope)
	o.Fingerprint = capLen(o.Fingerprint)
	o.ResultID = capLen(o.ResultID)
	if w := o.Workflow; w != nil {
		w.ID, w.RunID, w.ActivityID, w.ActivityType = capLen(w.ID), capLen(w.RunID), capLen(w.ActivityID), capLen(w.ActivityType)
	}
	o.Message = capLen(o.Message)
	o.Method = capLen(o.Method)
	o.Labels = capLen(o.Labels)
	o.RetryMark = capLen(o.RetryMark)
	o.PreviousKey = capLen(o.PreviousKey)
}

func capLen(s string) string {
	if len(s) > MaxField {
		return s[:MaxField]
	}
	return s
}

// keep returns a string of its own for s, shared for repeated values: the
// secret counts outlive the line their field names come from.
func (p *Parser) keep(s string) string {
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
func (p *Parser) scanSecrets(r *record, sh *shape) {
	for _, i := range sh.secrets {
		if present(r.val(i)) != "" {
			p.secret(r.keys[i])
		}
	}
	for _, i := range sh.headers {
		if v := r.val(i); v.IsObject() {
			p.scanHeaders(r.keys[i], v, 0)
		}
	}
	if sh.body != "" {
		p.secret(sh.body + " (request body)")
	}
}

func (p *Parser) scanHeaders(prefix string, v gjson.Result, depth int) {
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
				if (name == "cookies" || redact.IsSecretName(n)) && present(e.Get("value")) != "" {
					p.secret(prefix + "." + name + "." + strings.ToLower(n))
				}
				return true
			})
			return true
		}
		if redact.IsSecretName(name) && present(val) != "" {
			p.secret(prefix + "." + name)
		}
		return true
	})
}

func (p *Parser) secret(path string) {
	if p.out.Secrets == nil {
		p.out.Secrets = map[string]int{}
	}
	p.out.Secrets[p.keep(path)]++
}

// unwrapLine reads a line that followed a prefix, with the prefix's labels.
func (p *Parser) unwrapLine(line []byte, labels map[string]string, src model.Source) {
	saved := p.labels
	p.labels = mergeLabels(saved, labels)
	defer func() { p.labels = saved }()
	line = bytes.TrimSpace(line)
	switch {
	case len(line) == 0:
		p.out.Ignored++
	case line[0] == '{':
		if !p.rec.scanObject(line) {
			p.skip(src, "invalid JSON (truncated or malformed)")
			return
		}
		p.parseRecord(src)
	case p.parseText(line, src):
	default:
		p.out.Ignored++
		p.unwrappedUnread = true
	}
}

// forced is the format the input's config or flags name, if any.
func (p *Parser) forced() *format {
	if p.src == nil {
		return nil
	}
	return p.src.format
}
