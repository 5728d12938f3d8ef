package report

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestInOrderWritesEveryItemInOrder(t *testing.T) {
	for _, tc := range []struct{ n, size, failAt int }{
		{0, 4, -1}, {1, 4, -1}, {4, 4, -1}, {5, 4, -1}, {1000, 7, -1}, {1000, 256, -1}, {1000, 7, 500}, {10, 3, 0},
	} {
		t.Run(fmt.Sprintf("%d by %d, failing at %d", tc.n, tc.size, tc.failAt), func(t *testing.T) {
			var got strings.Builder
			err := inOrder(tc.n, tc.size, func(i int, out *bytes.Buffer) error {
				if i == tc.failAt {
					return errors.New("boom")
				}
				fmt.Fprintf(out, "%d,", i)
				return nil
			}, func(b []byte) { got.Write(b) })
			var want strings.Builder
			last := tc.n
			if tc.failAt >= 0 {
				last = tc.failAt / tc.size * tc.size // the failing chunk is not written
			}
			for i := 0; i < last; i++ {
				fmt.Fprintf(&want, "%d,", i)
			}
			if (err != nil) != (tc.failAt >= 0) || got.String() != want.String() {
				t.Errorf("err %v, wrote %q, want %q", err, got.String(), want.String())
			}
		})
	}
}
