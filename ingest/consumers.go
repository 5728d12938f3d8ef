package ingest

import (
	"github.com/idem-cli/idem/formats"
	"github.com/idem-cli/idem/model"
)

// Tee hands every batch to each consumer in turn; each keeps its own
// scratch. It wants raw records when any of them does.
func Tee(cs ...Consumer) Consumer { return tee(cs) }

type tee []Consumer

func (t tee) Prepare(b *model.Batch) {
	own := t.scratch(b)
	for i, c := range t {
		b.Scratch = own[i]
		c.Prepare(b)
		own[i] = b.Scratch
	}
	b.Scratch = own
}

func (t tee) Consume(b *model.Batch) {
	own := t.scratch(b)
	for i, c := range t {
		b.Scratch = own[i]
		c.Consume(b)
		own[i] = b.Scratch
	}
	b.Scratch = own
}

func (t tee) scratch(b *model.Batch) []any {
	own, ok := b.Scratch.([]any)
	if !ok || len(own) != len(t) {
		own = make([]any, len(t))
	}
	return own
}

func (t tee) WantsRaw() bool {
	for _, c := range t {
		if rc, ok := c.(rawConsumer); ok && rc.WantsRaw() {
			return true
		}
	}
	return false
}

func (t tee) Expect(bytes int64) {
	for _, c := range t {
		if s, ok := c.(sizer); ok {
			s.Expect(bytes)
		}
	}
}

// capturer keeps the full request of every observation that carries its
// key (or the key's hash) or its request id, as a HAR entry or a
// request-logging middleware line recorded it: what replay sends again.
type capturer struct {
	key, keyHash, requestID string
	// Captured lists the requests found, in input and line order.
	Captured []*model.Captured
}

// NewCapturer captures the requests that carry key or requestID (either
// may be empty).
func NewCapturer(key, requestID string) *capturer {
	c := &capturer{key: model.NormalizeKey(key), requestID: requestID}
	if c.key != "" {
		c.keyHash = model.HashKey(c.key)
	}
	return c
}

// WantsRaw says that the capturer reads each observation's record.
func (c *capturer) WantsRaw() bool { return true }

// Prepare rebuilds the batch's matching requests.
func (c *capturer) Prepare(b *model.Batch) {
	var found []*model.Captured
	for i := range b.Obs {
		o := &b.Obs[i]
		byKey := c.key != "" && (o.Key == c.key || o.KeyHash != "" && o.KeyHash == c.keyHash)
		byID := c.requestID != "" && o.RequestID == c.requestID
		if (!byKey && !byID) || i >= len(b.Raw) {
			continue
		}
		if cp := formats.Capture(b.Raw[i], o); cp != nil {
			if cp.Key == "" && byKey {
				cp.Key = c.key // the line logged only the key's hash
			}
			found = append(found, cp)
		}
	}
	b.Scratch = found
}

// Consume keeps the batch's captures in order.
func (c *capturer) Consume(b *model.Batch) {
	found, _ := b.Scratch.([]*model.Captured)
	c.Captured = append(c.Captured, found...)
	b.Scratch = nil
}

// Collector keeps a copy of every observation it is handed, in order: for
// small inputs and tests.
type Collector struct {
	Obs []*model.Observation
}

// Prepare does nothing: copying is done in order.
func (c *Collector) Prepare(*model.Batch) {}

// Consume copies the batch's observations.
func (c *Collector) Consume(b *model.Batch) {
	for i := range b.Obs {
		c.Obs = append(c.Obs, b.Obs[i].Clone())
	}
}

// counter counts the observations it is handed.
type counter struct{ N int }

// Prepare does nothing.
func (c *counter) Prepare(*model.Batch) {}

// Consume counts the batch's observations.
func (c *counter) Consume(b *model.Batch) { c.N += len(b.Obs) }
