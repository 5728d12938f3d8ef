package formats

import (
	"net/url"
	"strings"

	"github.com/idem-cli/idem/model"
)

// What every HTTP log shares: routes without their query, request lines,
// and how a proxy's status says who gave up.

// routePath keeps the path of a URI or URL and drops its query, which may
// hold tokens and does not identify the route.
func routePath(s string) string {
	// The usual path holds none of the bytes that start a scheme's "://",
	// a query or a fragment: one pass over it says so.
	for i := 0; i < len(s); i++ {
		if c := s[i]; c == ':' || c == '?' || c == '#' {
			return routeOfURI(s)
		}
	}
	return s
}

// routeOfURI is routePath for a URI with a scheme, a query or a fragment.
func routeOfURI(s string) string {
	if i := strings.Index(s, "://"); i >= 0 {
		if u, err := url.Parse(s); err == nil {
			return u.EscapedPath()
		}
		s = s[i+3:]
		if j := strings.IndexByte(s, '/'); j >= 0 {
			s = s[j:]
		} else {
			s = "/"
		}
	}
	// Cut at the query, then at a fragment before it.
	if i := strings.IndexByte(s, '?'); i >= 0 {
		s = s[:i]
	}
	if i := strings.IndexByte(s, '#'); i >= 0 {
		s = s[:i]
	}
	return s
}

// httpMethod is a logged method in upper case: the usual ones, as most
// lines write them, are returned without a look at each byte.
func httpMethod(m string) string {
	if model.UsualMethod(m) {
		return m
	}
	return strings.ToUpper(m)
}

// splitRequestLine reads "POST /v1/x?y HTTP/1.1" into method and path.
func splitRequestLine(s string) (method, path string) {
	parts := strings.Fields(s)
	if len(parts) >= 2 {
		return httpMethod(parts[0]), routePath(parts[1])
	}
	return "", ""
}

// proxyOutcome classifies the status a proxy logged.
func proxyOutcome(status int) model.Outcome {
	switch status {
	case 0, 499, 460:
		return model.OutcomeClientClosed
	case 504:
		return model.OutcomeUpstreamTimeout
	case 502:
		return model.OutcomeUpstreamReset
	}
	return model.OutcomeOK
}
