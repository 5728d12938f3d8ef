package appharness

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/idem-cli/idem/internal/kit/capture"
)

// orders is the order service the Go backends share: POST /v1/orders
// creates an order, or, for an Idempotency-Key it has seen, replays the
// key's order. Each backend logs with its own library around it; Orders
// only decides and keeps the ledger of what it did.
type orders struct {
	prefix string
	mu     sync.Mutex
	n      int
	byKey  map[string]string
	ledger *capture.Ledger
}

// openOrders opens the ledger at path; order ids are prefix_1, prefix_2...
func openOrders(prefix, ledger string) (*orders, error) {
	l, err := capture.OpenLedger(ledger)
	if err != nil {
		return nil, err
	}
	return &orders{prefix: prefix, byKey: map[string]string{}, ledger: l}, nil
}

// Close closes the ledger.
func (o *orders) Close() error { return o.ledger.Close() }

// placed is what Place did for one request.
type placed struct {
	OrderID string
	Key     string
	Created bool
	Status  int
}

// place works for the delay the request asks for, then creates or replays
// the order. logEffect writes the backend's own line about it, before the
// ledger records it, so a recorded step is always in the log too.
func (o *orders) place(r *http.Request, requestID string, logEffect func(placed)) (placed, error) {
	if ms, err := strconv.Atoi(r.Header.Get(capture.HeaderDelay)); err == nil && ms > 0 {
		// Not cut short when the client goes: the lost-response case is
		// a server that finishes its work after the client gave up.
		time.Sleep(time.Duration(ms) * time.Millisecond)
	}
	key := r.Header.Get("Idempotency-Key")
	o.mu.Lock()
	p := placed{Key: key, Status: http.StatusCreated}
	if id, ok := o.byKey[key]; ok && key != "" {
		p.OrderID = id
	} else {
		o.n++
		p.OrderID = fmt.Sprintf("%s_%d", o.prefix, o.n)
		p.Created = true
		if key != "" {
			o.byKey[key] = p.OrderID
		}
	}
	o.mu.Unlock()
	logEffect(p)
	return p, o.ledger.Add(capture.Effect{Step: r.Header.Get(capture.HeaderStep), RequestID: requestID, Key: key, OrderID: p.OrderID,
		Created: p.Created, Status: p.Status})
}

// respond writes p as the JSON answer, with the replay marker when the
// order was not made by this request.
func respond(w http.ResponseWriter, p placed) {
	w.Header().Set("Content-Type", "application/json")
	if !p.Created {
		w.Header().Set("Idempotent-Replayed", "true")
	}
	w.WriteHeader(p.Status)
	_ = json.NewEncoder(w).Encode(map[string]string{"order_id": p.OrderID})
}

// newRequestID makes an id the way a hand-written middleware does when the
// request came without X-Request-Id.
func newRequestID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// statusRecorder remembers the status a handler wrote, for the access
// line a hand-written middleware logs after it.
type statusRecorder struct {
	http.ResponseWriter
	Status int
}

// WriteHeader records the status and passes it on.
func (s *statusRecorder) WriteHeader(code int) {
	if s.Status == 0 {
		s.Status = code
	}
	s.ResponseWriter.WriteHeader(code)
}

// Write records the implicit 200 of a handler that writes without a header.
func (s *statusRecorder) Write(b []byte) (int, error) {
	if s.Status == 0 {
		s.Status = http.StatusOK
	}
	return s.ResponseWriter.Write(b)
}
