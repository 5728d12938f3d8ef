// Package diagnose turns correlated intents into findings. Each rule is one
// row (or refinement) of the domain's diagnosis table: it has a stable ID,
// the four columns — symptom, hypothesis, check, bounded action — and a
// function that reads intents and returns findings with their evidence.
//
// Rules are conservative: a rule that lacks the evidence it needs says
// nothing rather than guessing, and the result names the tiers that were
// missing so the reader knows what could not be seen.
package diagnose

import (
	"cmp"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/idem-cli/idem/model"
)

// Severity orders findings.
type Severity int

// Severities, from least to most urgent.
const (
	Info Severity = iota
	Warning
	Critical
)

func (s Severity) String() string {
	switch s {
	case Critical:
		return "critical"
	case Warning:
		return "warning"
	}
	return "info"
}

// MarshalText renders a severity by name in JSON.
func (s Severity) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// ParseSeverity reads a --fail-on value.
func ParseSeverity(s string) (Severity, error) {
	switch s {
	case "info":
		return Info, nil
	case "warning":
		return Warning, nil
	case "critical":
		return Critical, nil
	}
	return Info, fmt.Errorf("invalid severity %q: want info, warning or critical", s)
}

// Rule is one entry of the catalog.
type Rule struct {
	ID         string
	Title      string
	Severity   Severity // the usual severity; a finding may differ
	Symptom    string
	Hypothesis string
	Check      string
	Action     string
	// Evidence says what the rule reads in the logs and when its severity
	// differs from the usual one; docs/rules.md prints it.
	Evidence string
	// Proof says what in the logs proves a finding of the rule, and
	// Inference when a finding is read from what they suggest instead
	// (Finding.Confidence); docs/rules.md prints both.
	Proof, Inference string
	// Example names the directory under fixtures/scenarios/ whose logs
	// show the rule firing; docs/rules.md quotes that finding.
	Example string
	// Needs names the tiers without which the rule cannot see its case.
	Needs []model.Tier
	// Hygiene marks a rule about how the logs are kept (secrets in them),
	// not about the incident: its findings do not fail --fail-on unless
	// asked to (--fail-on-hygiene).
	Hygiene bool
	// reads is what the rule needs to look (see look.go).
	reads []requirement
	run   func(c *context) []*Finding
}

// Finding is one diagnosis with its evidence.
type Finding struct {
	Rule      *Rule
	Severity  Severity
	Intents   []*model.Intent // the implicated intents, first is the main one
	Keys      []string
	Narrative string
	Evidence  []*model.Observation
	// Input names the source for findings about a file (secret-in-logs).
	Input string
	// Counts holds per-field counts (secret-in-logs).
	Counts map[string]int
	// Retries says who sent each retry of the finding's intents
	// (retries.go).
	Retries []Retry
	// Confidence says whether the logs show what the finding says or it
	// is inferred, from what, and what the logs lack.
	Confidence Confidence
}

// Confidence levels: what the logs show, and what is read from them.
const (
	Proven   = "proven"
	Inferred = "inferred"
)

// Confidence is how sure a finding is. A proven finding rests on what the
// logs show (two result ids first seen under one key, one payload's
// fingerprint under two keys); an inferred one on what they suggest, and
// it names what they lack that would prove it.
type Confidence struct {
	Level   string   `json:"level"`
	RestsOn []string `json:"rests_on,omitempty"`
	Lacks   []string `json:"lacks,omitempty"`
}

// inferred is the confidence of a finding read from what the logs
// suggest: what it rests on, and what they lack.
func inferred(restsOn []string, lacks ...string) Confidence {
	return Confidence{Level: Inferred, RestsOn: restsOn, Lacks: lacks}
}

