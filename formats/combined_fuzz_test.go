package formats

import (
	"bufio"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/idem-cli/idem/model"
)

// FuzzCombinedHand holds the hand reader of the combined layout to the
// expressions that define it: for any line, clfLine, clfAnywhere and
// clfCut give exactly the groups combinedLine, combinedAnywhere and
// combinedCut give, or refuse the line where they find no match; and
// nextExtra finds extraToken's matches, with their names and values, at
// the same places, in the line and in what follows a combined line's
// fields.
func FuzzCombinedHand(f *testing.F) {
	for _, line := range combinedSeeds(f) {
		f.Add(line)
	}
	f.Fuzz(func(t *testing.T, line string) {
		sameCLF(t, "combinedLine", combinedLine, clfLine, line)
		sameCLF(t, "combinedAnywhere", combinedAnywhere, clfAnywhere, line)
		sameCLF(t, "combinedCut", combinedCut, clfCut, line)
		sameExtras(t, line)
		var m clfMatch
		if clfLine(line, &m) {
			sameExtras(t, m[11])
		}
	})
}

// TestCombinedHandOnSeeds runs the fuzz target's comparisons on its seeds
// in every test run, and checks the seeds hold lines of each kind: read
// with a vhost, behind a prefix, cut short, and refused by all three.
func TestCombinedHandOnSeeds(t *testing.T) {
	var vhost, anywhere, cut, none int
	for _, line := range combinedSeeds(t) {
		sameCLF(t, "combinedLine", combinedLine, clfLine, line)
		sameCLF(t, "combinedAnywhere", combinedAnywhere, clfAnywhere, line)
		sameCLF(t, "combinedCut", combinedCut, clfCut, line)
		sameExtras(t, line)
		var m clfMatch
		switch {
		case clfLine(line, &m):
			sameExtras(t, m[11])
			if m[1] != "" {
				vhost++
			}
		case clfAnywhere(line, &m):
			anywhere++
		case clfCut(line, &m):
			cut++
		default:
			none++
		}
	}
	if vhost == 0 || anywhere == 0 || cut == 0 || none == 0 {
		t.Errorf("seeds read with a vhost %d, behind a prefix %d, cut %d, by none %d: each kind needs some", vhost, anywhere, cut, none)
	}
}

// sameCLF fails unless read gives for line the groups re gives.
func sameCLF(t *testing.T, name string, re *regexp.Regexp, read func(string, *clfMatch) bool, line string) {
	t.Helper()
	want := re.FindStringSubmatch(line)
	var m clfMatch
	ok := read(line, &m)
	if ok != (want != nil) {
		t.Fatalf("%s %q: read by hand %v, by the expression %v", name, line, ok, want != nil)
	}
	if ok && !slices.Equal(m[:], want) {
		for i := range want {
			if m[i] != want[i] {
				t.Errorf("%s %q: group %d by hand %q, by the expression %q", name, line, i, m[i], want[i])
			}
		}
		t.FailNow()
	}
}

// sameExtras fails unless nextExtra finds in s what extraToken finds:
// at most sixteen matches, each at the same place, with the same name and
// value.
func sameExtras(t *testing.T, s string) {
	t.Helper()
	want := extraToken.FindAllStringSubmatchIndex(s, 16)
	i := 0
	for n := 0; n <= len(want); n++ {
		name, v, start, end, ok := nextExtra(s, i)
		if n == len(want) {
			if ok && n < 16 {
				t.Fatalf("%q: match %d %q by hand, none by the expression", s, n, s[start:end])
			}
			return
		}
		w := want[n]
		wantName := ""
		if w[2] >= 0 {
			wantName = s[w[2]:w[3]]
		}
		if !ok || start != w[0] || end != w[1] || name != wantName || v != s[w[4]:w[5]] {
			t.Fatalf("%q: match %d by hand %v [%d:%d] %q=%q, by the expression [%d:%d] %q=%q", s, n, ok, start, end, name, v, w[0], w[1], wantName, s[w[4]:w[5]])
		}
		i = end
	}
}

