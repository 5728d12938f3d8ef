package diagnose

import (
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/idem-cli/idem/model"
)

var responseLost = &Rule{
	ID:         "response-lost",
	Title:      "Result saved, response lost",
	Severity:   Warning,
	Symptom:    "The log has a 2xx (or an effect) but the caller saw an error or a timeout.",
	Hypothesis: "The server saved the result; only the response was lost between server and client.",
	Check:      "Line up the commit time, the response and the client's timeout for the delivery.",
	Action:     "Retry with the same key and return the saved result id; never treat a timeout as proof that nothing happened.",
	Evidence:   "A delivery whose outermost tier lost the response (HAR status 0 or `_error`, proxy 499/504/502, Envoy DC/UT/UC, Traefik/Caddy 499), or whose server logged that it could not write it (`write: broken pipe`, `EPIPE`, `ECONNRESET`, `context canceled`, `BrokenPipeError`, Node's `aborted`), while the same delivery made an effect or got a 2xx at the server. Severity is info when a later delivery with the same key got the stored result and the intent made one effect. Where no tier logged the loss, a resend of the key after a proxy's or a server's 2xx (the next send of the key, with no other payload, not refused with a 4xx, not sent while the first ran, and with no client line showing the 2xx arrive) says the caller lost that 2xx where the answer took a second or more or the resend is marked as a retry (an answer given at once and sent again is as often a check of the key's replay): inferred, info when the intent made one effect.",
	Proof:      "An edge line showing the response lost (or the server's own write error) on a delivery that made an effect or got a 2xx at the server.",
	Inference:  "Where no tier shows the loss: a tier in front of the caller's (the proxy, or the server with no client log) logged a 2xx, and the same key came again within `--retry-window`, begun after that answer at the same tier's clock, where the answer took a second or more (long enough for a caller's timeout) or the resend carries a library's retry mark: the caller, which resent it, never got the 2xx. It lacks the caller's own log of the answer. Whether a same-key retry got the stored result is read from its 2xx without a second effect where the server marks no replay (\"most likely\").",
	Example:    "response-lost",
	Needs:      []model.Tier{model.TierServer},
	reads:      []requirement{needKeys, needLossWitness, needJoin, needEffects},
	run:        runResponseLost,
}