// Summary says the confidence in a few words: "proven", "proven: rests
// on A", or "inferred: rests on A, B; lacks C".
func (c Confidence) Summary() string {
	s := Inferred
	if c.Level != Inferred {
		s, c.Lacks = Proven, nil
	}
	if len(c.RestsOn) > 0 {
		s += ": rests on " + strings.Join(c.RestsOn, ", ")
	}
	if len(c.Lacks) > 0 {
		if len(c.RestsOn) > 0 {
			s += ";"
		} else {
			s += ":"
		}
		s += " lacks " + strings.Join(c.Lacks, ", ")
	}
	return s
}

// Start is when the finding's first intent started (zero for file findings).
func (f *Finding) Start() time.Time {
	if len(f.Intents) == 0 {
		return time.Time{}
	}
	return f.Intents[0].Start()
}

// Options are the thresholds of the rules, with documented defaults.
type Options struct {
	// RetryWindow bounds how far apart two intents may start and still be
	// one user's retry (retry-new-key, unkeyed-retry).
	RetryWindow time.Duration
	// RetryBudget is how many deliveries one intent may take (retry-storm).
	RetryBudget int
	// Deadline is how long after its first delivery an intent may still be
	// retried (retry-storm).
	Deadline time.Duration
	// ReuseGap is how far apart two observations of one request id at one
	// tier may be before the id counts as reused (request-id-reused).
	ReuseGap time.Duration
}

// DefaultOptions are the documented defaults.
func DefaultOptions() Options {
	return Options{RetryWindow: 10 * time.Minute, RetryBudget: 5, Deadline: 60 * time.Second, ReuseGap: 5 * time.Minute}
}

// Result is what a diagnosis found.
type Result struct {
	Findings []*Finding
	// NotEvaluated lists the rules that could not look at these logs (see
	// look.go), in catalog order.
	NotEvaluated []NotEvaluated
	Summary      Summary
	set          *model.Set
	retries      []Retry // who sent each retry (retries.go)
}

// Inconclusive reports whether a rule that decides the verdict could not
// look: "no findings" is then not earned.
func (r *Result) Inconclusive() bool {
	for _, ne := range r.NotEvaluated {
		if ne.Rule.Decides() {
			return true
		}
	}
	return false
}

// Filter keeps the findings that pass fl, with the summary counted again
// over them so that it describes what is shown.
func (r *Result) Filter(fl Filter) *Result {
	kept := fl.Apply(r.Findings)
	var ne []NotEvaluated
	for _, n := range r.NotEvaluated {
		if len(fl.Rules) == 0 || slices.Contains(fl.Rules, n.Rule.ID) {
			ne = append(ne, n)
		}
	}
	out := &Result{Findings: kept, NotEvaluated: ne, Summary: r.Summary, set: r.set, retries: r.retries}
	windowed := !fl.Since.IsZero() || !fl.Until.IsZero()
	if r.set != nil && (len(kept) != len(r.Findings) || windowed) {
		out.Summary = summarise(r.set, kept)
		out.Summary.OwnTraffic = r.Summary.OwnTraffic
		// Who retried is counted over the logs, as the intents are.
		out.Summary.RetriesByLayer, out.Summary.DuplicatesByLayer = r.Summary.RetriesByLayer, r.Summary.DuplicatesByLayer
		// An intent whose findings the filters set aside was not found
		// healthy: it is counted apart.
		shown := map[string]bool{}
		for _, f := range kept {
			for _, in := range f.Intents {
				shown[in.ID] = true
			}
		}
		aside := map[string]bool{}
		for _, f := range r.Findings {
			for _, in := range f.Intents {
				if !shown[in.ID] {
					aside[in.ID] = true
				}
			}
		}
		// An intent outside --since/--until is out of the window: never
		// healthy. One with findings is set aside as above; one without
		// is counted here.
		outside := map[string]bool{}
		if windowed {
			for _, in := range r.set.Built {
				if st := in.Start(); !shown[in.ID] && !aside[in.ID] && !st.IsZero() && !fl.within(st) {
					outside[in.ID] = true
				}
			}
		}
		out.Summary.FilteredOut = len(aside)
		out.Summary.OutOfWindow = len(outside)
		// Summarise counted every intent no kept finding names healthy.
		out.Summary.Healthy -= len(aside) + len(outside)
		if counted := r.set.IntentCount() - len(r.set.Built); windowed && counted > 0 {
			// The intents only counted (plain answered requests) are not
			// dated one by one: where the lines' span is not wholly in the
			// window, they cannot be placed, and are not called healthy.
			if first, last := r.set.Span(); first.IsZero() || !fl.within(first) || !fl.within(last) {
				out.Summary.Unplaced = counted
				out.Summary.Healthy -= counted
			}
		}
	}
	out.Summary.NotEvaluated, out.Summary.Inconclusive = len(ne), out.Inconclusive()
	return out
}

