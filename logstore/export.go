package logstore

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/idem-cli/idem/formats"
	"github.com/idem-cli/idem/model"
	"github.com/idem-cli/idem/redact"
	"github.com/tidwall/gjson"
)

// The fields an export adds to each line besides what phase 1 and 2 query
// (idem's canonical field names, from the format registry): where the line
// came from, so that a diagnosis from the store cites the same file:line,
// and the export run, so that what the store kept can be counted.
const (
	FieldFile   = "idem.file"
	FieldLine   = "idem.line"
	FieldFormat = "idem.format"
	FieldRun    = "idem.run"
	// FieldActivity ties a worker's lines about one activity together
	// (workflow/activity id), where the line names no request id.
	FieldActivity = "idem.activity"
	// FieldSecret marks a line that holds a credential or a body, which
	// the secret-in-logs rule must see wherever it is in the store.
	FieldSecret = "idem.secret"
	// FieldRetried is how many upstreams a proxy tried for the line's
	// request, where more than one: a proxy's own retry, which the
	// proxy-retry rule must see though every status says 201.
	FieldRetried = "idem.upstream_tries"
	// fieldTier is the tier the line's format logs (a label in Loki).
	fieldTier = "idem.tier"
)

// Exporter is an ingest consumer that turns what the reader recognised
// into JSON lines for a store: the record as read in _msg (so it is read
// back in its own format), its time in _time, and the fields phase 1 and
// 2 query under idem's canonical names. Lines that say nothing about a
// request are not sent.
type Exporter struct {
	Store Loader
	Run   string
	// BatchBytes is how much is sent in one request.
	BatchBytes int

	ctx   context.Context
	buf   bytes.Buffer
	names formats.Fields
	last  model.Source
	Sent  int64
	Bytes int64
	Err   error
}

// NewExporter prepares an export run to st.
func NewExporter(ctx context.Context, st Loader, run string) *Exporter {
	return &Exporter{Store: st, Run: run, BatchBytes: 4 << 20, ctx: ctx, names: formats.ByName("canonical").Fields()}
}

// WantsRaw asks the reader for each record as read.
func (e *Exporter) WantsRaw() bool { return true }

// Prepare does nothing: lines are written in order in Consume.
func (e *Exporter) Prepare(*model.Batch) {}

// Consume writes the batch's records; a record that gave several
// observations (an envelope, a batch) is written once.
func (e *Exporter) Consume(b *model.Batch) {
	if e.Err != nil {
		return
	}
	for i := range b.Obs {
		o := &b.Obs[i]
		if o.Source == e.last {
			continue
		}
		e.last = o.Source
		raw := ""
		if i < len(b.Raw) {
			raw = b.Raw[i]
		}
		e.write(o, raw)
		if e.buf.Len() >= e.BatchBytes {
			e.flush()
		}
	}
}

// Close sends what is left.
func (e *Exporter) Close() error {
	if e.Err == nil && e.buf.Len() > 0 {
		e.flush()
	}
	return e.Err
}

func (e *Exporter) flush() {
	n := int64(e.buf.Len())
	if err := e.Store.Insert(e.ctx, bytes.NewReader(e.buf.Bytes())); err != nil {
		e.Err = err
	}
	e.Bytes += n
	e.buf.Reset()
}

// holdsSecret tells a record with a credential (by redact's shapes) or a
// body field.
func holdsSecret(raw string, bodies []string) bool {
	if redact.String(raw) != raw {
		return true
	}
	if strings.HasPrefix(raw, "{") {
		for _, b := range bodies {
			if gjson.Get(raw, gjson.Escape(b)).Exists() {
				return true
			}
		}
	}
	return false
}

func (e *Exporter) write(o *model.Observation, raw string) {
	msg := []byte(raw)
	if len(msg) > 0 && msg[0] == '{' {
		// One record, one line: a pretty-printed object (a HAR entry) is
		// compacted, which changes no value.
		var c bytes.Buffer
		if json.Compact(&c, msg) == nil {
			msg = c.Bytes()
		}
	}
	rec := map[string]string{
		"_msg":      string(msg),
		FieldFile:   o.Source.File,
		FieldLine:   strconv.Itoa(o.Source.Line),
		FieldFormat: o.Format,
		FieldRun:    e.Run,
		fieldTier:   o.Tier.String(),
	}
	if !o.Time.IsZero() {
		rec["_time"] = o.Time.UTC().Format(time.RFC3339Nano)
	}
	set := func(names []string, v string) {
		if len(names) > 0 && v != "" {
			rec[names[0]] = v
		}
	}
	set(e.names.Key, o.Key)
	set(e.names.KeyHash, o.KeyHash)
	set(e.names.RequestID, o.RequestID)
	if o.Status != 0 {
		set(e.names.Status, strconv.Itoa(o.Status))
	}
	if o.Outcome != model.OutcomeUnknown {
		set(e.names.Outcome, o.Outcome.String())
	}
	set(e.names.Decision, o.Decision)
	set(e.names.State, o.State)
	set(e.names.Client, o.Client)
	set(e.names.Fingerprint, o.Fingerprint)
	set(e.names.Method, o.Method)
	set(e.names.Route, o.Route)
	if o.WorkflowID() != "" || o.ActivityID() != "" {
		rec[FieldActivity] = o.WorkflowID() + "/" + o.ActivityID()
	}
	if holdsSecret(raw, e.names.Body) {
		rec[FieldSecret] = "1"
	}
	if o.UpstreamTries > 1 {
		rec[FieldRetried] = strconv.Itoa(o.UpstreamTries)
	}
	line, err := json.Marshal(rec)
	if err != nil {
		e.Err = fmt.Errorf("export: %w", err)
		return
	}
	e.buf.Write(line)
	e.buf.WriteByte('\n')
	e.Sent++
}