func runResponseLost(c *context) []*Finding {
	var out []*Finding
	var narrative []byte // reused: each finding keeps a string of it
	for _, in := range c.set.Built {
		// A delivery whose response was lost after it committed: its own
		// effect, or its own success at the server.
		var lost []*model.Delivery
		for _, d := range in.Deliveries {
			if d.Lost() != nil && (len(c.effects(d)) > 0 || serverSuccess(d) != nil) {
				lost = append(lost, d)
			}
		}
		if len(lost) == 0 {
			if f := resentAfterAnswer(c, in); f != nil {
				out = append(out, f)
			}
			continue
		}
		var commit *model.Observation
		var effects []*model.Observation
		for _, d := range in.Deliveries {
			effects = append(effects, c.effects(d)...)
		}
		first := lost[0]
		if e := c.effects(first); len(e) > 0 {
			commit = e[0]
		} else if s := serverSuccess(first); s != nil {
			commit = s
		}
		loss := first.Lost()
		var ev evidence
		ev.delivery(first)
		ev.add(commit)
		f := &Finding{Severity: Warning, Intents: []*model.Intent{in}}
		// Did a later delivery of the same intent get the stored result?
		var recovered *model.Delivery
		for _, d := range in.Deliveries {
			if d.Start().After(first.Start()) && d.Lost() == nil && edgeResponse(d) != nil &&
				(replayed(d) || d.ResultID() != "" && d.ResultID() == commit.ResultID) && len(c.effects(d)) == 0 {
				recovered = d
				break
			}
		}
		results := uniqueResults(effects)
		n := narrative[:0]
		n = append(n, "At "...)
		n = appendHHMMSS(n, first.Start())
		n = append(n, " delivery "...)
		n = append(n, first.RequestID...)
		n = append(n, " of key "...)
		n = append(n, in.Key...)
		n = append(n, " reached the server, which committed "...)
		switch {
		case commit.ResultID != "":
			n = append(n, commit.ResultID...)
		case commit.Tier == model.TierProxy:
			n = append(n, "the request (the proxy logged the server's "...)
			n = append(strconv.AppendInt(n, int64(commit.UpstreamStatus), 10), ')')
		default:
			n = append(n, "its effect"...)
		}
		n = append(n, " at "...)
		n = appendHHMMSS(n, commit.Time)
		n = append(n, ", but "...)
		n = appendLoss(n, loss)
		sameKeyRetry := retryAnswered(in, first)
		reused := reusedRetry(first, loss)
		// retried appends "; the retry ID at TIME carried the same key and got ".
		retried := func(n []byte, d *model.Delivery) []byte {
			n = append(n, "; the retry "...)
			n = append(n, d.RequestID...)
			n = append(n, " at "...)
			n = appendHHMMSS(n, d.Start())
			return append(n, " carried the same key and got "...)
		}
		switch {
		case recovered == nil && sameKeyRetry != nil && !c.effectsLogged() && effectCount(effects) <= 1:
			// Without server logs a replay cannot be told from a new run,
			// but a retry under the same key that got a 2xx most likely
			// got the stored result.
			f.Severity = Info
			ev.delivery(sameKeyRetry)
			n = strconv.AppendInt(retried(n, sameKeyRetry), int64(edgeResponse(sameKeyRetry).Status), 10)
			n = append(n, " (no server log says whether it was replayed)."...)
		case recovered == nil && sameKeyRetry != nil && c.effectsLogged() && effectCount(effects) <= 1 && len(c.effects(sameKeyRetry)) == 0:
			// A server that marks no replay (Fiber's middleware): the
			// retry was answered 2xx where effects are logged and it made
			// none, so it got the stored result.
			f.Severity = Info
			ev.delivery(sameKeyRetry)
			n = strconv.AppendInt(retried(n, sameKeyRetry), int64(edgeResponse(sameKeyRetry).Status), 10)
			n = append(n, " without a second effect, so it most likely got the stored result."...)
		case recovered != nil && effectCount(effects) <= 1:
			f.Severity = Info
			ev.delivery(recovered)
			n = append(retried(n, recovered), "the stored result ("...)
			n = strconv.AppendInt(n, int64(edgeResponse(recovered).Status), 10)
			n = append(n, ", "...)
			n = appendResults(n, nonEmpty(recovered.ResultID()))
			if c.inDuplicate(in) {
				n = append(n, ")"...)
			} else {
				n = append(n, "), so the contract held."...)
			}
		case reused != nil && len(in.Deliveries) == 1:
			// The client resent its request id with the retry, so both
			// trips are one delivery (request-id-reused says so): the
			// second answer is still the retry's.
			if effectCount(effects) <= 1 {
				f.Severity = Info
			}
			ev.add(reused)
			n = append(n, "; a retry under the same key, resending request id "...)
			n = append(n, first.RequestID...)
			n = append(n, ", got "...)
			n = strconv.AppendInt(n, int64(reused.Status), 10)
			n = append(n, " at "...)
			n = appendHHMMSS(n, reused.Time)
			n = append(n, " (one delivery to idem, two trips), and the intent made "...)
			n = append(appendPlural(n, effectCount(effects), "effect", "effects"), '.')
		case len(in.Deliveries) == 1:
			n = append(n, "; no retry with the same key followed, so the caller was left with an unknown outcome."...)
		default:
			n = append(n, "; the intent made "...)
			n = appendPlural(n, effectCount(effects), "effect", "effects")
			n = append(n, " in all ("...)
			n = append(appendResults(n, results), ")."...)
		}
		if f.Severity == Info && c.inDuplicate(in) {
			// The key kept its promise, but the caller also retried under
			// another key: the loss was not recovered, it was doubled.
			f.Severity = Warning
			if n[len(n)-1] != '.' {
				n = append(n, '.')
			}
			n = append(n, " This key made one effect, but a retry under another key made another: a duplicate (retry-new-key)."...)
		}
		if len(lost) > 1 {
			n = append(n, ' ')
			n = strconv.AppendInt(n, int64(len(lost)), 10)
			n = append(n, " deliveries of this intent lost their response."...)
		}
		f.Narrative = string(n)
		narrative = n
		f.Evidence = ev.sorted()
		out = append(out, f)
	}
	return out
}

// reusedRetry returns a 2xx that the tier which saw the loss logged again
// for the same request id, starting once the lost trip had ended (within
// the log's resolution): a retry that resent the first attempt's request id.
func reusedRetry(d *model.Delivery, loss *model.Observation) *model.Observation {
	if loss == nil || loss.Time.IsZero() {
		return nil
	}
	ended := loss.Time.Add(loss.Duration)
	for _, o := range d.Observations {
		if o != loss && o.Tier == loss.Tier && o.Status >= 200 && o.Status < 300 && o.Time.After(loss.Time) && !o.Time.Before(ended) {
			return o
		}
	}
	return nil
}

// retryAnswered returns a later delivery of the intent that got a 2xx.
func retryAnswered(in *model.Intent, after *model.Delivery) *model.Delivery {
	for _, d := range in.Deliveries {
		if d.Start().After(after.Start()) && d.Lost() == nil {
			if e := edgeResponse(d); e != nil && e.Status >= 200 && e.Status < 300 {
				return d
			}
		}
	}
	return nil
}

