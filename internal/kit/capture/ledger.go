package capture

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"
)

// Effect is what a capture's service did for one request, as its ledger
// records it: a JSON line per request it made (or replayed) an order for.
// The services in other languages write the same lines.
type Effect struct {
	Step      string `json:"step"`       // the request's HeaderStep
	RequestID string `json:"request_id"` // the id the service gave the request
	Key       string `json:"key,omitempty"`
	OrderID   string `json:"order_id"`
	Created   bool   `json:"created"` // an order was made (false: the key's order was replayed)
	Status    int    `json:"status"`
}

// Ledger is a service's ledger file, safe for concurrent handlers.
type Ledger struct {
	Path string
	mu   sync.Mutex
	f    *os.File
}

// OpenLedger opens (or creates) the ledger at path for appending.
func OpenLedger(path string) (*Ledger, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	return &Ledger{Path: path, f: f}, nil
}

// Add appends e.
func (l *Ledger) Add(e Effect) error {
	b, err := json.Marshal(e)
	if err != nil {
		return err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	_, err = l.f.Write(append(b, '\n'))
	return err
}

// Close closes the file.
func (l *Ledger) Close() error { return l.f.Close() }

// ReadLedger reads a ledger; a missing file is an empty one.
func ReadLedger(path string) ([]Effect, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []Effect
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var e Effect
		if err := json.Unmarshal(line, &e); err != nil {
			// A line being written while it is read: the next poll sees it whole.
			if !bytes.HasSuffix(b, []byte("\n")) {
				break
			}
			return nil, fmt.Errorf("ledger %s: %w", path, err)
		}
		out = append(out, e)
	}
	return out, sc.Err()
}

// errLedgerWait is a service that did not record a step in time.
var errLedgerWait = errors.New("capture: the service did not record the step")

// WaitLedger polls the ledger until it records step and returns what it
// holds; it gives up after 10 seconds.
func WaitLedger(ctx context.Context, path, step string) ([]Effect, error) {
	deadline := time.Now().Add(10 * time.Second)
	for {
		done, err := ReadLedger(path)
		if err != nil {
			return nil, err
		}
		for _, d := range done {
			if d.Step == step {
				return done, nil
			}
		}
		if time.Now().After(deadline) {
			return done, fmt.Errorf("%w: %s", errLedgerWait, step)
		}
		select {
		case <-ctx.Done():
			return done, ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// AttachEffects sets each request's Effect to the order the ledger at
// path records was made for it.
func AttachEffects(sent []Sent, path string) error {
	done, err := ReadLedger(path)
	if err != nil {
		return err
	}
	effects := effects(done)
	for i := range sent {
		sent[i].Effect = effects[sent[i].RequestID]
	}
	return nil
}

// effects maps each request id of a ledger to the order made for it.
func effects(done []Effect) map[string]string {
	out := map[string]string{}
	for _, e := range done {
		if e.Created {
			out[e.RequestID] = e.OrderID
		}
	}
	return out
}
