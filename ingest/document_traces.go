package ingest

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"

	"github.com/idem-cli/idem/formats"
)

// A trace download is one JSON document, often pretty-printed, sometimes
// of many megabytes: it is streamed as a HAR is, an element of its list
// at a time, each read by the formats by its shape (a ResourceSpans of
// OTLP, a trace of Jaeger's). The documents streamed, by where their list
// is:
//
//	{"resourceSpans": [...]}             OTLP/JSON (Tempo's and Jaeger's OTLP downloads)
//	{"batches": [...]}                   Grafana Tempo's older answers
//	{"result": {"resourceSpans": [...]}} Jaeger's api/v3 answers
//	{"trace": {"resourceSpans": [...]}}  Tempo's api/v2 answers
//	{"data": [{"traceID": ...}, ...]}    Jaeger's query API and UI download
//
// A Zipkin answer is a JSON array of spans, which every document's reader
// already streams an element at a time.

// traceDocument returns the path of the list to stream when head starts
// one of the documents above, and whether it is one only as a document:
// its wrapper says nothing on a line of its own (the OTLP and Tempo lists
// are also read as JSON lines, a batch a line).
func traceDocument(head []byte) (path []string, wrapped bool) {
	dec := json.NewDecoder(bytes.NewReader(bytes.TrimPrefix(head, formats.BOM)))
	delim := func(want json.Delim) bool {
		t, err := dec.Token()
		d, ok := t.(json.Delim)
		return err == nil && ok && d == want
	}
	key := func() string {
		t, err := dec.Token()
		if s, ok := t.(string); err == nil && ok {
			return s
		}
		return ""
	}
	if !delim('{') {
		return nil, false
	}
	switch k := key(); k {
	case "resourceSpans", "batches":
		if delim('[') {
			return []string{k}, false
		}
	case "result", "trace":
		if delim('{') && key() == "resourceSpans" && delim('[') {
			return []string{k, "resourceSpans"}, true
		}
	case "data":
		if delim('[') && delim('{') && key() == "traceID" {
			return []string{"data"}, true
		}
	}
	return nil, false
}

// streamList walks the objects along path to the list at its end, handing
// each element to element to read, and skips every other member: the
// document's other fields (Jaeger's total, limit, errors) say nothing of
// a request.
func streamList(dec *json.Decoder, path []string, element func() error) error {
	err := func() error {
		if err := expectDelim(dec, '{'); err != nil {
			return err
		}
		for dec.More() {
			key, err := dec.Token()
			if err != nil {
				return err
			}
			if key != path[0] {
				var skip json.RawMessage
				if err := dec.Decode(&skip); err != nil {
					return err
				}
				continue
			}
			if len(path) > 1 {
				if err := streamList(dec, path[1:], element); err != nil {
					return err
				}
				continue
			}
			if err := expectDelim(dec, '['); err != nil {
				return err
			}
			for dec.More() {
				if err := element(); err != nil {
					return err
				}
			}
			if err := closing(dec); err != nil { // ]
				return err
			}
		}
		return closing(dec) // }
	}()
	if errors.Is(err, io.EOF) {
		return io.ErrUnexpectedEOF // inside the document
	}
	return err
}

var errNotTraces = errors.New("a trace download's list is not where its first lines put it")

// expectDelim reads the next token, which must be want.
func expectDelim(dec *json.Decoder, want json.Delim) error {
	t, err := dec.Token()
	if err != nil {
		return err
	}
	if d, ok := t.(json.Delim); !ok || d != want {
		return errNotTraces
	}
	return nil
}
