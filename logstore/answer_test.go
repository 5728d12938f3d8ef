package logstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// endless stands in for a store whose answer never ends: head, then body
// again and again until the client goes. It counts what it wrote.
func endless(t *testing.T, head, body string) (addr string, sent *atomic.Int64, done <-chan struct{}) {
	sent = new(atomic.Int64)
	finished := make(chan struct{}, 16)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() { finished <- struct{}{} }()
		n, _ := io.WriteString(w, head)
		sent.Add(int64(n))
		chunk := strings.Repeat(body, max(1, 64<<10/len(body)))
		for i := 0; r.Context().Err() == nil; i++ {
			n, err := io.WriteString(w, chunk)
			sent.Add(int64(n))
			if err != nil {
				return
			}
		}
	}))
	t.Cleanup(srv.Close)
	return strings.TrimPrefix(srv.URL, "http://"), sent, finished
}

// An endless list of field names is cut at its bound: an incomplete
// result saying so, read no further (it reached 11 GB in a minute).
func TestEndlessFieldNamesAreCut(t *testing.T) {
	addr, sent, done := endless(t, `{"values":[`, `{"value":"field","hits":1},`)
	st, err := Open("victorialogs://"+addr, Options{Timeout: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err = st.Fields(context.Background(), Window{})
	var ie *IncompleteError
	if !errors.As(err, &ie) || !errors.Is(err, errAnswerTooLarge) || !strings.Contains(err.Error(), fmt.Sprint(maxFieldNamesBytes)) {
		t.Fatalf("err %v, want an incomplete result past %d bytes", err, maxFieldNamesBytes)
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("took %v", d)
	}
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the answer is still being read")
	}
	// What the socket buffers held past the bound, not more.
	if n := sent.Load(); n > 2*maxFieldNamesBytes {
		t.Errorf("the stand-in sent %d bytes before idem stopped, bound %d", n, maxFieldNamesBytes)
	}
}

// An endless query answer is cut at max_answer_bytes.
func TestEndlessQueryAnswerIsCut(t *testing.T) {
	addr, sent, done := endless(t, "", `{"_msg":"a line","_time":"2026-11-30T09:00:00Z"}`+"\n")
	st, err := Open("victorialogs://"+addr+"?max_answer_bytes=1048576&max_answer_records=1000000000", Options{Timeout: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	err = st.Run(context.Background(), Lines{Filter: All{}}, Window{}, func(Record) error { n++; return nil })
	if !errors.Is(err, errAnswerTooLarge) || !strings.Contains(err.Error(), "1048576 bytes") || !strings.Contains(err.Error(), "max_answer_bytes") {
		t.Fatalf("err %v after %d records, want an incomplete result past 1048576 bytes naming max_answer_bytes", err, n)
	}
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the answer is still being read")
	}
	if n := sent.Load(); n > 16<<20 {
		t.Errorf("the stand-in sent %d bytes before idem stopped", n)
	}
}

// An answer over the record bound is an incomplete result; one at it is
// whole, as is one of exactly the byte bound.
func TestAnswerRecordsAndBytesBound(t *testing.T) {
	line := `{"_msg":"a line","_time":"2026-11-30T09:00:00Z"}` + "\n"
	for _, c := range []struct {
		name, params string
		lines        int
		wantErr      string
	}{
		{"over the record bound", "max_answer_records=5", 6, "passed 5 records"},
		{"at the record bound", "max_answer_records=5", 5, ""},
		{"at the byte bound", fmt.Sprintf("max_answer_bytes=%d", 5*len(line)), 5, ""},
		{"a byte over the byte bound", fmt.Sprintf("max_answer_bytes=%d", 5*len(line)-1), 5, fmt.Sprintf("passed %d bytes", 5*len(line)-1)},
	} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			io.WriteString(w, strings.Repeat(line, c.lines))
		}))
		st, err := Open("victorialogs://"+strings.TrimPrefix(srv.URL, "http://")+"?"+c.params, Options{Timeout: 10 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		err = st.Run(context.Background(), Lines{Filter: All{}}, Window{}, func(Record) error { n++; return nil })
		switch {
		case c.wantErr == "" && (err != nil || n != c.lines):
			t.Errorf("%s: %d records, err %v; want %d, no error", c.name, n, err, c.lines)
		case c.wantErr != "" && (!errors.Is(err, errAnswerTooLarge) || !strings.Contains(err.Error(), c.wantErr) || !strings.Contains(err.Error(), "incomplete result")):
			t.Errorf("%s: err %v, want an incomplete result: %s", c.name, err, c.wantErr)
		}
		srv.Close()
	}
}

// The bounds in the address are numbers of at least one.
func TestAnswerBoundsInTheAddress(t *testing.T) {
	for _, addr := range []string{"victorialogs://127.0.0.1:9428?max_answer_bytes=0", "victorialogs://127.0.0.1:9428?max_answer_records=many"} {
		var ae *AddressError
		if _, err := Open(addr, Options{}); !errors.As(err, &ae) {
			t.Errorf("%s: err %v, want an address error", addr, err)
		}
	}
	st, err := Open("victorialogs://127.0.0.1:9428", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if v := st.(*victoriaLogs); v.MaxAnswerBytes != defaultMaxAnswerBytes || v.MaxAnswerRecords != defaultMaxAnswerRecords {
		t.Errorf("bounds %d bytes, %d records; want the defaults", v.MaxAnswerBytes, v.MaxAnswerRecords)
	}
}