// combinedSeeds are every line in the package that a combined reader
// might see: the formats' samples, the string literals of its sources
// and tests that hold the time's closing bracket before a quote, its
// fuzz corpora, the fixtures' lines that hold it, odd lines of the
// layout, and one line cut at every byte.
func combinedSeeds(tb testing.TB) []string {
	tb.Helper()
	seen := map[string]bool{}
	var lines []string
	add := func(s string) {
		for line := range strings.SplitSeq(s, "\n") {
			if !seen[line] {
				seen[line] = true
				lines = append(lines, line)
			}
		}
		if !seen[s] { // a line feed inside is a line too
			seen[s] = true
			lines = append(lines, s)
		}
	}
	for _, f := range all() {
		for _, s := range f.Samples {
			add(s.Line)
		}
	}
	sources, _ := filepath.Glob("*.go")
	fset := token.NewFileSet()
	for _, path := range sources {
		file, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			tb.Fatal(err)
		}
		ast.Inspect(file, func(n ast.Node) bool {
			if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
				if s, err := strconv.Unquote(lit.Value); err == nil && strings.Contains(s, `] "`) {
					add(s)
				}
			}
			return true
		})
	}
	corpora, _ := filepath.Glob("testdata/fuzz/*/*")
	for _, path := range corpora {
		b, err := os.ReadFile(path)
		if err != nil {
			tb.Fatal(err)
		}
		for v := range strings.SplitSeq(string(b), "\n") {
			v = strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(v, "[]byte("), "string("), ")")
			if s, err := strconv.Unquote(v); err == nil {
				add(s)
			}
		}
	}
	err := filepath.WalkDir("../fixtures", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasSuffix(path, ".md") {
			return err
		}
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			if strings.Contains(sc.Text(), `] "`) {
				add(sc.Text())
			}
		}
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	for _, s := range oddCombinedLines {
		add(s)
	}
	full := `www.example.com:443 2001:db8::7 - "frank" [30/Nov/2026:09:14:04 +0000] "POST /v1/orders?a=\"b\" HTTP/1.1" 499 0 "http://x/\"r\"" "UA \"q\" \\" rt=2.398 us="201" rid="c9b2decb-ebc7-4a9b-99d6-69712772ef41" key="0b5d3c1e \"k\""`
	for i := range len(full) + 1 {
		add(full[:i])
	}
	return lines
}

