package ingest

import (
	"context"
	"strings"
	"testing"

	"github.com/idem-cli/idem/model"
)

const incidentKey = "0b5d3c1e-5b7a-4d1e-9a63-2f1f3c9b8e41"

// readString reads one input given as a string and returns its observations.
func readString(t *testing.T, name, data string, opts Options) ([]*model.Observation, *model.Input) {
	t.Helper()
	opts.Stdin = strings.NewReader(data)
	var col Collector
	inputs, err := Read(context.Background(), []string{"-"}, opts, &col)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return col.Obs, inputs[0]
}
