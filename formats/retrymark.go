package formats

import (
	"strings"

	"github.com/idem-cli/idem/formats/grammar"
	"github.com/idem-cli/idem/model"
	"github.com/tidwall/gjson"
)

// A client library's own retry, as the request says it: the headers of
// grammar.RetryHeaders, wherever a line logs them (a proxy's header
// variable, nginx JSON's http_ names, a logger's req.headers, OpenTelemetry's
// http.request.header.*). Only a send past the first is marked.

// markRetry records on o that value, logged for header, numbers the send
// past its first: RetryMark keeps what was logged, and Attempt the
// number where the line gave none.
func markRetry(o *model.Observation, header, value string) {
	n := grammar.SendNumber(header, value)
	if n < 2 {
		return
	}
	o.RetryMark = header + ": " + strings.TrimSpace(value)
	if o.Attempt == 0 {
		o.Attempt = n
	}
}

// retryHeaderOfTerm is the header a vocabulary term of meaning
// mRetryMark names: its last name ("req.headers.amz-sdk-request"), or
// nginx's http_ variable ("http_amz_sdk_request").
func retryHeaderOfTerm(path string) string {
	if i := strings.LastIndexByte(path, '.'); i >= 0 {
		path = path[i+1:]
	}
	path = strings.TrimPrefix(path, "http_")
	return strings.ReplaceAll(path, "_", "-")
}

// retryTerms are the vocabulary's names of the retry headers: under a
// logger's headers object, OpenTelemetry's http.request.header.NAME, and
// nginx's $http_NAME.
func retryTerms() []term {
	var out []term
	for _, h := range grammar.RetryHeaders {
		out = append(out, term{"headers." + h, mRetryMark, 0, false, vLoggers}, term{"header." + h, mRetryMark, 0, false, vOTel},
			term{"http_" + strings.ReplaceAll(h, "-", "_"), mRetryMark, 0, false, "nginx"})
	}
	return out
}

// markRetryIn marks o from a headers object or a HAR list of name/value
// pairs.
func markRetryIn(o *model.Observation, hs gjson.Result) {
	for _, h := range grammar.RetryHeaders {
		if v := header(hs, h); v != "" {
			markRetry(o, h, v)
			return
		}
	}
}

// nginxRetryPaths are grammar.RetryHeaders as nginx JSON names them
// ($http_NAME, '-' as '_'), each with its header.
var nginxRetryPaths = func() []headerPaths {
	var out []headerPaths
	for _, h := range grammar.RetryHeaders {
		out = append(out, headerPaths{h, newPaths("http_" + strings.ReplaceAll(h, "-", "_"))})
	}
	return out
}()

type headerPaths struct {
	header string
	paths  *pathSet
}