// resentAfterAnswer infers a lost answer where no tier logged the loss: a
// proxy or the server logged a 2xx for a delivery of the key (no client
// line shows it arrive), and the same key came again within the retry
// window, begun after that answer at the same tier's clock: the caller
// sent it again, so it never got the 2xx. A send refused as another
// payload is another action, and one sent while the first ran is
// concurrency's (in-progress-retry, non-atomic-reservation): neither
// says the answer was lost, nor one with another payload, nor one after
// another send of the key. Nor does a resend the server refused (a 4xx):
// a retry of a key that succeeded gets its stored answer or runs again,
// and a refusal says the server saw another thing under the key.
func resentAfterAnswer(c *context, in *model.Intent) *Finding {
	if len(in.Deliveries) < 2 {
		return nil
	}
	ds := slices.Clone(in.Deliveries)
	slices.SortStableFunc(ds, func(a, b *model.Delivery) int { return a.Start().Compare(b.Start()) })
	for i, d := range ds[:len(ds)-1] {
		answer := loggedAnswer(d)
		if answer == nil {
			continue
		}
		// The next send of the key, and only it: one in between (a
		// refused or concurrent send) is what the later one answers.
		for _, again := range ds[i+1 : i+2] {
			o := again.At(answer.Tier)
			if o == nil || o.Time.IsZero() || refused(again) || samePayload(d, again) == payloadDiffers {
				continue
			}
			gap := o.Time.Sub(answer.End())
			slack := time.Duration(0)
			if c.coarse(answer, o) {
				slack = time.Second
			}
			marked := retryMarked(again)
			if gap <= slack || gap > c.opts.RetryWindow || answer.Duration < slowAnswer && marked == "" {
				continue
			}
			var effects []*model.Observation
			for _, e := range in.Deliveries {
				effects = append(effects, c.effects(e)...)
			}
			f := &Finding{Severity: Warning, Intents: []*model.Intent{in}}
			if effectCount(effects) <= 1 {
				f.Severity = Info
			}
			var ev evidence
			ev.delivery(d)
			ev.delivery(again)
			f.Evidence = ev.sorted()
			at := fmt.Sprintf("the %s logged %d at %s", answer.Tier, answer.Status, hhmmss(answer.End()))
			why := fmt.Sprintf("the answer took %s, long enough for a caller's timeout", answer.Duration.Round(time.Millisecond))
			if marked != "" {
				why = "the resend carried " + marked + ", a retry only a failure sets off"
			}
			f.Confidence = inferred([]string{at, fmt.Sprintf("the same key again %s later", gapSpan(gap, slack > 0)), why},
				"the caller's own log of the answer (a client log, or a proxy line of the caller's side)")
			f.Narrative = fmt.Sprintf("Delivery %s of key %s was answered: %s; then delivery %s carried the same key %s later (%s), and %s: likely the caller never got that %d and sent it again (no tier logged the loss). The intent made %s in all.",
				d.RequestID, in.Key, at, again.RequestID, gapSpan(gap, slack > 0), o.Source, why, answer.Status, plural(effectCount(effects), "effect", "effects"))
			return f
		}
	}
	return nil
}

// loggedAnswer is the 2xx a proxy, or a server with no tier in front of
// it, logged for d, where no tier logged the caller losing it and no
// client line shows it arrive; nil otherwise.
func loggedAnswer(d *model.Delivery) *model.Observation {
	if d.Lost() != nil || d.At(model.TierClient) != nil {
		return nil
	}
	if p := d.At(model.TierProxy); p != nil {
		if p.Status >= 200 && p.Status < 300 && !p.Time.IsZero() {
			return p
		}
		return nil
	}
	for _, o := range d.Observations {
		if o.Tier == model.TierServer && o.Status >= 200 && o.Status < 300 && !o.Time.IsZero() {
			return o
		}
	}
	return nil
}

// slowAnswer is how long an answer must have taken for a resend after
// it to say the caller gave up on it: a caller that resends a key it was
// answered at once is checking the key's replay as often as it lost
// the answer, and the logs cannot tell the two.
const slowAnswer = time.Second

// retryMarked is the mark by which a layer numbered d as its own retry
// (a client library's header, a client's attempt past 1), "" for none.
func retryMarked(d *model.Delivery) string {
	for _, o := range d.Observations {
		switch {
		case o.RetryMark != "":
			return o.RetryMark
		case o.Attempt > 1 && o.Tier <= model.TierProxy:
			return "attempt " + strconv.Itoa(o.Attempt)
		}
	}
	return ""
}

// refused reports whether a tier logged a 4xx answer to d.
func refused(d *model.Delivery) bool {
	return slices.ContainsFunc(d.Observations, func(o *model.Observation) bool { return o.Status >= 400 && o.Status < 500 })
}
