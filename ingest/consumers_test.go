package ingest

import (
	"context"
	"strings"
	"testing"
)

func TestCaptureFromHAR(t *testing.T) {
	capture := NewCapturer(`"`+incidentKey+`"`, "")
	_, err := Read(context.Background(), []string{"../fixtures/incident/client.har"}, Options{}, capture)
	if err != nil {
		t.Fatal(err)
	}
	got := capture.Captured
	if len(got) != 2 {
		t.Fatalf("captured %d requests, want the two deliveries", len(got))
	}
	c := got[0]
	if c.Method != "POST" || c.URL != "https://shop.example.com/v1/orders" || !c.HasBody || len(c.Headers) < 4 || c.Status != 0 || c.Source.Line != 10 {
		t.Errorf("first capture: %+v", c)
	}
	if got[1].Status != 201 || !strings.Contains(string(got[1].ResponseBody), "ord_8H2kQ") {
		t.Errorf("second capture: %+v", got[1])
	}
}