// oddCombinedLines are lines at the layout's edges.
var oddCombinedLines = []string{
	// escaped quotes in the request, the referer and the user agent
	`1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] "GET /a\"b HTTP/1.1" 200 1 "http://x/\"y\"" "Mozilla \"quoted\" UA"`,
	`1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] "GET /a\" 200 1 \"b HTTP/1.1" 200 1 "-" "-"`,
	`1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] "GET /a" 200 1 "b HTTP/1.1" 200 1 "-" "-"`,
	`1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] "GET /a"" 200 1 "-" "-"`,
	`1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] "GE"T /a HTTP/1.1" 200 1 "-" "-"`,
	`1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] "GET /a HTTP/1.1" 200 1 "\\" "\\\""`,
	`1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] "GET /a HTTP/1.1" 200 1 "-" "x\"`,
	`1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] "GET /a HTTP/1.1" 200 1 "-" "x\\`,
	// "-" everywhere a field may be one
	`- - - [-] "-" 408 - "-" "-"`,
	`- - - [-] "- -" 408 - "-" "-" - - -`,
	`127.0.0.1 - - [02/Dec/2026:04:10:01 +0000] "-" - - "-" "-"`,
	// IPv6 clients
	`2001:db8::1 - - [30/Nov/2026:09:14:04 +0000] "POST /v1/orders HTTP/2.0" 201 12 "-" "curl/8.5.0"`,
	`::1 - - [30/Nov/2026:09:14:04 +0000] "GET / HTTP/1.1" 200 5`,
	`[::1]:443 ::1 - - [30/Nov/2026:09:14:04 +0000] "GET / HTTP/1.1" 200 5 "-" "-"`,
	// a vhost, and what looks like one
	`shop.example.com:443 203.0.113.7 - - [30/Nov/2026:09:14:04 +0000] "POST /v1/orders HTTP/1.1" 201 57 "-" "curl/8.5.0" 1234`,
	`a b c d [e] "GET / H" 200 1`,
	`a b c [d] e [f] "GET / H" 200 1`,
	`a b c [d] "e" [f] "GET / H" 200 1`,
	`a b [c] d [e] "GET / H" 200 1`,
	`a b c [] "GET / H" 200 1`,
	`a b c [x]] "GET / H" 200 1`,
	`a b c [[x] "GET / H" 200 1`,
	// common: no referer or user agent, or only one
	`1.2.3.4 - frank [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.0" 200 2326`,
	`1.2.3.4 - frank [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.0" 200 2326 "-"`,
	`1.2.3.4 - frank [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.0" 200 2326 "-" `,
	`1.2.3.4 - frank [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.0" 200 2326 "-"  "-"`,
	`1.2.3.4 - frank [10/Oct/2000:13:55:36 -0700] "GET /" 200 -`,
	`1.2.3.4 - frank [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.0 more words" 2000 1`,
	`1.2.3.4 - frank [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.0" 20 1`,
	`1.2.3.4 - frank [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.0" 200 12ab "-" "-"`,
	// appended fields, named and quoted, and the shapes read by position
	`10.0.0.7 - - [01/Dec/2026:09:00:07 +0000] "POST /orders HTTP/1.1" 201 123 "-" "curl/8.0" rid=r0000001 key=k0000001`,
	`10.0.0.7 - - [01/Dec/2026:09:00:07 +0000] "POST /orders HTTP/1.1" 201 123 "-" "curl/8.0" rt=0.5 us="504, 201" rid="a b" key="k\"1" idem= x=`,
	`10.0.0.7 - - [01/Dec/2026:09:00:07 +0000] "POST /orders HTTP/1.1" 201 123 "-" "c" key="unterminated rid=x "" "a"b"c" =v _=1 a.b=c "\"" '"'`,
	`10.0.0.7 - - [01/Dec/2026:09:00:07 +0000] "POST /orders HTTP/1.1" 201 123 "-" "c" 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18`,
	`10.0.0.7 - - [01/Dec/2026:09:00:07 +0000] "POST /orders HTTP/1.1" 499 0 "-" "c" 2.398 "-" "c9b2decb-ebc7-4a9b-99d6-69712772ef41" "0b5d3c1e-5b7a-4d1e-9a63-2f1f3c9b8e41"`,
	// tabs, form feeds, carriage returns and vertical tabs, which \s
	// does not hold
	"1.2.3.4\t-\t-\t[10/Oct/2000:13:55:36 -0700]\t\"GET / HTTP/1.0\"\t200\t1",
	"1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] \"GET\t/ HTTP/1.0\" 200 1 \"-\" \"a\tb\"\trid=x\tkey=y",
	"1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] \"GET / HTTP/1.0\" 200 1 \"-\" \"-\"\r",
	"1.2.3.4\v- - [10/Oct/2000:13:55:36 -0700] \"GET\v/ HTTP/1.0\" 200 1\f\"-\" \"-\"",
	"\f1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] \"GET / HTTP/1.0\" 200 1",
	// line feeds, which (.*)$ does not cross but the quoted fields do
	"1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] \"GET / HTTP/1.0\" 200 1 \"-\" \"a\nb\" x",
	"1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] \"GET / HTTP/1.0\" 200 1 \"-\" \"ab\" x\ny",
	"1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] \"GET / HTTP/1.0\" 200 1 \"a\\\nb\" \"c\"",
	"1.2.3.4 - - [10/Oct\n/2000:13:55:36 -0700] \"GET / HTTP/1.0\nX: 1\" 200 1",
	"1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] \"GET\n/ HTTP/1.0\" 200 1",
	// bytes that are not UTF-8
	"\xff\xfe - - [10/Oct/2000:13:55:36 -0700] \"GET /\xc3 HTTP/1.1\" 200 1 \"\x80\" \"\xc3\x28\" rid=\xe2\x82 key=\"\\\xc3\xa9\"",
	"1.2.3.4 - - [10/Oct/2000:13:55:36 -0700] \"\\\xc3\" 400 1 \"\\\xe2\x82\xac\" \"\\\xff\"",
	"\xc2\xa01.2.3.4 - - [10/Oct/2000:13:55:36 -0700] \"GET / HTTP/1.1\" 200 1",
	// behind a logger's or a runtime's prefix
	`info: [app] 1.2.3.4 - - [30/Nov/2026:09:14:04 +0000] "POST /v1/orders HTTP/1.1" 201 5 "-" "c"`,
	`  1.2.3.4 - - [30/Nov/2026:09:14:04 +0000] "POST /v1/orders HTTP/1.1" 201 5 "-" "c"`,
	"x\t1.2.3.4 - - [30/Nov/2026:09:14:04 +0000] \"POST /v1/orders HTTP/1.1\" 201 5",
	`[pod/x/y] 1.2.3.4 - - [30/Nov/2026:09:14:04 +0000] "POST /v1/orders HTTP/1.1" 201 5 "-" "c"`,
	`a b c [d] "x" e f g [h] "GET / H" 200 1`,
	`a b c [d] "GET / H" 20 1 e f g [d] "GET / H" 200 1`,
	`a a a [ [ [ [ [ ] "GET / H" 200 1`,
	// cut short: raw bytes, escaped control bytes, no status
	`127.0.0.1 - - [02/Dec/2026:04:10:01 +0000] "\x16\x03\x01" 400 157 "-" "-"`,
	`127.0.0.1 - - [02/Dec/2026:04:10:01 +0000] "POST /v1/orders\nX-Injected: 1 HTTP/1.1" 400 226 "-" "-"`,
	`vh 127.0.0.1 - - [02/Dec/2026:04:10:01 +0000] "GET / HTTP/1.1" - - "-" "-" 27 "-" "-" 0ms`,
	`127.0.0.1 - - [02/Dec/2026:04:10:01 +0000] "unterminated \" 400 1`,
	`127.0.0.1 - - [02/Dec/2026:04:10:01 +0000] "" 400 1`,
	`127.0.0.1 - - [02/Dec/2026:04:10:01 +0000] "a\\" 400 1`,
	// lines that are not combined at all
	``, ` `, `] "`, `a b c [`, `a b c [d`, `a b c [d] `, `a b c [d] "`, `a b c [d] "GET`, `a b c [d] "GET /`, `a b c [d] "GET / H`, `a b c [d] "GET / H"`,
	`a b c [d] "GET / H" `, `a b c [d] "GET / H" 200`, `a b c [d] "GET / H" 200 `, `a b c [d] "GET / H" 200 1 "`, `a b c [d] "GET / H" 200 1 "r" "`,
	`2026-12-01T09:00:00.123Z INFO [orders-worker-3] cache miss user=u123 took=12.3ms`,
}

