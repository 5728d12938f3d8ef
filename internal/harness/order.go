package harness

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Order is one POST of a JSON order to a server harness's app, as the
// client saw it end.
type Order struct {
	Start, End time.Time
	Ended      string // "response", "timeout" (the client gave up) or "error"
	Status     int    // 0 unless a response arrived
	Response   string // the response body, cut short
	Header     http.Header
	Err        error // the error when Ended is "error"
}

// PostOrder sends body to url through c with the harness's headers: the
// request id, the step's name, and the delay the app's handler waits
// before its effect (X-Harness-Delay-Ms), plus keyHeader: key when key is
// set. The client gives up after timeout.
func PostOrder(c *http.Client, url, keyHeader, key, requestID, step, body string, delay, timeout time.Duration) Order {
	var o Order
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader(body))
	if err != nil {
		o.Ended, o.Err = "error", err
		return o
	}
	req.Header.Set("Content-Type", "application/json")
	if key != "" {
		req.Header.Set(keyHeader, key)
	}
	req.Header.Set("X-Request-Id", requestID)
	req.Header.Set("X-Harness-Step", step)
	if delay > 0 {
		req.Header.Set("X-Harness-Delay-Ms", strconv.Itoa(int(delay/time.Millisecond)))
	}
	o.Start = time.Now().UTC()
	resp, err := c.Do(req)
	if err == nil {
		var b []byte
		b, err = io.ReadAll(io.LimitReader(resp.Body, 512))
		resp.Body.Close()
		o.Status, o.Response, o.Header = resp.StatusCode, strings.TrimSpace(string(b)), resp.Header
	}
	o.End = time.Now().UTC()
	switch {
	case err == nil:
		o.Ended = "response"
	case errors.Is(err, context.DeadlineExceeded):
		o.Ended, o.Status, o.Response, o.Header = "timeout", 0, "", nil
	default:
		o.Ended, o.Err = "error", err
	}
	return o
}
