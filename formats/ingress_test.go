package formats

import (
	"os"
	"strings"
	"testing"

	"github.com/idem-cli/idem/formats/grammar"
	"github.com/idem-cli/idem/model"
)

// TestIngressHandReadsTheStockFormat reads real ingress-nginx lines (its
// samples, the recorded capture) by hand and with ingressStock compiled
// by the grammar (the key appended, as the Setup says, where the line has
// it): both must give the same request, ids, status, upstream, client,
// start and duration, so that the hand reader says what the format's
// definition says.
func TestIngressHandReadsTheStockFormat(t *testing.T) {
	progs := []*grammar.Program{}
	for _, f := range []string{ingressStock, ingressStock + ` "$http_idempotency_key"`} {
		p, err := grammar.Compile(grammar.Nginx, f, grammar.Options{})
		if err != nil {
			t.Fatal(err)
		}
		progs = append(progs, p)
	}
	var lines []string
	for _, s := range ingressNginxFormat.Samples {
		lines = append(lines, s.Line)
	}
	b, err := os.ReadFile("../fixtures/real/nginx/access.ingress.log")
	if err != nil {
		t.Fatal(err)
	}
	lines = append(lines, strings.Split(strings.TrimSpace(string(b)), "\n")...)
	lines = append(lines, `192.168.0.139 - - [27/Nov/2020:10:04:38 +0000] "GET /api HTTP/2.0" 200 760 "-" "curl/8" 50 1.279 [app-core-80] [] `+
		`10.244.4.100:8080 : 10.0.0.1:80 760 : 0 1.279 : 0.5 502 : 200 e0726b2e0c22976ac8ccd04d52d7c83b "5d41402abc4b2a76b9719d911017c592"`)
	src := model.Source{File: "ingress.log", Line: 1}
	for _, line := range lines {
		p := NewParser(nil, nil)
		var res Result
		p.Into(&res)
		if !readIngressNginx(p, line, src) || len(res.Obs) != 1 {
			t.Errorf("the hand reader does not read %s", line)
			continue
		}
		hand := res.Obs[0]
		var v grammar.Values
		var c model.Observation
		read := false
		for _, prog := range progs {
			if prog.Read(line, &v) == nil {
				read = true
				break
			}
		}
		if !read {
			t.Errorf("the stock format does not read %s", line)
			continue
		}
		p.observeValues(&c, &v, grammar.Nginx)
		if !c.Time.Equal(hand.Time) || c.Method != hand.Method || c.Route != hand.Route || c.Status != hand.Status ||
			c.UpstreamStatus != hand.UpstreamStatus || c.UpstreamTries != hand.UpstreamTries || c.RequestID != hand.RequestID ||
			c.Key != hand.Key || c.Client != hand.Client || c.Duration != hand.Duration || c.Outcome != hand.Outcome || c.Labels != hand.Labels {
			t.Errorf("%s\nby hand  %+v\ncompiled %+v", line, hand, c)
		}
	}
}

// BenchmarkIngressLine reads ingress-nginx's samples (one upstream, and
// nginx's lists) by hand and with the stock format compiled.
func BenchmarkIngressLine(b *testing.B) {
	var lines []string
	size := 0
	for _, s := range ingressNginxFormat.Samples {
		lines = append(lines, s.Line)
		size += len(s.Line) + 1
	}
	src := model.Source{File: "ingress.log", Line: 1}
	p := NewParser(nil, nil)
	var res Result
	p.Into(&res)
	b.Run("hand", func(b *testing.B) {
		b.SetBytes(int64(size))
		b.ReportAllocs()
		for b.Loop() {
			for _, s := range lines {
				if !readIngressNginx(p, s, src) {
					b.Fatal("not read")
				}
			}
			res.Obs = res.Obs[:0]
		}
	})
	prog, err := grammar.Compile(grammar.Nginx, ingressStock, grammar.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Run("compiled", func(b *testing.B) {
		b.SetBytes(int64(size))
		b.ReportAllocs()
		for b.Loop() {
			for _, s := range lines {
				var o model.Observation
				if prog.Read(s, &p.values) != nil {
					b.Fatal("not read")
				}
				p.observeValues(&o, &p.values, grammar.Nginx)
			}
		}
	})
}