// FuzzCombinedTime holds timeLocal to model.ParseTime: where it reads a
// time, ParseTime reads the same one (the same instant, the same
// location), whether the local zone is UTC, one an hour east, or one
// whose offset is not whole hours.
func FuzzCombinedTime(f *testing.F) {
	for _, s := range timeSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { sameTime(t, s) })
}

// TestCombinedTimeOnSeeds checks the fuzz target's seeds, and that
// timeLocal reads the usual form rather than leaving it all to ParseTime.
func TestCombinedTimeOnSeeds(t *testing.T) {
	read := 0
	for _, s := range timeSeeds {
		sameTime(t, s)
		if _, ok := timeLocal(s); ok {
			read++
		}
	}
	for _, s := range []string{"10/Oct/2000:13:55:36 -0700", "01/Dec/2026:09:00:07 +0000", "29/Feb/2024:23:59:59 +0530"} {
		if _, ok := timeLocal(s); !ok {
			t.Errorf("%q left to ParseTime", s)
		}
	}
	if read < 5 {
		t.Errorf("%d of %d seeds read by timeLocal", read, len(timeSeeds))
	}
}

var timeSeeds = []string{
	"10/Oct/2000:13:55:36 -0700", "01/Dec/2026:09:00:07 +0000", "30/Nov/2026:09:14:04 +0000", "29/Feb/2024:23:59:59 +0530",
	"29/Feb/2023:12:00:00 +0000", "31/Apr/2026:12:00:00 +0000", "00/Jan/2026:12:00:00 +0000", "31/Dec/9999:23:59:59 -2359",
	"01/Jan/0000:00:00:00 +0000", "01/jan/2026:00:00:00 +0000", "01/JAN/2026:00:00:00 +0000", "01/anF/2026:00:00:00 +0000",
	"01/Jan/2026:24:00:00 +0000", "01/Jan/2026:23:60:00 +0000", "01/Jan/2026:23:59:60 +0000", "01/Jan/2026:23:59:59 +2400",
	"01/Jan/2026:23:59:59 +0060", "01/Jan/2026:23:59:59 0000", "01/Jan/2026:23:59:59 +0100", "01/Jan/2026:23:59:59 -0000",
	"01/Jan/2026:23:59:59.123 +0000", "01/Jan/2026:23:59:59", "01/Jan/2026:23:59:59  +0000", " 01/Jan/2026:23:59:59 +0000",
	"[01/Jan/2026:23:59:59 +0000]", "1/Jan/2026:23:59:59 +00000", "01/Jan/2026:3:59:59 +00000", "01/Jan/-026:23:59:59 +0000",
	"01/Jan/2026:23:59:59 +00:0", "06/Feb/2009:12:14:14.655", "", "-", "1795996800.148",
}