// Summary counts what was read and what was found.
type Summary struct {
	Inputs       int `json:"inputs"`
	Lines        int `json:"lines"`
	Skipped      int `json:"skipped"`
	Ignored      int `json:"ignored"` // lines read that say nothing about a request
	Observations int `json:"observations"`
	Deliveries   int `json:"deliveries"`
	Unkeyed      int `json:"unkeyed_deliveries"`
	Intents      int `json:"intents"`
	Healthy      int `json:"healthy"`
	WithFindings int `json:"with_findings"`
	// FilteredOut counts the intents with findings that the filters set
	// aside: neither shown nor healthy.
	FilteredOut int `json:"filtered_out,omitempty"`
	// OutOfWindow counts the built intents without findings that started
	// outside --since/--until (those with findings are FilteredOut):
	// neither shown nor healthy. Unplaced counts the
	// intents only counted (plain answered requests, not dated one by
	// one) when the window does not hold all the lines: neither either.
	OutOfWindow int `json:"out_of_window,omitempty"`
	Unplaced    int `json:"unplaced_intents,omitempty"`
	Findings    int `json:"findings"`
	Critical    int `json:"critical"`
	Warning     int `json:"warning"`
	Info        int `json:"info"`
	// ByRule counts the findings of each rule that made any.
	ByRule       map[string]int `json:"by_rule"`
	Tiers        []string       `json:"tiers"`
	MissingTiers []string       `json:"missing_tiers"`
	// Idless counts, by tier, the request lines that carried neither a
	// request id nor a key and could not be joined (a proxy's and a
	// server's write that match one each way are one unkeyed delivery):
	// the report says how to make that tier log them.
	Idless map[string]int `json:"lines_without_ids,omitempty"`
	// OwnTraffic counts the deliveries idem replay and its probes sent,
	// which the rules do not diagnose.
	OwnTraffic int `json:"idem_traffic_deliveries,omitempty"`
	// NotEvaluated counts the rules that could not look at these logs;
	// Inconclusive says one of them decides the verdict (exit 3).
	NotEvaluated int  `json:"rules_not_evaluated"`
	Inconclusive bool `json:"inconclusive"`
	// RetriesByLayer counts the retries (every delivery of an intent
	// after its first, and a proxy's own second attempt) by the layer
	// that sent them; DuplicatesByLayer those of them that made an
	// effect beside an earlier one: what to fix, at a glance.
	RetriesByLayer    map[string]int `json:"retries_by_layer,omitempty"`
	DuplicatesByLayer map[string]int `json:"duplicates_by_layer,omitempty"`
}

// context is what a rule reads.
type context struct {
	set  *model.Set
	opts Options
	// effectInputs are the inputs that logged an effect line; when there
	// are none, rules count a server's 2xx answer to a write as its effect.
	effectInputs map[string]bool
	// firstSeen says, for each tier and result id an effect line names,
	// the delivery where it was first seen: a later line naming it (a
	// replay's, or a second key's answer with the old order) is that
	// effect again, not a new one.
	firstSeen map[resultAt]*model.Delivery
	// newKey is retry-new-key's findings, worked out once: response-lost
	// reads which intents they tie into a duplicate.
	newKeyOnce sync.Once
	newKey     []*Finding
	duplicated map[string]bool // intent IDs a retry-new-key finding names
}

