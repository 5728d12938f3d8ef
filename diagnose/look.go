package diagnose

import (
	"strings"

	"github.com/idem-cli/idem/model"
)

// What a rule needs to look. A rule finds nothing both when nothing
// happened and when the logs could not show it; only the first earns "No
// findings". Each rule lists what it reads (requirement), the set says
// which inputs supplied which fields at which tiers (model.Set.Supplies),
// and a rule whose requirements are not all met, and that found nothing,
// is reported as not evaluated: the rule, why, and what to log.
//
// Rules about the worker or provider tiers are not evaluated only where
// those tiers are logged: most systems have neither, and their absence is
// no gap in the evidence of the others. Every other rule but the hygiene
// ones decides the verdict: a run where one of them could not look is
// inconclusive (exit 3) unless a finding already fails it.

// requirement is one piece of evidence a rule reads.
type requirement struct {
	what string // what the rule reads, for its documentation
	why  string // why the rule could not look, when it is missing
	log  string // what to log to make it decidable
	met  func(s *model.Set) bool
}

// NotEvaluated is a rule that could not look at these logs.
type NotEvaluated struct {
	Rule *Rule
	Why  string // what was missing
	Log  string // what to log to make the rule decidable
}

// Decides reports whether the rule's verdict counts: whether a run where
// it could not look is inconclusive. An optional rule whose tier is not
// logged is not listed at all (couldNotLook).
func (r *Rule) Decides() bool { return !r.Hygiene }

// optional reports whether the rule reads a tier most systems do not
// have: it is not evaluated only where that tier is logged.
func (r *Rule) optional() bool {
	for _, t := range r.Needs {
		if t == model.TierWorker || t == model.TierProvider {
			return true
		}
	}
	return false
}

// Reads lists what the rule needs to look beside its tiers (Needs), for
// its documentation.
func (r *Rule) Reads() []string {
	var out []string
	for _, q := range r.reads {
		out = append(out, q.what)
	}
	return out
}

// requirements are the tiers the rule needs, then what else it reads.
func (r *Rule) requirements() []requirement {
	var out []requirement
	for _, t := range r.Needs {
		out = append(out, needTier(t))
	}
	return append(out, r.reads...)
}

// couldNotLook says why the rule could not look at set, or nil when it
// could (or, for an optional rule, when its tier is not there to look at).
func (r *Rule) couldNotLook(set *model.Set) *NotEvaluated {
	if r.optional() {
		for _, t := range r.Needs {
			if !set.Tiers[t] {
				return nil
			}
		}
	}
	// A missing tier says it all: what its lines would carry is missing
	// too.
	reqs := r.requirements()
	for _, t := range r.Needs {
		if !set.Tiers[t] {
			reqs = reqs[:len(r.Needs)]
			break
		}
	}
	var why, log []string
	for _, q := range reqs {
		if !q.met(set) {
			why = append(why, q.why)
			if !strings.Contains(strings.Join(log, "; "), q.log) {
				log = append(log, q.log)
			}
		}
	}
	if len(why) == 0 {
		return nil
	}
	return &NotEvaluated{Rule: r, Why: strings.Join(why, "; "), Log: strings.Join(log, "; ")}
}

// notEvaluated lists, in catalog order, the rules that could not look at
// set and found nothing: a rule that found something looked.
func notEvaluated(set *model.Set, findings []*Finding) []NotEvaluated {
	found := map[*Rule]bool{}
	for _, f := range findings {
		found[f.Rule] = true
	}
	var out []NotEvaluated
	for _, r := range catalog {
		if found[r] {
			continue
		}
		if ne := r.couldNotLook(set); ne != nil {
			out = append(out, *ne)
		}
	}
	return out
}

// The tiers' logs, as a rule asks for them.
var tierLog = map[model.Tier]string{
	model.TierClient:   "a browser HAR (or the client's log) of the requests",
	model.TierProxy:    "the proxy's access log, set up as 'idem help formats' says",
	model.TierServer:   "the server's log of each request: request id, key, status, result id and effects (docs/log-schema.md)",
	model.TierWorker:   "the worker's log (Temporal's activity lines)",
	model.TierProvider: "the egress proxy's or provider's log of the calls out",
}

// needTier is the lines of one tier.
func needTier(t model.Tier) requirement {
	return requirement{
		what: "the " + t.String() + " tier's lines",
		why:  "no input holds the " + t.String() + " tier's lines",
		log:  tierLog[t],
		met:  func(s *model.Set) bool { return s.Tiers[t] },
	}
}

