package gateway

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// The call to an external provider (--external), whose effect is outside
// the gateway's transaction. The provider gets a stable key of its own for
// each (operation, key), so that it can deduplicate a second call and be
// asked later what the first one did; its answer is judged done, refused
// or unknown, and only a refusal lets the reservation go.

// DefaultExternalTimeout bounds one call to the provider.
const DefaultExternalTimeout = 10 * time.Second

// outcome is what a provider call is known to have done.
type outcome int

const (
	outcomeDone    outcome = iota // 2xx: it acted
	outcomeRefused                // never reached, or a 4xx refusal: it did nothing
	outcomeUnknown                // 3xx, 5xx, a timeout or a reset: it may have acted
)

func (o outcome) String() string {
	return [...]string{"done", "refused", "unknown"}[o]
}

// providerKey is the Idempotency-Key the gateway sends the provider for a
// key in a scope (the operation). It is derived from the key's digest, so
// the client's key never leaves the gateway, and it is the same on every
// retry and in every replica, so the provider sees one operation.
func providerKey(scope, digest string) string {
	sum := sha256.Sum256([]byte("idem-gateway provider key v1\x00" + scope + "\x00" + digest))
	return "idem-" + hex.EncodeToString(sum[:16])
}

// providerClient is c, or a default one, that never follows a redirect: a
// 3xx is the provider's answer, and following it would send the body
// again, somewhere else.
func providerClient(c *http.Client, timeout time.Duration) *http.Client {
	if c == nil {
		if timeout <= 0 {
			timeout = DefaultExternalTimeout
		}
		c = &http.Client{Timeout: timeout}
	}
	cc := *c
	cc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return &cc
}

// callExternal sends the delivery's body to the provider and judges what
// it did. Under crash-after-external it sends no key: the naive
// integration that fault demonstrates.
func (s *server) callExternal(d *delivery, body []byte) outcome {
	req, err := http.NewRequest(http.MethodPost, strings.TrimRight(s.opts.Faults.External, "/")+"/v1/charges", bytes.NewReader(body))
	if err != nil {
		s.log.line(d.reqCtx, "external call failed", map[string]any{"error": err.Error(), "outcome": outcomeRefused.String()})
		return outcomeRefused
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Request-Id", d.rid)
	if !s.opts.Faults.CrashAfterExternal {
		req.Header.Set("Idempotency-Key", providerKey(d.route, d.digest))
	}
	resp, err := s.opts.Client.Do(req)
	if err != nil {
		o := outcomeUnknown
		if notSent(err) {
			o = outcomeRefused
		}
		s.log.line(d.reqCtx, "external call failed", map[string]any{"error": err.Error(), "outcome": o.String()})
		return o
	}
	io.Copy(io.Discard, io.LimitReader(resp.Body, maxBody))
	resp.Body.Close()
	o := judge(resp.StatusCode)
	s.log.line(d.reqCtx, "external call", map[string]any{"provider_status": resp.StatusCode, "outcome": o.String()})
	return o
}

// judge reads a provider's status. A 5xx says nothing about what was done
// before it (a provider may record the charge, then fail to answer), a
// 3xx is not an answer to the call, and a 409 to a keyed call means the
// provider is still running an earlier call with the key.
func judge(status int) outcome {
	switch {
	case status >= 200 && status < 300:
		return outcomeDone
	case status >= 400 && status < 500 && status != http.StatusConflict:
		return outcomeRefused
	}
	return outcomeUnknown
}

// notSent reports whether err happened before the request could reach
// the provider: the connection was never made.
func notSent(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial"
}

// reconcile asks the provider what it did for the delivery's key:
// GET {external}/v1/charges/by-key/{provider key}, answered 200
// {"found":true,"id":…} or 200 {"found":false}. Found is done; not found
// is refused, since a provider that can be asked by key also honours the
// key, and a late first call and a new one make one charge. Any other
// answer (a provider that cannot be asked, or cannot be reached) is
// unknown.
func (s *server) reconcile(ctx context.Context, d *delivery) (outcome, string) {
	u := strings.TrimRight(s.opts.Faults.External, "/") + "/v1/charges/by-key/" + url.PathEscape(providerKey(d.route, d.digest))
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return outcomeUnknown, err.Error()
	}
	req.Header.Set("X-Request-Id", d.rid)
	resp, err := s.opts.Client.Do(req)
	if err != nil {
		return outcomeUnknown, "the provider could not be asked: " + err.Error()
	}
	defer resp.Body.Close()
	var found struct {
		Found *bool  `json:"found"`
		ID    string `json:"id"`
	}
	if resp.StatusCode != http.StatusOK {
		return outcomeUnknown, fmt.Sprintf("the provider answered the lookup by key %d", resp.StatusCode)
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 64<<10)).Decode(&found); err != nil || found.Found == nil {
		return outcomeUnknown, "the provider's lookup by key did not say whether it acted"
	}
	if *found.Found {
		return outcomeDone, "the provider made " + found.ID
	}
	return outcomeRefused, "the provider has no call with the key"
}