// newKeyFindings are retry-new-key's findings, worked out once.
func (c *context) newKeyFindings() []*Finding {
	c.newKeyOnce.Do(func() {
		c.newKey = findNewKey(c)
		c.duplicated = map[string]bool{}
		for _, f := range c.newKey {
			for _, in := range f.Intents {
				c.duplicated[in.ID] = true
			}
		}
	})
	return c.newKey
}

// inDuplicate reports whether a retry under a new key ties the intent
// into a duplicate.
func (c *context) inDuplicate(in *model.Intent) bool {
	c.newKeyFindings()
	return c.duplicated[in.ID]
}

// Run applies every rule to the set.
func Run(set *model.Set, opts Options) *Result {
	def := DefaultOptions()
	if opts.RetryWindow <= 0 {
		opts.RetryWindow = def.RetryWindow
	}
	if opts.RetryBudget <= 0 {
		opts.RetryBudget = def.RetryBudget
	}
	if opts.Deadline <= 0 {
		opts.Deadline = def.Deadline
	}
	if opts.ReuseGap <= 0 {
		opts.ReuseGap = def.ReuseGap
	}
	whole := set
	set, own := withoutOwnTraffic(set)
	c := &context{set: set, opts: opts}
	c.effectInputs, c.firstSeen = effectIndex(set)
	// The rules only read the set, so they run side by side; their
	// findings are gathered in catalog order, then sorted.
	rules := Rules()
	found := make([][]*Finding, len(rules))
	var wg sync.WaitGroup
	// Who sent each retry is worked out beside the rules: it reads the
	// set only, and takes as long as the longest of them.
	var retries []Retry
	wg.Go(func() { retries = attribute(c) })
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	for i, r := range rules {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			found[i] = r.run(c)
		}()
	}
	wg.Wait()
	// The keys of the findings that name none are their intents', in one
	// array for all of them.
	total, nkeys := 0, 0
	for _, fs := range found {
		total += len(fs)
		for _, f := range fs {
			if len(f.Keys) == 0 {
				nkeys += len(f.Intents)
			}
		}
	}
	var findings []*Finding // nil when there are none, as before
	if total > 0 {
		findings = make([]*Finding, 0, total)
	}
	keys := make([]string, 0, nkeys)
	for i, r := range rules {
		for _, f := range found[i] {
			f.Rule = r
			if f.Confidence.Level == "" {
				f.Confidence.Level = Proven
			}
			if len(f.Keys) == 0 && len(f.Intents) > 0 {
				from := len(keys)
				for _, in := range f.Intents {
					keys = append(keys, in.Key)
				}
				f.Keys = keys[from:len(keys):len(keys)]
			}
			findings = append(findings, f)
		}
	}
	// Each finding's start is worked out once, not at every comparison of
	// a sort of tens of thousands; its keys are compared as they read
	// joined by commas, without joining them.
	type sortable struct {
		f     *Finding
		start time.Time
	}
	all := make([]sortable, len(findings))
	for i, f := range findings {
		all[i] = sortable{f, f.Start()}
	}
	// The summary counts the findings in any order, and the retries are
	// attached to them in any order: both are done while they are sorted,
	// on the other core (the sort reads none of what they write).
	var sum Summary
	var summarised sync.WaitGroup
	summarised.Go(func() { sum = summarise(whole, findings) })
	summarised.Go(func() { attachRetries(findings, retries) })
	slices.SortStableFunc(all, func(a, b sortable) int {
		if a.f.Severity != b.f.Severity {
			return cmp.Compare(b.f.Severity, a.f.Severity)
		}
		if c := a.start.Compare(b.start); c != 0 {
			return c
		}
		if a.f.Rule.ID != b.f.Rule.ID {
			return strings.Compare(a.f.Rule.ID, b.f.Rule.ID)
		}
		return compareJoined(a.f.Keys, b.f.Keys)
	})
	summarised.Wait()
	countRetries(&sum, retries)
	for i := range all {
		findings[i] = all[i].f
	}
	sum.OwnTraffic = own
	res := &Result{Findings: findings, NotEvaluated: notEvaluated(set, findings), Summary: sum, set: whole, retries: retries}
	res.Summary.NotEvaluated, res.Summary.Inconclusive = len(res.NotEvaluated), res.Inconclusive()
	return res
}

