package formats

import (
	"regexp"
	"strings"

	"github.com/idem-cli/idem/model"
)

// Who wrote an application's log: the server that handled the requests,
// or a caller that made them. A logger's shape (time, level, msg; pino's
// numbers; slog's names) says nothing about it: the lines do. A caller
// names the absolute URL it calls, the error its send met (ETIMEDOUT,
// ECONNREFUSED, "socket hang up", AbortError), the number of its send or
// of its retry, the status it received; a server names the path it was
// asked for, with the status it answered. Each line votes; the lines of
// one process (Observation.Process, else the file) are the caller's when
// most of its votes say so, and every line of a caller is then a client
// observation: the status it received is the outcome the client saw, its
// timeout a lost answer at the client, and a result id it names one the
// server made, never an effect of its own.

// callerErrors are the errors only a sender meets: a connection it could
// not open, an answer it stopped waiting for, a request it aborted.
var callerErrors = regexp.MustCompile(`(?i)\b(etimedout|econnrefused|esockettimedout|enotfound|eai_again|ehostunreach|enetunreach|und_err_connect_timeout|und_err_headers_timeout)\b|` +
	`socket hang up|\babort(ed)?error\b|\btimeouterror\b|timeout awaiting|connection refused|request timed out|read timed out|connect timeout`)

// callerResetWords are a reset's words, a caller's only beside another of
// its signs: a server logs them too when its client went away.
var callerResetWords = regexp.MustCompile(`(?i)\beconnreset\b|connection reset`)

// receivedWords say a line reports an answer it got.
var receivedWords = regexp.MustCompile(`(?i)\b(received|got)\b.*\b(status|response|answer)\b|\bresponse (received|from)\b|\bresponded with\b`)

// Votes of a line about its writer.
const (
	voteNone int8 = iota
	voteCaller
	voteServer
)

// tierVote is a line whose tier is read from its process's lines: where
// its observation lies in the batch, whose it is, and what it says.
type tierVote struct {
	obs   int
	group string
	vote  int8
	why   string // the error a caller's send met
}

// tally counts a process's votes.
type tally struct{ caller, server int }

// callerGate holds a word of each of callerErrors' and callerResetWords'
// forms: a text holding none is not matched (most are not, and the
// expressions cost).
var callerGate = []string{"econn", "etimedout", "timeout", "timed out", "hang up", "abort", "refused", "enotfound", "eai_again", "unreach", "und_err", "reset"}

// callerError is the first of texts that names an error only a sender
// meets (reset only with another sign, said by caller), or "".
func callerError(caller bool, texts ...string) string {
	for _, s := range texts {
		if len(s) < 5 {
			continue
		}
		for _, w := range callerGate {
			if containsFold(s, w) {
				if callerErrors.MatchString(s) || caller && callerResetWords.MatchString(s) {
					return s
				}
				break
			}
		}
	}
	return ""
}

// callerVote reads what an application's line says about who wrote it,
// and the error a caller's send met, where it names one. A path-only
// target is a handled request whatever else the line holds (a server's
// own outbound call failing, an attempt header); an absolute URL is a
// send where the line announces it (a method, no status yet) or says
// more of a caller's; a line naming no target is a caller's by its
// retry, its send error or the answer it received.
func callerVote(target string, r *record, o *model.Observation) (int8, string) {
	if target != "" && !strings.Contains(target, "://") {
		if o.Method != "" || o.Status > 0 {
			return voteServer, ""
		}
		return voteNone, ""
	}
	retry := o.Attempt > 0 || r.str("retryCount", "retry_count", "retries") != "" ||
		containsFold(o.Message, "retr") && retryWords.MatchString(o.Message) ||
		containsFold(o.Message, "attempt") && retryWords.MatchString(o.Message)
	received := o.Status > 0 && receivedWords.MatchString(o.Message)
	caller := retry || received || target != "" && o.Method != "" && o.Status == 0
	why := callerError(caller || target != "", o.Detail, r.str("code", "err.code", "error.code", "errno"),
		r.str("error", "err", "err.message", "error.message"), o.Message)
	if caller || why != "" {
		return voteCaller, why
	}
	return voteNone, ""
}

// vote keeps o's vote in the batch, where o's tier is the format's
// default and the line's to settle: no field, flag or config named it.
func (p *Parser) vote(o *model.Observation, v int8, why string) {
	n := len(p.out.Obs) - 1
	if n < 0 || &p.out.Obs[n] != o || (p.src != nil && p.src.tierSet) {
		return
	}
	g := o.Process
	if g == "" {
		g = o.Source.File
	}
	p.out.votes = append(p.out.votes, tierVote{obs: n, group: g, vote: v, why: why})
}

// Callers settles, in line order, the tier of an input's lines that
// their process decides: what the process's lines have said so far, the
// line itself included (the same whatever the batches or the workers).
// One per input.
type Callers struct {
	tallies map[string]*tally
}

// Settle decides the tier of a batch's lines, in order (see callerVote):
// a caller's lines become the client's, and a server's lines before any
// of its process's lines said whose they were are counted as assumed
// (Result.Assumed). It reports whether a line's tier changed.
func (c *Callers) Settle(res *Result) bool {
	changed := false
	for _, v := range res.votes {
		if v.obs >= len(res.Obs) {
			continue
		}
		if c.tallies == nil {
			c.tallies = map[string]*tally{}
		}
		t := c.tallies[v.group]
		if t == nil {
			if len(c.tallies) >= 4096 {
				clear(c.tallies) // a hostile input's endless processes
			}
			t = &tally{}
			c.tallies[v.group] = t
		}
		switch v.vote {
		case voteCaller:
			t.caller++
		case voteServer:
			t.server++
		}
		o := &res.Obs[v.obs]
		switch {
		case o.Tier != model.TierServer && o.Tier != model.TierClient:
			// An envelope's labels named it.
		case t.caller > t.server:
			changed = changed || o.Tier != model.TierClient || o.Effect
			asCaller(o, v.why)
		case t.caller == 0 && t.server == 0:
			res.Assumed[o.Tier]++
		}
	}
	res.votes = res.votes[:0]
	return changed
}

// asCaller makes o a caller's observation; why is the error its send
// met, if any.
func asCaller(o *model.Observation, why string) {
	o.Tier = model.TierClient
	o.Effect = false
	switch {
	case o.Status > 0:
		o.Outcome = model.OutcomeOK
	case why != "":
		o.Outcome, o.Detail = errorOutcome(why), why
	case o.Outcome == model.OutcomeReset:
		// What a server says of a client gone is, from the caller, an
		// error whose words say no more.
		o.Outcome = model.OutcomeUnknown
	}
}
