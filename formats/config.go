package formats

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/idem-cli/idem/model"
)

// Config holds the overrides a user keeps in a file (--config): per source,
// its tier, format and field mappings; the scope of keys; what counts as an
// effect. It is JSON; docs/config.md documents every entry.
type Config struct {
	Sources []SourceConfig `json:"sources"`
	// Scope lists gjson paths whose values, with the key, identify an
	// intent (for example a tenant or account id). "method" and "route"
	// name the request's method and route.
	Scope []string `json:"scope"`
	// Effect marks lines as business effects in every source.
	Effect *effectConfig `json:"effect"`
	// Tiers maps a label value of a log aggregator's export (a service,
	// app or container name) to the tier that wrote the line.
	Tiers map[string]string `json:"tiers"`
	// Patterns read text lines with named-group regular expressions; the
	// group names are the fields of "fields" (time, request_id, key,
	// method, route, status, ...).
	Patterns []PatternConfig `json:"patterns"`

	compiled   []*SourceRule
	effect     *effectRule
	tierLabels map[string]model.Tier
	patterns   []*textPattern
}

// PatternConfig is a custom text format.
type PatternConfig struct {
	Name  string `json:"name"`
	Tier  string `json:"tier"`
	Regex string `json:"regex"`
}

type textPattern struct {
	name string
	tier model.Tier
	re   *regexp.Regexp
}

// SourceConfig applies to the inputs whose path matches Path (a glob
// matched against the whole path and against the base name).
type SourceConfig struct {
	Path   string            `json:"path"`
	Tier   string            `json:"tier"`
	Format string            `json:"format"`
	Fields map[string]string `json:"fields"`
	Effect *effectConfig     `json:"effect"`
	// Captures names HAProxy's captured request headers in the order the
	// config captures them ("Host", "X-Request-Id", "Idempotency-Key").
	Captures []string `json:"captures"`
	// LogFormat is the proxy's own format string, as its configuration
	// has it (nginx's log_format, Apache's LogFormat, Tomcat's pattern,
	// HAProxy's log-format, Envoy's format or json_format): the source's
	// lines are read by it, exactly. LogFormatSyntax names its language
	// where the string does not say it.
	LogFormat       string `json:"log_format"`
	LogFormatSyntax string `json:"log_format_syntax"`
}

// effectConfig recognises effect lines: a regular expression on the
// message, and optionally a field (gjson path) that must be present and
// becomes the result id.
type effectConfig struct {
	Message string `json:"message"`
	Field   string `json:"field"`
}

type effectRule struct {
	msg   *regexp.Regexp
	field string
}

type SourceRule struct {
	glob    string
	tier    model.Tier
	tierSet bool
	format  *format
	fields  map[string]string
	effect  *effectRule
	// captures names HAProxy's request header captures, lower-cased.
	captures []string
	// logFormat, when set, reads every line of the source.
	logFormat *logFormat
}

// configError is a problem in the configuration file or flags.
type configError struct {
	Path string
	Err  error
}

func (e *configError) Error() string {
	if e.Path == "" {
		return e.Err.Error()
	}
	return fmt.Sprintf("config %s: %v", e.Path, e.Err)
}
func (e *configError) Unwrap() error { return e.Err }

// LoadConfig reads a configuration file.
func LoadConfig(path string) (*Config, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, &configError{Path: path, Err: err}
	}
	var c Config
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		return nil, &configError{Path: path, Err: fmt.Errorf("invalid JSON: %w", err)}
	}
	if err := c.Compile(); err != nil {
		return nil, &configError{Path: path, Err: err}
	}
	return &c, nil
}

// upstreamStatuses reads $upstream_status: the last upstream's status,
// and how many were tried where several were.
func upstreamStatuses(v string) (int, int) {
	status, _ := intValue(v)
	return status, upstreamTries(v)
}

// triesCount reads a proxy's count of upstream attempts: 0 for one, as
// Observation.UpstreamTries keeps it.
func triesCount(v string) int {
	if n, _ := intValue(v); n > 1 {
		return n
	}
	return 0
}

