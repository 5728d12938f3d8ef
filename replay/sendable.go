package replay

import (
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/idem-cli/idem/redact"
)

// A request that could not be sent is not a fact about the server: Go's
// HTTP client refuses a header name that is not a token or a value with a
// control character (a captured line break would split the header into
// two), before anything reaches the target. A replay that sent it anyway
// got "no response" and read the server as broken. The plan is checked
// before anything is sent, and such a request is an input error.

// requestError is a request the plan cannot send as it was captured.
type requestError struct {
	URL     error  // set when the URL is at fault
	Method  string // set when the method is at fault
	Header  string // else the header at fault
	Problem string // what is wrong with the header
}

func (e *requestError) Error() string {
	switch {
	case e.URL != nil:
		return fmt.Sprintf("the captured URL cannot be sent (%v), and nothing was sent", e.URL)
	case e.Header == "":
		return fmt.Sprintf("the captured method %q is not an HTTP method: the request cannot be sent, and nothing was sent", e.Method)
	}
	return fmt.Sprintf("the captured header %q %s: the request cannot be sent, and nothing was sent; replace it with --header '%s: value'",
		e.Header, e.Problem, e.Header)
}

// ErrUnsendable matches every RequestError.
var ErrUnsendable = errors.New("the request cannot be sent")

func (e *requestError) Is(target error) bool { return target == ErrUnsendable }

// sendable says why Go's HTTP client would refuse to send r (nil when it
// would send it): a *RequestError.
func (r *request) sendable() error {
	if !isToken(r.Method) {
		return &requestError{Method: r.Method}
	}
	if _, err := url.Parse(r.URL); err != nil {
		return &requestError{URL: errors.New(redact.String(err.Error()))}
	}
	if strings.IndexFunc(r.URL, isCTL) >= 0 {
		return &requestError{URL: errors.New("it holds a control character")}
	}
	for _, name := range sortedNames(r.Header) {
		if !isToken(name) {
			return &requestError{Header: name, Problem: "is not a valid header name"}
		}
		for _, v := range r.Header[name] {
			if i := strings.IndexFunc(v, func(c rune) bool { return c != '\t' && isCTL(c) }); i >= 0 {
				what := "holds a control character"
				if v[i] == '\r' || v[i] == '\n' {
					what = "holds a line break"
				}
				return &requestError{Header: name, Problem: what}
			}
		}
	}
	return nil
}

// isCTL reports an ASCII control character.
func isCTL(c rune) bool { return c < ' ' || c == 0x7f }

// isToken reports whether s is an HTTP token (RFC 9110), as a method or a
// header name must be.
func isToken(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c <= ' ' || c >= 0x7f || strings.IndexByte(`"(),/:;<=>?@[\]{}`, c) >= 0 {
			return false
		}
	}
	return true
}
