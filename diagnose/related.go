package diagnose

import (
	"slices"

	"github.com/idem-cli/idem/model"
)

// relation is another intent tied to one, and what ties them. It is the
// one notion of "related" that idem diagnose and idem trace share: a
// trace lists every key a finding ties to the one traced.
type relation struct {
	Intent *model.Intent
	// By names what ties them, in the order found: the ID of each rule
	// whose finding names both (retry-new-key, duplicate-submission...),
	// and SamePayload where a tier logged the same fingerprint for both.
	By []string
}

// bySamePayload is relation.By for two intents whose payloads had the same
// fingerprint at the same tier.
const bySamePayload = "same payload fingerprint"

// Related lists the intents tied to in: those a finding names with it,
// then those whose payload had the same fingerprint.
func (r *Result) Related(in *model.Intent) []relation {
	var out []relation
	at := map[string]int{}
	tie := func(other *model.Intent, by string) {
		if other.ID == in.ID {
			return
		}
		i, ok := at[other.ID]
		if !ok {
			i = len(out)
			at[other.ID] = i
			out = append(out, relation{Intent: other})
		}
		if !slices.Contains(out[i].By, by) {
			out[i].By = append(out[i].By, by)
		}
	}
	for _, f := range r.Findings {
		// By ID: the rules may see a copy of an intent (own traffic left
		// out).
		if len(f.Intents) < 2 || !slices.ContainsFunc(f.Intents, func(x *model.Intent) bool { return x.ID == in.ID }) {
			continue
		}
		for _, other := range f.Intents {
			tie(other, f.Rule.ID)
		}
	}
	if r.set != nil {
		for _, other := range fingerprintKin(r.set, in) {
			tie(other, bySamePayload)
		}
	}
	return out
}

// fingerprintKin finds the built intents with a delivery whose payload had
// the same fingerprint, at the same tier, as one of in's.
func fingerprintKin(set *model.Set, in *model.Intent) []*model.Intent {
	mine := map[string]bool{}
	for _, d := range in.Deliveries {
		for t, fp := range d.Fingerprints() {
			mine[t.String()+fp] = true
		}
	}
	if len(mine) == 0 {
		return nil
	}
	var out []*model.Intent
	for _, other := range set.Built {
		if other == in {
			continue
		}
	found:
		for _, d := range other.Deliveries {
			for t, fp := range d.Fingerprints() {
				if mine[t.String()+fp] {
					out = append(out, other)
					break found
				}
			}
		}
	}
	return out
}
