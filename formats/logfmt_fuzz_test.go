package formats

import (
	"testing"

	"github.com/idem-cli/idem/model"
	"github.com/tidwall/gjson"
)

// FuzzLogfmt: no line crashes the reader, and a line it takes is laid
// out as valid JSON holding each of its keys.
func FuzzLogfmt(f *testing.F) {
	for _, s := range []string{`a=1 b="x y" c=true`, `2026-11-30T09:14:32Z heroku[router]: at=info method=GET path=/ status=200`,
		`msg="\x00\x1b[31m" a= b=-0.5`, `k="unterminated`, `=x a=1 b=2`, "a=\xff b=\"\xfe\" c=3",
		`INFO:orders:order created order_id=ord_1 idempotency_key=k-1`, `12:00:01.234 [main] INFO  c.e.Orders - order created id=1 x="a\"b"`,
		`I, [2026-12-08T10:00:00.123456 #1234]  INFO -- : order created order_id=ord_1`, `2026/12/08 10:00:00 order created a=1`,
		`2026-12-08T10:00:00.123Z  INFO 1234 --- [main] c.e.Orders : order created a=1`, `INFO:x: a=`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		p := NewParser(nil, nil)
		var out Result
		p.Into(&out)
		if readLogfmt(p, line, model.Source{File: "f", Line: 1}) {
			if !gjson.ValidBytes(p.logfmtBuf) {
				t.Fatalf("%q laid out as invalid JSON %q", line, p.logfmtBuf)
			}
		}
	})
}
