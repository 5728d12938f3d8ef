package capture

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"
)

func TestLedger(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ledger.jsonl")
	if done, err := ReadLedger(path); err != nil || done != nil {
		t.Fatalf("a ledger not yet written: %v, %v", done, err)
	}
	l, err := OpenLedger(path)
	if err != nil {
		t.Fatal(err)
	}
	made := Effect{Step: "first", RequestID: "r1", Key: "k1", OrderID: "ord_1", Created: true, Status: 201}
	replayed := Effect{Step: "retry", RequestID: "r2", Key: "k1", OrderID: "ord_1", Status: 201}
	for _, e := range []Effect{made, replayed} {
		if err := l.Add(e); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	done, err := WaitLedger(ctx, path, "retry")
	if err != nil || !reflect.DeepEqual(done, []Effect{made, replayed}) {
		t.Fatalf("read %+v, %v", done, err)
	}
	if got := effects(done); !reflect.DeepEqual(got, map[string]string{"r1": "ord_1"}) {
		t.Fatalf("effects %v: only the order made counts", got)
	}

	// A line being written is left for the next read.
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(`{"step":"third","request_id":"r3"`); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if done, err := ReadLedger(path); err != nil || len(done) != 2 {
		t.Fatalf("with a line half written: %+v, %v", done, err)
	}

	ctx, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	defer cancel()
	if _, err := WaitLedger(ctx, path, "never"); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("waiting for a step never recorded: %v", err)
	}
}
