package appharness

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/idem-cli/idem/internal/kit/capture"
)

// route is the one endpoint every backend serves.
const route = "/v1/orders"

// step is one request the harness sends.
type step struct {
	Name      string
	Key       string // Idempotency-Key; empty sends none
	RequestID string // X-Request-Id; empty sends none
	Body      string
	Delay     time.Duration // the backend's work before it answers
	Timeout   time.Duration // the client's timeout
}

// captureRecord is one run of one backend: what was sent, what the backend did
// (its ledger), and the log it wrote.
type captureRecord struct {
	Library string `json:"library"` // the backend's name: "zerolog", "pino-http-header"
	Format  string `json:"format"`  // the format name idem should recognise
	// AbortLogged says the library logs the client's going away (when the
	// connection closes) instead of the response written afterwards.
	AbortLogged bool             `json:"abort_logged,omitempty"`
	Sent        []capture.Sent   `json:"sent"`
	Done        []capture.Effect `json:"done"`
	Log         string           `json:"-"` // path of the log file
}

// scenario is the run every HTTP backend goes through: a keyed POST that
// succeeds, one whose response is lost (the client times out while the
// backend finishes and makes its effect), a same-key retry of it, a
// new-key retry of the same payload, and two unkeyed posts, the last
// without a request id so the library makes one.
func scenario(library string) []step {
	// The lost step's client waits long enough for the request to reach
	// the service on a loaded machine, and gives up well before it is done.
	const ok, work, timeout = 250 * time.Millisecond, 1200 * time.Millisecond, 10 * time.Second
	lost := 400 * time.Millisecond
	id := func(n int) string { return fmt.Sprintf("req-%s-%d", library, n) }
	key := func(n int) string { return fmt.Sprintf("key-%s-%d", library, n) }
	return []step{
		{Name: "keyed-ok", Key: key(1), RequestID: id(1), Body: `{"sku":"A-1","qty":1}`, Delay: ok, Timeout: timeout},
		{Name: "lost", Key: key(2), RequestID: id(2), Body: `{"sku":"B-2","qty":2}`, Delay: work, Timeout: lost},
		{Name: "same-key-retry", Key: key(2), RequestID: id(3), Body: `{"sku":"B-2","qty":2}`, Delay: ok, Timeout: timeout},
		{Name: "new-key-retry", Key: key(3), RequestID: id(4), Body: `{"sku":"B-2","qty":2}`, Delay: ok, Timeout: timeout},
		{Name: "unkeyed", RequestID: id(5), Body: `{"sku":"C-3","qty":1}`, Delay: ok, Timeout: timeout},
		{Name: "unkeyed-no-id", Body: `{"sku":"C-3","qty":1}`, Delay: ok, Timeout: timeout},
	}
}

// driveSteps sends the steps in order to base. After a step the client gave up
// on, it waits until the backend's ledger records the step, so that the
// retry that follows finds the first attempt's order (the lost-response
// case, not a concurrent one).
func driveSteps(ctx context.Context, base string, steps []step, ledger string) ([]capture.Sent, error) {
	var out []capture.Sent
	for _, st := range steps {
		s := capture.Send(ctx, capture.Request{Step: st.Name, Base: base, Path: route, Key: st.Key, RequestID: st.RequestID,
			Body: st.Body, Delay: st.Delay, Timeout: st.Timeout})
		if s.Ended != capture.EndedResponse && s.Ended != capture.EndedTimeout {
			return out, fmt.Errorf("step %s: %s", st.Name, s.Error)
		}
		out = append(out, s)
		if s.Ended == capture.EndedTimeout {
			if _, err := capture.WaitLedger(ctx, ledger, st.Name); err != nil {
				return out, fmt.Errorf("step %s: %w", st.Name, err)
			}
		}
	}
	return out, nil
}

// captureFile is the name of what the harness did, saved beside a log.
const captureFile = "harness.json"

// readCapture reads dir/harness.json; the log is dir/log.
func readCapture(dir, log string) (*captureRecord, error) {
	b, err := os.ReadFile(filepath.Join(dir, captureFile))
	if err != nil {
		return nil, err
	}
	var c captureRecord
	if err := json.Unmarshal(b, &c); err != nil {
		return nil, fmt.Errorf("%s/%s: %w", dir, captureFile, err)
	}
	c.Log = filepath.Join(dir, log)
	return &c, nil
}
