package logstore

import (
	"context"
	"slices"

	"github.com/idem-cli/idem/formats"
)

// failedStatuses are the statuses of a delivery whose client may retry:
// none (0, 499), a timeout, a conflict or an in-progress answer, a
// validation of the key, a rate limit; 5xx are added as a range.
var failedStatuses = []string{"0", "408", "409", "422", "425", "429", "499"}

// failedOutcomes are the outcomes (model.Outcome names) of a lost
// response, as idem's canonical schema and export write them.
var failedOutcomes = []string{"timeout", "reset", "aborted", "client_closed", "upstream_timeout", "upstream_reset", "not_delivered", "error"}

// writeMethods are the methods whose retry can duplicate an effect.
var writeMethods = []string{"POST", "PUT", "PATCH", "DELETE", "post", "put", "patch", "delete"}

// readMethods carry no key and make no effect.
var readMethods = []string{"GET", "HEAD", "OPTIONS", "get", "head", "options"}

// storeFields are the fields phase 1 and 2 ask about: the format
// registry's names for each, kept to those the store has.
type storeFields struct {
	keys, rids, status, outcome, decision, state, clients, fps, methods, routes []string
	rawKeys                                                                     []string // keys, not their hashes
	activity, secret, retried                                                   bool     // fields an export adds
}

func readStoreFields(ctx context.Context, r Reader, w Window) (*storeFields, error) {
	have, err := r.Fields(ctx, w)
	if err != nil {
		return nil, err
	}
	all := formats.AllFields()
	keep := func(lists ...[]string) []string {
		var out []string
		for _, l := range lists {
			for _, f := range l {
				if have[f] && !slices.Contains(out, f) {
					out = append(out, f)
				}
			}
		}
		return out
	}
	return &storeFields{keys: keep(all.Key, all.KeyHash), rids: keep(all.RequestID), status: keep(all.Status),
		outcome: keep(all.Outcome), decision: keep(all.Decision), state: keep(all.State),
		clients: keep(all.Client), fps: keep(all.Fingerprint),
		methods: keep(all.Method), routes: keep(all.Route), rawKeys: keep(all.Key), activity: have[FieldActivity], secret: have[FieldSecret],
		retried: have[FieldRetried]}, nil
}

// groups are phase 1's grouped questions, in the order they are asked;
// each group's values are candidates, by its By fields.
//   - keys with more than one delivery (request id), or with any failed,
//     conflicting, in-progress or proxy-retried delivery;
//   - request ids that carried more than one key;
//   - payload fingerprints sent more than once, under more than one
//     request id (or key).
//
// Every group keeps its lines' count (c) and first and last times (t, u).
func (sf *storeFields) groups() []Group {
	count, first, last := Agg{Name: "c", Op: AggCount}, Agg{Name: "t", Op: AggFirst}, Agg{Name: "u", Op: AggLast}
	var out []Group
	if len(sf.keys) > 0 {
		failed := sf.failedFilter()
		g := Group{Lines: And{anySet(sf.keys)}, By: sf.keys, Also: failed, Aggs: []Agg{count}, Keep: []Above{{"c", 1}}}
		if len(sf.rids) > 0 {
			g.Aggs, g.Keep = append(g.Aggs, Agg{Name: "d", Op: AggDistinct, Fields: sf.rids}), []Above{{"d", 1}}
		}
		if failed != nil {
			g.Aggs, g.Keep = append(g.Aggs, Agg{Name: "f", Op: AggCountIf, If: failed}), append(g.Keep, Above{"f", 0})
		}
		g.Aggs = append(g.Aggs, first, last)
		out = append(out, g)
		if len(sf.rids) > 0 {
			out = append(out, Group{Lines: And{anySet(sf.rids), anySet(sf.keys)}, By: sf.rids, Keep: []Above{{"k", 1}},
				Aggs: []Agg{count, {Name: "k", Op: AggDistinct, Fields: sf.keys}, first, last}})
		}
	}
	if len(sf.fps) > 0 {
		by := sf.rids
		if len(by) == 0 {
			by = sf.keys
		}
		g := Group{Lines: And{anySet(sf.fps)}, By: sf.fps, Keep: []Above{{"c", 1}}, Aggs: []Agg{count, first, last}}
		if len(by) > 0 {
			g.Keep, g.Aggs = []Above{{"d", 1}}, []Agg{count, {Name: "d", Op: AggDistinct, Fields: by}, first, last}
		}
		out = append(out, g)
	}
	return out
}

// lostWrites asks for the lost writes with their client, request id,
// method, route and key: what the same client sent next, by the same
// method and route, is what the likely-retry rules compare them with.
func (sf *storeFields) lostWrites() (Lines, bool) {
	lost := sf.lostFilter()
	if lost == nil || len(sf.clients)+len(sf.rids) == 0 {
		return Lines{}, false
	}
	filter := And{lost}
	if len(sf.methods) > 0 {
		var or Or
		for _, f := range sf.methods {
			or = append(or, In{f, writeMethods})
		}
		filter = append(filter, or)
	}
	var fs []string
	for _, l := range [][]string{sf.clients, sf.rids, sf.methods, sf.routes, sf.rawKeys} {
		fs = append(fs, l...)
	}
	return Lines{Filter: filter, Fields: fs}, true
}

// failedFilter matches a delivery that failed or was answered as a
// conflict or in progress, or that a proxy sent upstream more than once
// (answered 201 all the same), by whichever fields the store has (nil:
// none).
func (sf *storeFields) failedFilter() Filter {
	var or Or
	for _, f := range sf.status {
		or = append(or, In{f, failedStatuses}, Range{f, 500, 599})
	}
	for _, f := range sf.outcome {
		or = append(or, In{f, failedOutcomes})
	}
	for _, f := range sf.decision {
		or = append(or, In{f, []string{"replay", "conflict", "in_progress"}})
	}
	for _, f := range sf.state {
		or = append(or, In{f, []string{"in_progress"}})
	}
	if sf.retried {
		or = append(or, Set{FieldRetried})
	}
	if len(or) == 0 {
		return nil
	}
	return or
}

// lostFilter matches a delivery whose response was lost: no status, a
// timeout, a proxy's 5xx for a server that did not answer in time.
func (sf *storeFields) lostFilter() Filter {
	var or Or
	for _, f := range sf.status {
		or = append(or, In{f, []string{"0", "408", "499"}}, Range{f, 500, 599})
	}
	for _, f := range sf.outcome {
		or = append(or, In{f, failedOutcomes})
	}
	if len(or) == 0 {
		return nil
	}
	return or
}

// notReads leaves out reads by whichever method fields the store has.
func notReads(methods []string) []Filter {
	var out []Filter
	for _, f := range methods {
		out = append(out, Not{In{f, readMethods}})
	}
	return out
}