// compareJoined is strings.Compare(strings.Join(a, ","), strings.Join(b, ",")).
func compareJoined(a, b []string) int {
	x, y := joined{list: a}, joined{list: b}
	for {
		c, okc := x.next()
		d, okd := y.next()
		switch {
		case !okc && !okd:
			return 0
		case !okc:
			return -1
		case !okd:
			return 1
		case c != d:
			return cmp.Compare(c, d)
		}
	}
}

// joined reads the bytes of a list joined by commas.
type joined struct {
	list []string
	i, p int // the element, and the byte in it
}

func (j *joined) next() (byte, bool) {
	if j.i >= len(j.list) {
		return 0, false
	}
	if s := j.list[j.i]; j.p < len(s) {
		j.p++
		return s[j.p-1], true
	}
	j.i, j.p = j.i+1, 0
	if j.i == len(j.list) {
		return 0, false
	}
	return ',', true
}

// resultAt is a result id as one tier names it.
type resultAt struct {
	tier model.Tier
	id   string
}

// effectIndex lists the inputs that logged an effect line at the server
// or worker tiers (a provider's or a client's record of an effect does not
// say whether the server logs its own: only theirs counts there), and the
// delivery where each tier's result id was first seen: by an effect line,
// or, for a result no effect line names, by a server's 2xx naming it (an
// access line is dated when its request began, so it never outranks an
// effect line). The earliest wins; the set's order where times tie or are
// missing.
func effectIndex(set *model.Set) (map[string]bool, map[resultAt]*model.Delivery) {
	inputs := map[string]bool{}
	effect, answer := map[resultAt]*model.Delivery{}, map[resultAt]*model.Delivery{}
	when := map[resultAt]time.Time{}
	ansWhen := map[resultAt]time.Time{}
	earliest := func(m map[resultAt]*model.Delivery, w map[resultAt]time.Time, k resultAt, d *model.Delivery, t time.Time) {
		if at, ok := w[k]; !ok || !t.IsZero() && (at.IsZero() || t.Before(at)) {
			m[k], w[k] = d, t
		}
	}
	own := func(d *model.Delivery, obs []*model.Observation) {
		for _, o := range obs {
			if o.Tier == model.TierProvider || o.Tier == model.TierClient {
				continue
			}
			if o.Effect {
				inputs[o.Source.File] = true
			}
			if o.ResultID == "" || d == nil {
				continue
			}
			k := resultAt{o.Tier, o.ResultID}
			switch {
			case o.Effect:
				earliest(effect, when, k, d, o.Time)
			case o.Tier == model.TierServer && o.Status >= 200 && o.Status < 300:
				earliest(answer, ansWhen, k, d, o.Time)
			}
		}
	}
	for _, in := range set.Built {
		for _, d := range in.Deliveries {
			own(d, d.Observations)
		}
	}
	for _, d := range set.Unkeyed {
		own(d, d.Observations)
	}
	own(nil, set.Orphans)
	for k, d := range answer {
		if _, ok := effect[k]; !ok {
			effect[k] = d
		}
	}
	return inputs, effect
}

