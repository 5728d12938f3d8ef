// Command loggen writes large, realistic, deterministic logs for idem's
// benchmarks: an nginx JSON access log keyed by nginx variable names (about
// 480 bytes a line, user agents and addresses), or the same traffic as
// Envoy JSON or slog application lines, or a browser's HAR export (one
// entry a line, streamed, with request bodies and the ids the server
// answered; a lost response is the browser's net::ERR_TIMED_OUT). Most intents are one 201; a few
// percent lose their response and are retried with the same key; about 1%
// are retried under a new key; some reuse a key with another payload; and
// GETs carry no key. -faults scales those rates (0.5: half as many of
// each), the rest staying one 201.
//
//	go run ./internal/tools/loggen -intents 1000000 -seed 1 > bench.jsonl
package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

// usage reports a bad flag and exits 2, as flag does for unknown ones.
func usage(msg string) {
	fmt.Fprintln(os.Stderr, "loggen:", msg)
	flag.Usage()
	os.Exit(2)
}

func main() {
	intents := flag.Int("intents", 100000, "number of intents (POST actions) to write")
	seed := flag.Uint64("seed", 1, "random seed; the same seed writes the same file")
	format := flag.String("format", "nginx", "nginx, envoy, slog or har")
	out := flag.String("o", "-", "output file (- for standard output)")
	compress := flag.String("compress", "", "compress the output: gzip or zstd")
	faults := flag.Float64("faults", 1, "scale the rates of lost, retried and conflicting intents (1: 3%, 1% and 0.5%)")
	truth := flag.String("truth", "", "also write to this file what each intent that went wrong was made to show:\na line each, the way (lost-same-key, lost-new-key, key-reused), the key,\nand for lost-new-key the retry's key")
	flag.Parse()
	// Flags are checked before the output file is created.
	switch {
	case *intents < 1:
		usage("-intents must be 1 or more")
	case *format != "nginx" && *format != "envoy" && *format != "slog" && *format != "har":
		usage("-format must be nginx, envoy, slog or har")
	case *compress != "" && *compress != "gzip" && *compress != "zstd":
		usage("-compress must be gzip or zstd")
	case !(*faults >= 0 && *faults*0.045 <= 1): // NaN fails too
		usage("-faults must be between 0 and 22 (4.5% of intents are faulty at 1)")
	case flag.NArg() > 0:
		usage("unexpected argument " + strconv.Quote(flag.Arg(0)) + " (the output file is -o FILE)")
	case *truth != "" && *truth == *out:
		usage("-truth must name another file than -o")
	}
	// The truth file first: a path it cannot take leaves no log behind,
	// and its flush, deferred first, runs after the log's.
	var tw *bufio.Writer
	if *truth != "" {
		f, err := os.Create(*truth)
		if err != nil {
			fmt.Fprintln(os.Stderr, "loggen:", err)
			os.Exit(2)
		}
		tw = bufio.NewWriter(f)
		defer func() {
			if err := errors.Join(tw.Flush(), f.Close()); err != nil {
				fmt.Fprintln(os.Stderr, "loggen:", err)
				os.Exit(1)
			}
		}()
	}
	w := io.Writer(os.Stdout)
	if *out != "-" {
		f, err := os.Create(*out)
		if err != nil {
			fmt.Fprintln(os.Stderr, "loggen:", err)
			os.Exit(2)
		}
		defer f.Close()
		w = f
	}
	switch *compress {
	case "":
	case "gzip":
		zw := gzip.NewWriter(w)
		defer zw.Close()
		w = zw
	case "zstd":
		zw, err := zstd.NewWriter(w)
		if err != nil {
			fmt.Fprintln(os.Stderr, "loggen:", err)
			os.Exit(2)
		}
		defer zw.Close()
		w = zw
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	defer bw.Flush()
	g := &gen{r: rand.New(rand.NewPCG(*seed, *seed^0x9e3779b97f4a7c15)), w: bw, format: *format,
		t: time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC), faults: *faults, truth: tw}
	if g.format == "har" {
		bw.WriteString(`{"log":{"version":"1.2","creator":{"name":"loggen","version":"1"},"entries":[` + "\n")
	}
	for i := 0; i < *intents; i++ {
		g.intent()
	}
	if g.format == "har" {
		bw.WriteString("\n]}}\n")
	}
}

type gen struct {
	r      *rand.Rand
	w      *bufio.Writer
	format string
	t      time.Time
	buf    []byte
	faults float64       // scales the faulty intents' rates
	body   string        // the intent's payload (a HAR's postData)
	n      int           // HAR entries written
	truth  *bufio.Writer // where said writes, or nil
}

// said notes in the truth file, when there is one, what an intent was
// made to show.
func (g *gen) said(way string, keys ...string) {
	if g.truth != nil {
		fmt.Fprintln(g.truth, way, strings.Join(keys, " "))
	}
}

