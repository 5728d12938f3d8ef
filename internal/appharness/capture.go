package appharness

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"
)

// The headers the harness speaks to its backends. X-Harness-Step names the
// step in the backend's ledger; X-Harness-Delay-Ms is how long the backend
// works before it answers (how a lost response is made).
const (
	HeaderStep  = "X-Harness-Step"
	HeaderDelay = "X-Harness-Delay-Ms"
)

// Route is the one endpoint every backend serves.
const Route = "/v1/orders"

// Step is one request the harness sends.
type Step struct {
	Name      string        `json:"name"`
	Key       string        `json:"key,omitempty"`        // Idempotency-Key; empty sends none
	RequestID string        `json:"request_id,omitempty"` // X-Request-Id; empty sends none
	Body      string        `json:"body"`
	Delay     time.Duration `json:"delay"`   // the backend's work before it answers
	Timeout   time.Duration `json:"timeout"` // the client's timeout
}

// Sent is a step as the client saw it.
type Sent struct {
	Step
	Start    time.Time `json:"start"`
	End      time.Time `json:"end"`
	Status   int       `json:"status,omitempty"` // 0 when the client gave up
	TimedOut bool      `json:"timed_out,omitempty"`
	// ResponseRequestID is the X-Request-Id (or Request-Id) the response
	// carried, where the backend sent one back.
	ResponseRequestID string `json:"response_request_id,omitempty"`
}

// Elapsed is how long the client waited.
func (s Sent) Elapsed() time.Duration { return s.End.Sub(s.Start) }

// Done is what a backend did for one request, as its ledger records it.
type Done struct {
	Step      string `json:"step"`
	RequestID string `json:"request_id"` // the id the library gave the request
	Key       string `json:"key,omitempty"`
	OrderID   string `json:"order_id"`
	Created   bool   `json:"created"` // an order was made (false: the key's order was replayed)
	Status    int    `json:"status"`
}

// Capture is one run of one backend: what was sent, what the backend did,
// and the log it wrote.
type Capture struct {
	Library string `json:"library"` // the backend's name: "zerolog", "pino-http-header"
	Format  string `json:"format"`  // the format name idem should recognise
	// AbortLogged says the library logs the client's going away (when the
	// connection closes) instead of the response written afterwards.
	AbortLogged bool   `json:"abort_logged,omitempty"`
	Sent        []Sent `json:"sent"`
	Done        []Done `json:"done"`
	Log         string `json:"-"` // path of the log file
}

// Scenario is the run every HTTP backend goes through: a keyed POST that
// succeeds, one whose response is lost (the client times out while the
// backend finishes and makes its effect), a same-key retry of it, a
// new-key retry of the same payload, and two unkeyed posts, the last
// without a request id so the library makes one.
func Scenario(library string) []Step {
	// The lost step's client waits long enough for the request to reach
	// the service on a loaded machine, and gives up well before it is done.
	const ok, work, timeout = 250 * time.Millisecond, 1200 * time.Millisecond, 10 * time.Second
	lost := 400 * time.Millisecond
	id := func(n int) string { return fmt.Sprintf("req-%s-%d", library, n) }
	key := func(n int) string { return fmt.Sprintf("key-%s-%d", library, n) }
	return []Step{
		{Name: "keyed-ok", Key: key(1), RequestID: id(1), Body: `{"sku":"A-1","qty":1}`, Delay: ok, Timeout: timeout},
		{Name: "lost", Key: key(2), RequestID: id(2), Body: `{"sku":"B-2","qty":2}`, Delay: work, Timeout: lost},
		{Name: "same-key-retry", Key: key(2), RequestID: id(3), Body: `{"sku":"B-2","qty":2}`, Delay: ok, Timeout: timeout},
		{Name: "new-key-retry", Key: key(3), RequestID: id(4), Body: `{"sku":"B-2","qty":2}`, Delay: ok, Timeout: timeout},
		{Name: "unkeyed", RequestID: id(5), Body: `{"sku":"C-3","qty":1}`, Delay: ok, Timeout: timeout},
		{Name: "unkeyed-no-id", Body: `{"sku":"C-3","qty":1}`, Delay: ok, Timeout: timeout},
	}
}

