package report_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/idem-cli/idem/model"
	"github.com/idem-cli/idem/report"
)

// TestAssumedTierInEveryOutput: an input whose tier is only its format's
// default is listed as "server (assumed)" in text, Markdown and HTML, and
// with tier_assumed in JSON; one its lines said is listed as read.
func TestAssumedTierInEveryOutput(t *testing.T) {
	r := &report.Report{Inputs: []*model.Input{
		{Path: "effects.jsonl", Format: "slog", Tier: "server", TierAssumed: true, Lines: 2},
		{Path: "caller.log", Format: "json", Tier: "client", Lines: 8},
	}}
	var text, md, html, js bytes.Buffer
	r.Text(&text, report.NewStyles(&text, false), 100)
	r.Markdown(&md)
	if err := r.HTML(&html); err != nil {
		t.Fatal(err)
	}
	if err := r.JSON(&js); err != nil {
		t.Fatal(err)
	}
	for name, out := range map[string]string{"text": text.String(), "markdown": md.String(), "html": html.String()} {
		if strings.Count(out, "server (assumed)") != 1 || strings.Contains(out, "client (assumed)") {
			t.Errorf("%s: want effects.jsonl's tier as server (assumed), caller.log's as client:\n%s", name, out)
		}
	}
	var doc struct {
		Inputs []struct {
			Path        string `json:"path"`
			Tier        string `json:"tier"`
			TierAssumed *bool  `json:"tier_assumed"`
		} `json:"inputs"`
	}
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Inputs) != 2 || doc.Inputs[0].Tier != "server" || doc.Inputs[0].TierAssumed == nil || !*doc.Inputs[0].TierAssumed ||
		doc.Inputs[1].TierAssumed != nil {
		t.Errorf("json inputs: %s", js.String())
	}
}