var agents = []string{
	"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
	"Mozilla/5.0 (Macintosh; Intel Mac OS X 14_6_1) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15",
	"Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148",
	"Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0",
	"okhttp/4.12.0", "shop-ios/7.4.2 (iPhone15,2; iOS 18.1)",
}

var routes = []string{"/v1/orders", "/v1/payments", "/v1/tickets", "/v1/bookings", "/v1/transfers"}

func (g *gen) uuid() string {
	a, b := g.r.Uint64(), g.r.Uint64()
	return fmt.Sprintf("%08x-%04x-4%03x-%04x-%012x", uint32(a>>32), uint16(a>>16), uint16(a)&0xfff, uint16(b>>48)&0x3fff|0x8000, b&0xffffffffffff)
}

func (g *gen) hex32() string { return fmt.Sprintf("%016x%016x", g.r.Uint64(), g.r.Uint64()) }

func (g *gen) ip() string {
	return fmt.Sprintf("%d.%d.%d.%d", 11+g.r.IntN(200), g.r.IntN(256), g.r.IntN(256), 1+g.r.IntN(254))
}

// intent writes one user action: its deliveries, and now and then a GET.
func (g *gen) intent() {
	g.t = g.t.Add(time.Duration(20+g.r.IntN(60)) * time.Millisecond)
	ip, ua := g.ip(), agents[g.r.IntN(len(agents))]
	route := routes[g.r.IntN(len(routes))]
	key := g.uuid()
	if g.format == "har" { // a draw of its own: the other formats' files stay as they were
		g.body = `{\"amount\":` + strconv.Itoa(100+g.r.IntN(99900)) + `,\"currency\":\"EUR\",\"customer\":\"cus_` + g.hex32()[:14] + `\"}`
	}
	// The same draws whatever the scale: -faults 1 writes what it always did.
	p := g.r.Float64() / g.faults
	switch {
	case p < 0.03: // lost response, replayed with the same key
		g.said("lost-same-key", key)
		g.line(ip, ua, "POST", route, key, 499, "201", 2.0+g.r.Float64()*3, 0)
		g.line(ip, ua, "POST", route, key, 201, "201", 0.02+g.r.Float64()*0.05, 4000)
	case p < 0.04: // lost response, retried under a new key
		g.line(ip, ua, "POST", route, key, 499, "201", 2.0+g.r.Float64()*3, 0)
		key2 := g.uuid() // drawn first, as when it was the line's argument
		g.said("lost-new-key", key, key2)
		g.line(ip, ua, "POST", route, key2, 201, "201", 0.1+g.r.Float64()*0.2, 5000)
	case p < 0.045: // the key reused with another payload: a conflict
		g.said("key-reused", key)
		g.line(ip, ua, "POST", route, key, 201, "201", 0.1+g.r.Float64()*0.2, 0)
		g.body = strings.Replace(g.body, `\"EUR\"`, `\"USD\"`, 1)
		g.line(ip, ua, "POST", route, key, 409, "409", 0.01, 30000)
	default:
		g.line(ip, ua, "POST", route, key, 201, "201", 0.05+g.r.Float64()*0.3, 0)
	}
	if g.r.IntN(2) == 0 {
		g.line(ip, ua, "GET", route+"/"+strconv.Itoa(g.r.IntN(1e6)), "", 200, "200", 0.002+g.r.Float64()*0.02, 500)
	}
}

