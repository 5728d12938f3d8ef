package capture

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"sync"
	"testing"
	"time"
)

// TestSendRecords sends through a server that answers as the step asks
// and checks what Send recorded against what the server saw.
func TestSendRecords(t *testing.T) {
	var mu sync.Mutex
	seen := map[string]http.Header{}
	bodies := map[string]string{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		seen[r.Header.Get(HeaderStep)] = r.Header.Clone()
		bodies[r.Header.Get(HeaderStep)] = string(b)
		mu.Unlock()
		if r.URL.Query().Get("slow") != "" {
			time.Sleep(time.Second)
		}
		w.Header().Set("Idempotent-Replayed", "true")
		w.Header().Set("X-Request-Id", "rid-back")
		w.WriteHeader(http.StatusCreated)
		_, _ = io.WriteString(w, ` {"order_id":"ord_7"} `)
	}))
	defer srv.Close()
	ctx := context.Background()

	s := Send(ctx, Request{Step: "ok", Base: srv.URL, Path: "/v1/orders?x=1", KeyHeader: "X-Idempotency-Key", Key: "k1",
		RequestID: "r1", Body: `{"a":1}`, Headers: map[string]string{"Authorization": "Bearer t"}, UserAgent: "ua/1",
		Delay: 250 * time.Millisecond, Timeout: 5 * time.Second, Meant: "created"})
	want := Sent{Step: "ok", Layer: "client", Path: "/v1/orders?x=1", RequestID: "r1", Key: "k1", Body: `{"a":1}`,
		Headers: map[string]string{"Authorization": "Bearer t"}, Delay: 250 * time.Millisecond, Timeout: 5 * time.Second, Meant: "created",
		Start: s.Start, End: s.End, Ended: EndedResponse, Status: 201, Response: `{"order_id":"ord_7"}`, ResultID: "ord_7",
		Replayed: true, ResponseRequestID: "rid-back"}
	if !reflect.DeepEqual(s, want) || s.End.Before(s.Start) {
		t.Fatalf("got  %+v\nwant %+v", s, want)
	}
	h := seen["ok"]
	for name, v := range map[string]string{"X-Idempotency-Key": "k1", "X-Request-Id": "r1", HeaderDelay: "250", "User-Agent": "ua/1",
		"Authorization": "Bearer t", "Content-Type": "application/json"} {
		if h.Get(name) != v {
			t.Errorf("the server saw %s %q, want %q", name, h.Get(name), v)
		}
	}
	if bodies["ok"] != `{"a":1}` {
		t.Errorf("the server read %q", bodies["ok"])
	}

	s = Send(ctx, Request{Step: "get", Method: http.MethodGet, Base: srv.URL, Path: "/v1/orders/1", Body: "ignored"})
	if s.Body != "" || bodies["get"] != "" || seen["get"].Get("X-Request-Id") != "" || seen["get"].Get(HeaderDelay) != "" {
		t.Errorf("a GET recorded body %q, sent %q, headers %v", s.Body, bodies["get"], seen["get"])
	}

	s = Send(ctx, Request{Step: "timeout", Base: srv.URL, Path: "/?slow=1", Timeout: 100 * time.Millisecond})
	if s.Ended != EndedTimeout || s.Error != "timeout" || s.Status != 0 {
		t.Errorf("a timeout: ended %s, error %q, status %d", s.Ended, s.Error, s.Status)
	}

	start := time.Now()
	s = Send(ctx, Request{Step: "abort", Base: srv.URL, Path: "/?slow=1", Key: "k2", Abort: true})
	if s.Ended != EndedAborted || time.Since(start) > 900*time.Millisecond {
		t.Errorf("an abort: ended %s after %s", s.Ended, time.Since(start))
	}
	mu.Lock()
	got := seen["abort"].Get("Idempotency-Key")
	mu.Unlock()
	if got != "k2" {
		t.Errorf("the aborted request reached the server with key %q", got)
	}

	closed := httptest.NewServer(http.NotFoundHandler())
	base := closed.URL
	closed.Close()
	if s = Send(ctx, Request{Step: "refused", Base: base, Path: "/"}); s.Ended != endedRefused {
		t.Errorf("nothing listening: ended %s, error %q", s.Ended, s.Error)
	}
}
