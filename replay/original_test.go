package replay

import (
	"errors"
	"testing"

	"github.com/idem-cli/idem/model"
	"github.com/tidwall/gjson"
)

func TestResultIDIn(t *testing.T) {
	tests := []struct {
		name, body, url, path, id string
	}{
		{"id", `{"id":"ord_8H2kQ","status":"created"}`, "/v1/orders", "id", "ord_8H2kQ"},
		{"data.id", `{"data":{"id":"o_1","type":"order"}}`, "/v1/orders", "data.id", "o_1"},
		{"requestId as in the article", `{"requestId":"demo-request-42","state":"accepted"}`, "/v1/demo-requests", "requestId", "demo-request-42"},
		{"the route's own id first", `{"customer_id":"c_1","order_id":"o_9"}`, "/v1/orders", "order_id", "o_9"},
		{"the route's camelCase id", `{"customerId":"c_1","paymentId":"p_9"}`, "/v1/payments", "paymentId", "p_9"},
		{"a y-plural route", `{"entryId":"e_1","deliveryId":"d_2"}`, "/v1/deliveries", "deliveryId", "d_2"},
		{"any *_id", `{"state":"ok","receipt_id":"r_1"}`, "/v1/x", "receipt_id", "r_1"},
		{"under data", `{"data":{"charge_id":"ch_1"}}`, "/v1/x", "data.charge_id", "ch_1"},
		{"a numeric id", `{"id":42}`, "/v1/x", "id", "42"},
		{"the key echoed is not a result", `{"idempotency_key":"k-1","request_id":"req-51","state":"ok"}`, "/v1/x", "", ""},
		{"an echoed request id is skipped", `{"request_id":"req-51","order_id":"o_1"}`, "/v1/x", "order_id", "o_1"},
		{"no id", `{"state":"accepted"}`, "/v1/x", "", ""},
		{"not JSON", `created`, "/v1/x", "", ""},
		{"an array", `[{"id":"x"}]`, "/v1/x", "", ""},
		{"an empty id", `{"id":"","order_id":"o_1"}`, "/v1/orders", "order_id", "o_1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path, id := resultIDIn([]byte(tt.body), tt.url, "k-1", "req-51")
			if path != tt.path || id != tt.id {
				t.Errorf("ResultIDIn(%s) = %q %q, want %q %q", tt.body, path, id, tt.path, tt.id)
			}
		})
	}
}

func TestPickCapture(t *testing.T) {
	if _, err := PickCapture(nil, ""); !errors.Is(err, errNoCapture) {
		t.Errorf("no capture: %v", err)
	}
	path := &model.Captured{URL: "/v1/orders", RequestID: "a"}
	har := &model.Captured{URL: "https://x/v1/orders", RequestID: "b"}
	withBody := &model.Captured{URL: "/v1/orders", RequestID: "c", HasBody: true}
	list := []*model.Captured{path, har, withBody}
	if c, _ := PickCapture(list, ""); c != withBody {
		t.Errorf("picked %+v, want the one with a body", c)
	}
	if c, _ := PickCapture(list, "b"); c != har {
		t.Errorf("picked %+v, want request id b", c)
	}
	if _, err := PickCapture(list, "zz"); err == nil {
		t.Error("an unknown request id was found")
	}
}

func TestOriginalOf(t *testing.T) {
	lost := &model.Captured{URL: "https://x/v1/orders", Source: model.Source{File: "client.har", Line: 1}}
	ok := &model.Captured{URL: "https://x/v1/orders", Status: 201, ResponseBody: []byte(`{"requestId":"demo-request-1"}`),
		Source: model.Source{File: "client.har", Line: 2}}
	conflict := &model.Captured{URL: "https://x/v1/orders", Status: 409, Source: model.Source{File: "client.har", Line: 3}}
	o := OriginalOf(nil, "k", []*model.Captured{lost, conflict, ok})
	if o.Status != 201 || o.ResultID != "demo-request-1" || o.Source != "client.har:2" || o.ResultPath != "requestId" {
		t.Errorf("original %+v, want the captured 2xx response", o)
	}
	o = OriginalOf(nil, "k", []*model.Captured{lost, conflict})
	if o.Status != 409 || o.Source != "client.har:3" {
		t.Errorf("without a 2xx: %+v", o)
	}
	if o := OriginalOf(nil, "k", []*model.Captured{lost}); o.Status != 0 {
		t.Errorf("nothing answered: %+v", o)
	}
}

// FuzzResultIDIn checks that any body is read without a panic and that a
// found id is what its path holds.
func FuzzResultIDIn(f *testing.F) {
	f.Add([]byte(`{"requestId":"demo-request-42","state":"accepted"}`), "/v1/demo-requests")
	f.Add([]byte(`{"data":{"order_id":7}}`), "/v1/orders")
	f.Add([]byte(`{"a.b_id":"x","*Id":"y"}`), "/%zz")
	f.Fuzz(func(t *testing.T, body []byte, rawURL string) {
		path, id := resultIDIn(body, rawURL, "k")
		if (path == "") != (id == "") {
			t.Fatalf("path %q, id %q", path, id)
		}
		if path != "" && gjson.GetBytes(body, path).String() != id {
			t.Fatalf("%s holds %q, not %q", path, gjson.GetBytes(body, path).String(), id)
		}
	})
}