// line writes one request that ends after rt seconds, later by gapMS.
func (g *gen) line(ip, ua, method, uri, key string, status int, upstream string, rt float64, gapMS int) {
	g.t = g.t.Add(time.Duration(gapMS) * time.Millisecond)
	end := g.t.Add(time.Duration(rt * float64(time.Second)))
	rid := g.uuid()
	b := g.buf[:0]
	switch g.format {
	case "nginx":
		b = append(b, `{"time_iso8601":"`...)
		b = end.AppendFormat(b, "2006-01-02T15:04:05+00:00")
		b = append(b, `","msec":"`...)
		b = strconv.AppendFloat(b, float64(end.UnixMilli())/1000, 'f', 3, 64)
		b = append(b, `","remote_addr":"`...)
		b = append(b, ip...)
		b = append(b, `","request_id":"`...)
		b = append(b, g.hex32()...)
		b = append(b, `","http_x_request_id":"`...)
		b = append(b, rid...)
		b = append(b, `","http_idempotency_key":"`...)
		b = append(b, key...)
		b = append(b, `","request_method":"`...)
		b = append(b, method...)
		b = append(b, `","request_uri":"`...)
		b = append(b, uri...)
		b = append(b, `","status":"`...)
		b = strconv.AppendInt(b, int64(status), 10)
		b = append(b, `","body_bytes_sent":"`...)
		b = strconv.AppendInt(b, int64(40+g.r.IntN(400)), 10)
		b = append(b, `","request_time":"`...)
		b = strconv.AppendFloat(b, rt, 'f', 3, 64)
		b = append(b, `","upstream_addr":"10.0.`...)
		b = strconv.AppendInt(b, int64(g.r.IntN(8)), 10)
		b = append(b, `.`...)
		b = strconv.AppendInt(b, int64(2+g.r.IntN(30)), 10)
		b = append(b, `:8080","upstream_status":"`...)
		b = append(b, upstream...)
		b = append(b, `","upstream_response_time":"`...)
		b = strconv.AppendFloat(b, rt*0.98, 'f', 3, 64)
		b = append(b, `","http_user_agent":"`...)
		b = append(b, ua...)
		b = append(b, `"}`...)
	case "envoy":
		b = append(b, `{"start_time":"`...)
		b = g.t.AppendFormat(b, "2006-01-02T15:04:05.000Z")
		b = append(b, `","method":"`...)
		b = append(b, method...)
		b = append(b, `","path":"`...)
		b = append(b, uri...)
		b = append(b, `","protocol":"HTTP/1.1","response_code":"`...)
		code, flags := status, "-"
		if status == 499 {
			code, flags = 0, "DC"
		}
		b = strconv.AppendInt(b, int64(code), 10)
		b = append(b, `","response_flags":"`...)
		b = append(b, flags...)
		b = append(b, `","bytes_received":"120","bytes_sent":"88","duration":"`...)
		b = strconv.AppendInt(b, int64(rt*1000), 10)
		b = append(b, `","x_forwarded_for":"`...)
		b = append(b, ip...)
		b = append(b, `","user_agent":"`...)
		b = append(b, ua...)
		b = append(b, `","request_id":"`...)
		b = append(b, rid...)
		b = append(b, `","x_idempotency_key":"`...)
		b = append(b, key...)
		b = append(b, `","upstream_host":"10.244.1.4:8080"}`...)
	case "har":
		if g.n > 0 {
			b = append(b, ",\n"...)
		}
		g.n++
		b = append(b, `{"startedDateTime":"`...)
		b = g.t.AppendFormat(b, "2006-01-02T15:04:05.000Z")
		b = append(b, `","time":`...)
		b = strconv.AppendFloat(b, rt*1000, 'f', 3, 64)
		b = append(b, `,"request":{"method":"`...)
		b = append(b, method...)
		b = append(b, `","url":"https://shop.example.com`...)
		b = append(b, uri...)
		b = append(b, `","httpVersion":"HTTP/2","headers":[{"name":"user-agent","value":"`...)
		b = append(b, ua...)
		b = append(b, `"},{"name":"x-request-id","value":"`...)
		b = append(b, rid...)
		b = append(b, `"}`...)
		if key != "" {
			b = append(b, `,{"name":"idempotency-key","value":"`...)
			b = append(b, key...)
			b = append(b, `"}`...)
		}
		b = append(b, `]`...)
		if method == "POST" {
			b = append(b, `,"postData":{"mimeType":"application/json","text":"`...)
			b = append(b, g.body...)
			b = append(b, `"}`...)
		}
		b = append(b, `},"response":{"status":`...)
		if status == 499 { // the browser gave up: no answer
			b = append(b, `0,"statusText":"","headers":[],"content":{"size":0,"mimeType":"x-unknown"},"_error":"net::ERR_TIMED_OUT"}`...)
		} else {
			b = strconv.AppendInt(b, int64(status), 10)
			b = append(b, `,"statusText":"","headers":[{"name":"content-type","value":"application/json"}],"content":{"size":40,"mimeType":"application/json","text":"{\"id\":\"`...)
			if status == 409 {
				b = append(b, `err_conflict`...)
			} else {
				b = append(b, `ord_`...)
				b = append(b, g.hex32()[:20]...)
			}
			b = append(b, `\"}"}}`...)
		}
		b = append(b, `,"timings":{"send":0.1,"wait":`...)
		b = strconv.AppendFloat(b, rt*1000, 'f', 3, 64)
		b = append(b, `,"receive":0.2}}`...)
		g.buf = b
		g.w.Write(b)
		return
	case "slog":
		b = append(b, `{"time":"`...)
		b = end.AppendFormat(b, time.RFC3339Nano)
		b = append(b, `","level":"INFO","msg":"request completed","request_id":"`...)
		b = append(b, rid...)
		b = append(b, `","idempotency_key":"`...)
		b = append(b, key...)
		b = append(b, `","method":"`...)
		b = append(b, method...)
		b = append(b, `","route":"`...)
		b = append(b, uri...)
		b = append(b, `","status":`...)
		s := status
		if s == 499 {
			s = 201 // the server answered; the client had gone
		}
		b = strconv.AppendInt(b, int64(s), 10)
		b = append(b, `,"duration_ms":`...)
		b = strconv.AppendInt(b, int64(rt*1000), 10)
		b = append(b, '}')
	}
	b = append(b, '\n')
	g.buf = b
	g.w.Write(b)
}