// Drive sends the steps in order to base. After a step the client gave up
// on, it waits until the backend's ledger records the step, so that the
// retry that follows finds the first attempt's order (the lost-response
// case, not a concurrent one).
func Drive(ctx context.Context, base string, steps []Step, ledger string) ([]Sent, error) {
	var out []Sent
	for _, st := range steps {
		s, err := send(ctx, base, st)
		if err != nil {
			return out, fmt.Errorf("step %s: %w", st.Name, err)
		}
		out = append(out, s)
		if s.TimedOut {
			if _, err := WaitLedger(ctx, ledger, st.Name); err != nil {
				return out, fmt.Errorf("step %s: %w", st.Name, err)
			}
		}
	}
	return out, nil
}

func send(ctx context.Context, base string, st Step) (Sent, error) {
	ctx, cancel := context.WithTimeout(ctx, st.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+Route, strings.NewReader(st.Body))
	if err != nil {
		return Sent{}, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(HeaderStep, st.Name)
	req.Header.Set(HeaderDelay, strconv.FormatInt(st.Delay.Milliseconds(), 10))
	if st.Key != "" {
		req.Header.Set("Idempotency-Key", st.Key)
	}
	if st.RequestID != "" {
		req.Header.Set("X-Request-Id", st.RequestID)
	}
	// A fresh connection per request: a timed-out request must not leave
	// the next one behind a dead keep-alive connection.
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	s := Sent{Step: st, Start: time.Now()}
	resp, err := client.Do(req)
	if err != nil {
		s.End = time.Now()
		if errors.Is(err, context.DeadlineExceeded) {
			s.TimedOut = true
			return s, nil
		}
		return s, err
	}
	_, err = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	s.End = time.Now()
	if err != nil {
		return s, err
	}
	s.Status = resp.StatusCode
	s.ResponseRequestID = resp.Header.Get("X-Request-Id")
	if s.ResponseRequestID == "" {
		s.ResponseRequestID = resp.Header.Get("Request-Id")
	}
	return s, nil
}

// ErrLedgerWait is returned when a backend does not record a step in time.
var ErrLedgerWait = errors.New("backend did not record the step")

// WaitLedger polls the ledger until it records step (or all of its
// entries, for an empty step) and returns what it holds.
func WaitLedger(ctx context.Context, path, step string) ([]Done, error) {
	deadline := time.Now().Add(10 * time.Second)
	for {
		done, err := ReadLedger(path)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, err
		}
		for _, d := range done {
			if d.Step == step {
				return done, nil
			}
		}
		if time.Now().After(deadline) {
			return done, fmt.Errorf("%w: %s", ErrLedgerWait, step)
		}
		select {
		case <-ctx.Done():
			return done, ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// ReadLedger reads a backend's ledger: one JSON Done per line.
func ReadLedger(path string) ([]Done, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []Done
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var d Done
		if err := json.Unmarshal(line, &d); err != nil {
			// A line being written while it is read: the next poll sees it whole.
			if !bytes.HasSuffix(b, []byte("\n")) {
				break
			}
			return nil, fmt.Errorf("ledger %s: %w", path, err)
		}
		out = append(out, d)
	}
	return out, sc.Err()
}

// CaptureFile is the name of what the harness did, saved beside a log.
const CaptureFile = "harness.json"

// Save writes c as dir/harness.json.
func (c *Capture) Save(dir string) error {
	b, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(dir+"/"+CaptureFile, append(b, '\n'), 0o644)
}

// LoadCapture reads dir/harness.json; the log is dir/log.
func LoadCapture(dir, log string) (*Capture, error) {
	b, err := os.ReadFile(dir + "/" + CaptureFile)
	if err != nil {
		return nil, err
	}
	var c Capture
	if err := json.Unmarshal(b, &c); err != nil {
		return nil, fmt.Errorf("%s/%s: %w", dir, CaptureFile, err)
	}
	c.Log = dir + "/" + log
	return &c, nil
}
