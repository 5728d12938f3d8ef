package diagnose

import (
	"strconv"

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
	Evidence:   "A delivery whose outermost tier lost the response (HAR status 0 or `_error`, proxy 499/504/502, Envoy DC/UT/UC, Traefik/Caddy 499), or whose server logged that it could not write it (`write: broken pipe`, `EPIPE`, `ECONNRESET`, `context canceled`, `BrokenPipeError`, Node's `aborted`), while the same delivery made an effect or got a 2xx at the server. Severity is info when a later delivery with the same key got the stored result and the intent made one effect.",
	Proof:      "An edge line showing the response lost (or the server's own write error) on a delivery that made an effect or got a 2xx at the server.",
	Inference:  "Never: both the loss and the server's answer are logged. Whether a same-key retry got the stored result is read from its 2xx without a second effect where the server marks no replay (\"most likely\").",
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