// mappable names the Observation fields a config may map to a gjson path.
var mappable = map[string]func(o *model.Observation, v string){
	"time":            func(o *model.Observation, v string) { o.Time, _ = model.ParseTime(v) },
	"request_id":      func(o *model.Observation, v string) { o.RequestID = v },
	"alt_request_id":  func(o *model.Observation, v string) { o.AltRequestID = v },
	"key":             func(o *model.Observation, v string) { o.Key = model.NormalizeKey(v) },
	"key_hash":        func(o *model.Observation, v string) { o.KeyHash = v },
	"previous_key":    func(o *model.Observation, v string) { o.PreviousKey = model.NormalizeKey(v) },
	"method":          func(o *model.Observation, v string) { o.Method = httpMethod(v) },
	"route":           func(o *model.Observation, v string) { o.Route = routePath(v) },
	"status":          func(o *model.Observation, v string) { o.Status, _ = intValue(v) },
	"decision":        func(o *model.Observation, v string) { o.Decision = strings.ToLower(v) },
	"state":           func(o *model.Observation, v string) { o.State = strings.ToLower(v) },
	"fingerprint":     func(o *model.Observation, v string) { o.Fingerprint = v },
	"result_id":       func(o *model.Observation, v string) { o.ResultID = v },
	"attempt":         func(o *model.Observation, v string) { o.Attempt, _ = intValue(v) },
	"message":         func(o *model.Observation, v string) { o.Message = v },
	"client":          func(o *model.Observation, v string) { o.Client = v },
	"process":         func(o *model.Observation, v string) { o.Process = v }, // who wrote the line: a pid, a host/pid
	"workflow_id":     func(o *model.Observation, v string) { workflow(o, v).ID = v },
	"activity_id":     func(o *model.Observation, v string) { workflow(o, v).ActivityID = v },
	"activity_type":   func(o *model.Observation, v string) { workflow(o, v).ActivityType = v },
	"duration_ms":     func(o *model.Observation, v string) { o.Duration, _ = model.ParseDuration(v, model.Milliseconds) },
	"outcome":         func(o *model.Observation, v string) { o.Outcome = model.ParseOutcome(v) },
	"upstream_status": func(o *model.Observation, v string) { o.UpstreamStatus, o.UpstreamTries = upstreamStatuses(v) },
	"upstream_tries":  func(o *model.Observation, v string) { o.UpstreamTries = triesCount(v) },
	"detail":          func(o *model.Observation, v string) { o.Detail = v },
	"run_id":          func(o *model.Observation, v string) { workflow(o, v).RunID = v },
	// A trace id names the delivery ("trace:<id>") where no request id does.
	"trace_id": func(o *model.Observation, v string) {
		if o.RequestID == "" || strings.HasPrefix(o.RequestID, "trace:") {
			o.RequestID = traceDelivery(v)
		}
	},
}

// mappableFields lists the names a config's "fields" may use.
func mappableFields() []string {
	var out []string
	for k := range mappable {
		out = append(out, k)
	}
	return out
}

// Compile checks the configuration and prepares it for use.
func (c *Config) Compile() error {
	c.compiled = nil
	for i, s := range c.Sources {
		r := &SourceRule{glob: s.Path, fields: s.Fields}
		for _, c := range s.Captures {
			r.captures = append(r.captures, strings.ToLower(strings.TrimSpace(c)))
		}
		if s.Path == "" {
			return fmt.Errorf("sources[%d]: path is required (use \"*\" for every input)", i)
		}
		if _, err := filepath.Match(s.Path, ""); err != nil {
			return fmt.Errorf("sources[%d]: bad path pattern %q: %w", i, s.Path, err)
		}
		if s.Tier != "" {
			t, err := model.ParseTier(s.Tier)
			if err != nil {
				return fmt.Errorf("sources[%d]: %w", i, err)
			}
			r.tier, r.tierSet = t, true
		}
		if s.Format != "" {
			f, err := lookup(s.Format)
			if err != nil {
				return fmt.Errorf("sources[%d]: %w", i, err)
			}
			r.format = f
		}
		if s.LogFormat != "" {
			if s.Format != "" {
				return fmt.Errorf("sources[%d]: give format or log_format, not both", i)
			}
			lf, err := compileLogFormat(s.LogFormat, s.LogFormatSyntax, s.Captures)
			if err != nil {
				return fmt.Errorf("sources[%d]: %w", i, err)
			}
			r.logFormat = lf
		} else if s.LogFormatSyntax != "" {
			return fmt.Errorf("sources[%d]: log_format_syntax without a log_format", i)
		}
		for name := range s.Fields {
			if _, ok := mappable[name]; !ok {
				return fmt.Errorf("sources[%d]: unknown field %q in fields", i, name)
			}
		}
		if s.Effect != nil {
			e, err := compileEffect(s.Effect)
			if err != nil {
				return fmt.Errorf("sources[%d]: %w", i, err)
			}
			r.effect = e
		}
		c.compiled = append(c.compiled, r)
	}
	if c.Effect != nil {
		e, err := compileEffect(c.Effect)
		if err != nil {
			return err
		}
		c.effect = e
	}
	c.tierLabels = map[string]model.Tier{}
	for label, tier := range c.Tiers {
		t, err := model.ParseTier(tier)
		if err != nil {
			return fmt.Errorf("tiers[%q]: %w", label, err)
		}
		c.tierLabels[strings.ToLower(label)] = t
	}
	c.patterns = nil
	for i, pc := range c.Patterns {
		re, err := regexp.Compile(pc.Regex)
		if err != nil {
			return fmt.Errorf("patterns[%d]: bad regex: %w", i, err)
		}
		named := false
		for _, n := range re.SubexpNames() {
			if n == "" {
				continue
			}
			if _, ok := mappable[n]; !ok {
				return fmt.Errorf("patterns[%d]: group %q is not a field (known: %s)", i, n, strings.Join(sortedFields(), ", "))
			}
			named = true
		}
		if !named {
			return fmt.Errorf("patterns[%d]: the regex names no field with (?P<name>...)", i)
		}
		tier := model.TierProxy
		if pc.Tier != "" {
			if tier, err = model.ParseTier(pc.Tier); err != nil {
				return fmt.Errorf("patterns[%d]: %w", i, err)
			}
		}
		name := pc.Name
		if name == "" {
			name = fmt.Sprintf("pattern-%d", i)
		}
		c.patterns = append(c.patterns, &textPattern{name: name, tier: tier, re: re})
	}
	return nil
}