// summarise counts what was read and what was found, so that the counts
// add up: every finding is counted once by severity and once by rule, and
// every intent is either with findings (named by one, at any severity) or
// without.
func summarise(set *model.Set, findings []*Finding) Summary {
	s := Summary{Inputs: len(set.Inputs), Intents: set.IntentCount(), Unkeyed: set.UnkeyedCount(), Findings: len(findings),
		Deliveries: set.DeliveryCount(), ByRule: map[string]int{}}
	for _, in := range set.Inputs {
		s.Lines += in.Lines
		s.Skipped += in.Skipped
		s.Ignored += in.Ignored
		s.Observations += in.Observations
	}
	for t, n := range set.Idless {
		if s.Idless == nil {
			s.Idless = map[string]int{}
		}
		s.Idless[t.String()] = n
	}
	flagged := make(map[string]bool, len(findings))
	for _, f := range findings {
		s.ByRule[f.Rule.ID]++
		switch f.Severity {
		case Critical:
			s.Critical++
		case Warning:
			s.Warning++
		default:
			s.Info++
		}
		for _, in := range f.Intents {
			flagged[in.ID] = true // by ID: the rules may see a copy (own traffic left out)
		}
	}
	// Intents that were only counted had nothing for a rule to see.
	s.WithFindings = len(flagged)
	s.Healthy = s.Intents - s.WithFindings
	for t := model.TierClient; t <= model.TierProvider; t++ {
		if set.Tiers[t] {
			s.Tiers = append(s.Tiers, t.String())
		} else if t != model.TierProvider && t != model.TierWorker {
			// Workers and providers exist only in some systems; their
			// absence is not a gap in the evidence.
			s.MissingTiers = append(s.MissingTiers, t.String())
		}
	}
	if s.Tiers == nil {
		s.Tiers = []string{}
	}
	if s.MissingTiers == nil {
		s.MissingTiers = []string{}
	}
	return s
}

// Filter keeps the findings that match every given criterion.
type Filter struct {
	Keys  []string
	Rules []string
	Tier  model.Tier
	Since time.Time
	Until time.Time
}

// none reports whether the filter asks for nothing: a field added to
// Filter is added here too.
func (fl Filter) none() bool {
	return len(fl.Rules) == 0 && len(fl.Keys) == 0 && fl.Tier == model.TierUnknown && fl.Since.IsZero() && fl.Until.IsZero()
}

// Apply returns the findings that pass the filter: findings itself when
// the filter asks for nothing.
func (fl Filter) Apply(findings []*Finding) []*Finding {
	if fl.none() {
		return findings
	}
	var out []*Finding
	for _, f := range findings {
		if len(fl.Rules) > 0 && !slices.Contains(fl.Rules, f.Rule.ID) {
			continue
		}
		if len(fl.Keys) > 0 && !anyKey(fl.Keys, f.Keys) {
			continue
		}
		if fl.Tier != model.TierUnknown && !hasTier(f.Evidence, fl.Tier) {
			continue
		}
		if st := f.Start(); !st.IsZero() {
			if !fl.Since.IsZero() && st.Before(fl.Since) {
				continue
			}
			if !fl.Until.IsZero() && st.After(fl.Until) {
				continue
			}
		}
		out = append(out, f)
	}
	return out
}

// within reports whether t falls in the filter's time window.
func (fl Filter) within(t time.Time) bool {
	return (fl.Since.IsZero() || !t.Before(fl.Since)) && (fl.Until.IsZero() || !t.After(fl.Until))
}

func anyKey(want, have []string) bool {
	for _, w := range want {
		w = model.NormalizeKey(w)
		for _, h := range have {
			// The key as given or as a hash, against a raw key or a
			// hash-only one: --key sha256:… finds the raw key's intent.
			if h == w || h == "hash:"+w || h == "hash:"+model.HashKey(w) || model.HashKey(h) == w {
				return true
			}
		}
	}
	return false
}

func hasTier(obs []*model.Observation, t model.Tier) bool {
	for _, o := range obs {
		if o.Tier == t {
			return true
		}
	}
	return false
}

// Rules returns the catalog in its documented order.
func Rules() []*Rule { return catalog }

// RuleByID finds a rule.
func RuleByID(id string) *Rule {
	for _, r := range catalog {
		if r.ID == id {
			return r
		}
	}
	return nil
}
