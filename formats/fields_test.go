package formats

import (
	"reflect"
	"strings"
	"testing"

	"github.com/idem-cli/idem/model"
)

// TestEveryStringFieldIsCapped ties Parser.finish's caps to the model: a
// new string field of model.Observation that is not capped fails here.
// Each field is made long alone, so that finish's one test for the usual
// short line must look at it too, not only capFields.
func TestEveryStringFieldIsCapped(t *testing.T) {
	long := strings.Repeat("x", 3*MaxField)
	fields := reflect.TypeFor[model.Observation]()
	p := NewParser(nil, nil)
	var res Result
	p.Into(&res)
	for i := range fields.NumField() {
		name := fields.Field(i).Name
		if fields.Field(i).Type.Kind() != reflect.String || name == "Format" {
			continue
		}
		var o model.Observation
		f := reflect.ValueOf(&o).Elem().Field(i)
		f.SetString(long)
		p.finish(&o)
		if len(f.String()) > MaxField {
			t.Errorf("Observation.%s is not capped at %d bytes (%d)", name, MaxField, len(f.String()))
		}
	}
}

// TestWorkflowFieldsAreCapped: the Workflow's strings are capped like
// the observation's own, each made long alone.
func TestWorkflowFieldsAreCapped(t *testing.T) {
	long := strings.Repeat("x", 3*MaxField)
	p := NewParser(nil, nil)
	var res Result
	p.Into(&res)
	fields := reflect.TypeFor[model.Workflow]()
	for i := range fields.NumField() {
		o := model.Observation{Workflow: &model.Workflow{}}
		f := reflect.ValueOf(o.Workflow).Elem().Field(i)
		f.SetString(long)
		p.finish(&o)
		if len(f.String()) > MaxField {
			t.Errorf("Workflow.%s is not capped at %d bytes (%d)", fields.Field(i).Name, MaxField, len(f.String()))
		}
	}
}

// notMappable are the model's fields a config cannot map from a field of
// a custom format, and why.
var notMappable = map[string]string{
	"Tier":       "a source's \"tier\" sets it",
	"Format":     "the format's or pattern's name",
	"Duration":   "mapped as duration_ms",
	"Scope":      "the config's \"scope\" makes it",
	"Replayed":   "a flag read by each format from its replay header",
	"RetryAfter": "a flag read by each format from its Retry-After header",
	"Effect":     "the config's \"effects\" matchers set it",
	"Labels":     "an export's labels",
	"EndOrStart": "the combined reader's: its layout does not say whether its time is the start or the end",
	"RetryMark":  "read from the headers a client library numbers its sends by (grammar.RetryHeaders), wherever they are logged",
	"Source":     "where the line is",
	"Workflow":   "its fields are mapped one by one: workflow_id, run_id, activity_id, activity_type",
}

// TestMappableCoversTheModel ties the config's field mappings to the
// model: every field of model.Observation is mappable or listed above.
func TestMappableCoversTheModel(t *testing.T) {
	typ := reflect.TypeOf(model.Observation{})
	for i := range typ.NumField() {
		name := typ.Field(i).Name
		if _, ok := notMappable[name]; ok {
			continue
		}
		if _, ok := mappable[snake(name)]; !ok {
			t.Errorf("Observation.%s has no config mapping %q and is not listed as unmappable", name, snake(name))
		}
	}
	for name := range mappable {
		o := model.Observation{}
		mappable[name](&o, "2026-11-30T10:00:00Z")
		if name != "status" && name != "attempt" && name != "upstream_status" && name != "upstream_tries" && name != "outcome" && name != "duration_ms" && name != "trace_id" && reflect.ValueOf(o).IsZero() {
			t.Errorf("mapping %q sets nothing", name)
		}
	}
}

// snake turns a Go field name into the config's field name (RequestID →
// request_id, KeyHash → key_hash).
func snake(name string) string {
	var b strings.Builder
	for i, r := range name {
		if r >= 'A' && r <= 'Z' {
			if i > 0 && !(name[i-1] >= 'A' && name[i-1] <= 'Z') {
				b.WriteByte('_')
			}
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	return b.String()
}

// TestVocabularyFormatsSayWhatTheyRead: a format whose lines extractApp
// reads declares it (vocabulary), so a log store is asked for its fields
// and --explain-fields names the vocabulary; forgetting it was silent.
func TestVocabularyFormatsSayWhatTheyRead(t *testing.T) {
	app := reflect.ValueOf(extractApp).Pointer()
	n := 0
	for _, f := range registry {
		if f.extract != nil && reflect.ValueOf(f.extract).Pointer() == app && !f.vocabulary {
			t.Errorf("format %s reads its lines with extractApp but does not set vocabulary", f.Name)
		}
		if f.vocabulary {
			n++
			if len(f.Fields().Key) == 0 || len(f.Fields().RequestID) == 0 {
				t.Errorf("format %s reads by the vocabulary but names no key or request id field", f.Name)
			}
		}
	}
	if n < 12 {
		t.Errorf("%d formats read by the vocabulary, want at least the 12 application loggers'", n)
	}
}