// sameTime fails unless ParseTime reads what timeLocal reads from s, in
// each of three local zones.
func sameTime(t *testing.T, s string) {
	t.Helper()
	local := time.Local
	defer func() { time.Local = local }()
	for _, loc := range []*time.Location{local, time.FixedZone("CET", 3600), time.FixedZone("NPT", 5*3600+45*60)} {
		time.Local = loc
		got, ok := timeLocal(s)
		if !ok {
			continue
		}
		want, wok := model.ParseTime(s)
		gName, gOff := got.Zone()
		wName, wOff := want.Zone()
		// The same instant, held the same way; the same zone, the local
		// one where ParseTime's is (a zone fixed at an offset that is not
		// whole hours is made anew each time).
		if !wok || got.In(time.UTC) != want.In(time.UTC) || gName != wName || gOff != wOff ||
			got.Location().String() != want.Location().String() || (got.Location() == time.Local) != (want.Location() == time.Local) {
			t.Fatalf("%q in %v: by hand %v (%p), ParseTime %v %v (%p)", s, loc, got, got.Location(), want, wok, want.Location())
		}
	}
}

// TestCombinedHandOnPieces compares the hand reader with the expressions
// on lines put together field by field from variants at the layout's
// edges (a quote in the path, a bracket in the user, an escape before a
// line feed, a status of two or four digits), then now and then with a
// piece inserted or a byte dropped: where mutating bytes seldom leads.
func TestCombinedHandOnPieces(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	pick := func(xs ...string) string { return xs[rng.IntN(len(xs))] }
	pieces := []string{" ", `"`, `\`, `\"`, "[", "]", `] "`, `" `, "-", "200", "\t", "\n", "\r", "\f", "\v", "\xff", "é", "=", "a"}
	// odd is usual three times in four, else one of the others.
	odd := func(usual string, others ...string) string {
		if rng.IntN(4) > 0 {
			return usual
		}
		return pick(others...)
	}
	var line, vhost, ref, anywhere, cut int
	for range 20000 {
		request := odd("GET / HTTP/1.1", `GET /a"b HTTP/1.1`, `GET /a"`, `GET /a""`, "-", "GET /", "GET", `GE"T / H`, `GET / H" 200 1 "x`,
			`\x16\x03 \x01`, "", "a b c d", "GET\t/ H", "GET / H\nX: 1", `GET /\"`, `GET /a\`)
		l := pick("", "", "", "h:443 ", "a b ", "[x] ", "info: [app] ", " ", "\t") +
			odd("1.2.3.4", "::1", "-", `a"b`, "", "x]") + odd(" ", "  ", "\t") + odd("-", "x", "") + " " +
			odd("-", "frank", "[u]", "a b", "u]") + odd(" [", "[", " [[") +
			odd("01/Dec/2026:09:00:07 +0000", "10/Oct/2000:13:55:36 -0700", "", "a]b", "x\ny", `t "`) +
			odd(`] "`, `]"`, "] ") + request + odd(`" `, `"`, " ") +
			odd("201", "20", "2000", "-", "499", "2x0") + odd(" ", "", "\t") + odd("12", "0", "-", "12x", "") +
			odd(` "-" "-"`, "", ` "r\"" "u\\"`, ` "a"`, ` "a" "b`, " \"a\nb\" \"c\"", ` "a\`+"\n"+`" "b"`, `"-" "-"`, ` "a"  "b"`) +
			pick("", "", " rid=r0000001 key=k0000001", ` rt=0.5 us="201" rid="a b" key="k\"1"`, " 2.398 \"201\" \"r\" \"k\"", "\n", " x\ny", `"`, " key=", ` a.b=c "\"" =v`)
		if rng.IntN(4) == 0 && len(l) > 0 {
			i := rng.IntN(len(l))
			if rng.IntN(2) == 0 {
				l = l[:i] + pick(pieces...) + l[i:]
			} else {
				l = l[:i] + l[i+1:]
			}
		}
		sameCLF(t, "combinedLine", combinedLine, clfLine, l)
		sameCLF(t, "combinedAnywhere", combinedAnywhere, clfAnywhere, l)
		sameCLF(t, "combinedCut", combinedCut, clfCut, l)
		sameExtras(t, l)
		var m clfMatch
		switch {
		case clfLine(l, &m):
			sameExtras(t, m[11])
			line++
			if m[1] != "" {
				vhost++
			}
			if m[9] != "" {
				ref++
			}
		case clfAnywhere(l, &m):
			anywhere++
		case clfCut(l, &m):
			cut++
		}
	}
	t.Logf("read %d (a vhost %d, a referer %d), behind a prefix %d, cut %d of 20000", line, vhost, ref, anywhere, cut)
	if line < 1000 || vhost < 100 || ref < 100 || anywhere < 100 || cut < 100 {
		t.Errorf("too few lines of a kind to compare")
	}
}
