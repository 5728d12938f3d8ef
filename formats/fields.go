package formats

import "slices"

// Fields names the JSON fields a format reads for what idem joins and
// judges on, in the order it tries them. A log store holding lines of the
// format has them as fields of the same names (nested objects flattened
// with dots), so a query can find candidates without reading every line.
// Formats whose fields sit in arrays or text (HAR headers, access-log
// text) have none.
type Fields struct {
	Key, KeyHash, RequestID, Status, Outcome, Decision, State, Client, Fingerprint, Method, Route, Body []string
}

// Fields reports the JSON fields f reads; see Fields.
func (f *format) Fields() Fields {
	switch {
	case f == nginxFormat:
		return Fields{Key: pNginxKey.paths, RequestID: pNginxRID.paths, Status: pNginxStatus.paths,
			Client: pNginxClient.paths, Method: pNginxMethod.paths, Route: pNginxURI.paths}
	case f.vocabulary:
		return Fields{Key: keyAliases, KeyHash: keyHashAliases, RequestID: ridAliases, Status: statusAliases,
			Outcome: outcomeAliases, Decision: decisionAliases, State: stateAliases, Client: clientAliases, Fingerprint: fpAliases, Method: methodAliases, Route: routeAliases, Body: bodyAliases}
	}
	return Fields{}
}

// AllFields is the union of every format's Fields, each list without
// repeats, in registry order.
func AllFields() Fields {
	var out Fields
	add := func(dst *[]string, src []string) {
		for _, s := range src {
			if !slices.Contains(*dst, s) {
				*dst = append(*dst, s)
			}
		}
	}
	for _, f := range registry {
		fl := f.Fields()
		add(&out.Key, fl.Key)
		add(&out.KeyHash, fl.KeyHash)
		add(&out.RequestID, fl.RequestID)
		add(&out.Status, fl.Status)
		add(&out.Outcome, fl.Outcome)
		add(&out.Decision, fl.Decision)
		add(&out.State, fl.State)
		add(&out.Client, fl.Client)
		add(&out.Fingerprint, fl.Fingerprint)
		add(&out.Method, fl.Method)
		add(&out.Route, fl.Route)
		add(&out.Body, fl.Body)
	}
	return out
}