func sortedFields() []string {
	f := mappableFields()
	sort.Strings(f)
	return f
}

func compileEffect(e *effectConfig) (*effectRule, error) {
	if e.Message == "" && e.Field == "" {
		return nil, errors.New("effect: give a message pattern, a field, or both")
	}
	r := &effectRule{field: e.Field}
	if e.Message != "" {
		re, err := regexp.Compile(e.Message)
		if err != nil {
			return nil, fmt.Errorf("effect: bad message pattern: %w", err)
		}
		r.msg = re
	}
	return r, nil
}

// ruleFor merges the rules whose pattern matches path, later ones winning,
// with the command-line overrides (tier, format) applied last.
func (c *Config) RuleFor(path string, tier model.Tier, formatName string) (*SourceRule, error) {
	var out *SourceRule
	merge := func(r *SourceRule) {
		if out == nil {
			out = &SourceRule{fields: map[string]string{}}
		}
		if r.tierSet {
			out.tier, out.tierSet = r.tier, true
		}
		// The later of a format and a log_format wins.
		if r.format != nil {
			out.format, out.logFormat = r.format, nil
		}
		if r.logFormat != nil {
			out.format, out.logFormat = nil, r.logFormat
		}
		for k, v := range r.fields {
			out.fields[k] = v
		}
		if r.effect != nil {
			out.effect = r.effect
		}
		if r.captures != nil {
			out.captures = r.captures
		}
	}
	if c != nil {
		for _, r := range c.compiled {
			if m, _ := filepath.Match(r.glob, path); m {
				merge(r)
			} else if m, _ := filepath.Match(r.glob, filepath.Base(path)); m {
				merge(r)
			}
		}
	}
	if tier != model.TierUnknown {
		merge(&SourceRule{tier: tier, tierSet: true})
	}
	if formatName != "" {
		f, err := lookup(formatName)
		if err != nil {
			return nil, &configError{Err: err}
		}
		merge(&SourceRule{format: f})
	}
	return out, nil
}

// apply maps configured fields onto o; it reports whether it set any.
func (s *SourceRule) apply(r *record, o *model.Observation) bool {
	set := false
	for name, path := range s.fields {
		if v := present(r.path(path)); v != "" {
			mappable[name](o, v)
			set = true
		}
	}
	if s.effect != nil && s.effect.match(r, o) {
		set = true
	}
	return set
}

func (e *effectRule) match(r *record, o *model.Observation) bool {
	if e.msg != nil && !e.msg.MatchString(o.Message) {
		return false
	}
	if e.field != "" {
		v := present(r.path(e.field))
		if v == "" {
			return false
		}
		o.ResultID = v
	}
	o.Effect = true
	return true
}

func (c *Config) applyEffect(o *model.Observation) {
	if c.effect == nil || o.Effect {
		return
	}
	if c.effect.msg != nil && c.effect.msg.MatchString(o.Message) && (c.effect.field == "" || o.ResultID != "") {
		o.Effect = true
	}
}

// scopeOf computes the extra scope values of an observation's line.
func (c *Config) scopeOf(r *record, o *model.Observation) string {
	if c == nil || len(c.Scope) == 0 {
		return ""
	}
	var parts []string
	for _, s := range c.Scope {
		switch s {
		case "method", "route":
			continue // taken from the delivery when intents are formed
		default:
			if v := present(r.path(s)); v != "" {
				parts = append(parts, s+"="+v)
			}
		}
	}
	return strings.Join(parts, ",")
}

// workflow is where a mapped value of o's Workflow goes: o's own, made
// only for a value (a line that names no workflow has none), else a
// scratch one that is dropped.
func workflow(o *model.Observation, v string) *model.Workflow {
	if v == "" {
		return &model.Workflow{}
	}
	return o.Work()
}