// The requirements the rules share.
var (
	needKeys = requirement{
		what: "keys (an Idempotency-Key, raw or hashed, at some tier)",
		why:  "no line carries an Idempotency-Key or its hash, so no intent could be formed",
		log:  "the Idempotency-Key (or its hash) at the proxy and the server",
		met:  func(s *model.Set) bool { return s.Supplied(model.TierUnknown, model.FieldKey) },
	}
	needRequestIDs = requirement{
		what: "request ids",
		why:  "no line carries a request id",
		log:  "a request id per delivery ($request_id passed on as X-Request-Id)",
		met:  func(s *model.Set) bool { return s.Supplied(model.TierUnknown, model.FieldRequestID) },
	}
	needPayloads = requirement{
		what: "payload fingerprints (logged, or computed from a HAR's bodies)",
		why:  "no tier logged a payload fingerprint or a body, so two payloads cannot be compared",
		log:  "a fingerprint of the significant payload at the server (docs/log-schema.md), or a HAR with its bodies",
		met:  func(s *model.Set) bool { return s.Supplied(model.TierUnknown, model.FieldFingerprint) },
	}
	// needEffects is what effects are counted from: effect lines or
	// result ids, or a server's statuses (a 2xx to a write).
	needEffects = requirement{
		what: "the server's effects (effect lines, result ids, or its statuses)",
		why:  "the server's lines say neither what it answered nor what it made",
		log:  "the status the server answered and a line per effect with its result id",
		met: func(s *model.Set) bool {
			return s.Supplied(model.TierServer, model.FieldStatus) || s.Supplied(model.TierServer, model.FieldEffect) ||
				s.Supplied(model.TierServer, model.FieldResult)
		},
	}
	needServerAnswers = requirement{
		what: "the server's answers (statuses or dedup decisions)",
		why:  "the server's lines say neither its statuses nor its dedup decisions",
		log:  "the status the server answered, and its dedup decision (new, replay, conflict, in_progress)",
		met: func(s *model.Set) bool {
			return s.Supplied(model.TierServer, model.FieldStatus) || s.Supplied(model.TierServer, model.FieldDecision)
		},
	}
	// needLossWitness is a tier that sees a response go missing: the
	// client, or a proxy between it and the server.
	needLossWitness = requirement{
		what: "a client or proxy tier, which sees a response go missing",
		why:  "no client or proxy log, so no tier could see a response go missing",
		log:  tierLog[model.TierProxy] + ", or a HAR",
		met: func(s *model.Set) bool {
			return s.Supplied(model.TierClient, model.FieldStatus) || s.Supplied(model.TierProxy, model.FieldStatus)
		},
	}
	// needJoin is the outer tier's lines and the server's sharing an id:
	// request ids at both, or keys at both (joined by key, method, route
	// and time).
	needJoin = requirement{
		what: "ids that join the client or proxy lines to the server's (request ids, or keys, at both)",
		why:  "the client or proxy lines and the server's share neither request ids nor keys, so a trip's tiers cannot be joined",
		log:  "the same request id at the proxy and the server ($request_id passed on as X-Request-Id), or the key at both",
		met: func(s *model.Set) bool {
			if !needLossWitness.met(s) {
				return true // no outer tier to join: needLossWitness says so
			}
			for _, t := range []model.Tier{model.TierClient, model.TierProxy} {
				for _, f := range []model.Field{model.FieldRequestID, model.FieldKey} {
					if s.Supplied(t, f) && s.Supplied(model.TierServer, f) {
						return true
					}
				}
			}
			return false
		},
	}
	needPreciseServer = requirement{
		what: "server times finer than the second",
		why:  "the server's log writes its times to the second, too coarse to tell overlapping deliveries from sequential ones",
		log:  "times to the millisecond at the server (RFC 3339 with a fraction)",
		met:  func(s *model.Set) bool { return s.Supplied(model.TierServer, model.FieldPrecise) },
	}
	needProxyServerIDs = requirement{
		what: "request ids and keys at both the proxy and the server",
		why:  "the proxy and the server do not both log request ids and keys",
		log:  "the request id and the key at both the proxy and the server",
		met: func(s *model.Set) bool {
			f := model.FieldRequestID | model.FieldKey
			return s.Supplied(model.TierProxy, f) && s.Supplied(model.TierServer, f)
		},
	}
)

// needUpstreamAttempts is what proxy-retry reads of a proxy's log: what
// its upstreams answered (a list where it tried several, or a count of
// attempts), or, where it logs none, request ids and keys at the proxy
// and the server with the server's effects, so that two effects of one
// request id inside the proxy's one line show its retry. Without a proxy
// log there is no proxy's line to read, and the summary names the tier
// as missing.
var needUpstreamAttempts = requirement{
	what: "the proxy's upstream attempts ($upstream_status, HAProxy's retries, Envoy's attempt count), or request ids and keys at the proxy and the server with the server's effects",
	why:  "the proxy logs neither what its upstreams answered nor how many it tried, and its lines and the server's do not share request ids and keys",
	log:  "the proxy's upstream statuses ($upstream_status, $upstream_addr) or attempt count (%rc, %UPSTREAM_REQUEST_ATTEMPT_COUNT%), or the request id and the key at both the proxy and the server",
	met: func(s *model.Set) bool {
		return !s.Tiers[model.TierProxy] || s.Supplied(model.TierProxy, model.FieldUpstream) || (needProxyServerIDs.met(s) && needEffects.met(s))
	},
}

// either is met when one of its requirements is; it reads as its first.
func either(a, b requirement) requirement {
	return requirement{what: a.what + ", or " + b.what, why: a.why, log: a.log,
		met: func(s *model.Set) bool { return a.met(s) || b.met(s) }}
}

// needCaller is who sent a request, as any tier logs it: a likely
// resend of one action where no payload was logged.
var needCaller = requirement{
	what: "who sent each request (an address, a user or customer id), at any tier",
	why:  "no tier logged who sent the requests, so two writes of one caller cannot be told from two callers'",
	log:  "the client's address, or the user or customer the request is for",
	met:  func(s *model.Set) bool { return s.Supplied(model.TierUnknown, model.FieldClient) },
}

// needLikelyRetry is what retry-new-key reads where no payload was
// logged: the client's address and a tier that sees a loss.
var needLikelyRetry = requirement{
	what: "the client's address with a client or proxy tier (a likely retry where no payload was logged)",
	met: func(s *model.Set) bool {
		return s.Supplied(model.TierUnknown, model.FieldClient) && needLossWitness.met(s)
	},
}
