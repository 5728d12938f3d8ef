package formats

import (
	"testing"

	"github.com/idem-cli/idem/model"
)

// TestELBNameReadsBothBalancers: under the name elb, a Classic Load
// Balancer's lines and an ALB's are read, each as what it is; a TCP
// listener's line is set aside, not a request.
func TestELBNameReadsBothBalancers(t *testing.T) {
	cfg := &Config{}
	if err := cfg.Compile(); err != nil {
		t.Fatal(err)
	}
	rule, err := cfg.RuleFor("lb.log", model.TierUnknown, "elb")
	if err != nil {
		t.Fatal(err)
	}
	lines := []string{
		elbFormat.Samples[0].Line,
		albFormat.Samples[0].Line,
		`2015-05-13T23:39:43.945958Z my-loadbalancer 192.168.131.39:2817 10.0.0.1:80 0.001069 0.000028 0.000041 - - 82 305 "- - - " "-" - -`,
	}
	res := readLines(t, NewParser(cfg, rule), "lb.log", lines)
	if len(res.Obs) != 2 || len(res.Skips) != 0 || res.Ignored != 1 {
		t.Fatalf("got %d observations, %d skipped, %d set aside; want 2, 0, 1", len(res.Obs), len(res.Skips), res.Ignored)
	}
	if res.Obs[0].Format != "elb" || res.Obs[1].Format != "alb" {
		t.Errorf("formats %q, %q; want elb, alb", res.Obs[0].Format, res.Obs[1].Format)
	}
}

// TestELBLeavesOtherLines: lines of other formats that begin with an
// ISO 8601 time are not a Classic Load Balancer's.
func TestELBLeavesOtherLines(t *testing.T) {
	for _, line := range []string{
		// kubectl --timestamps before an ingress-nginx line
		`2026-10-05T22:04:57.764907358Z 10.224.0.37 - - [05/Oct/2026:22:04:57 +0000] "POST /api/checkout HTTP/2.0" 503 87 "-" "curl/8" 628 0.025 [shop-3000] [] 10.244.1.8:3000 87 0.025 503 fa44081918d16948066f14e7ba70ee25`,
		// a timestamp, then a message with addresses and numbers
		`2026-10-05T22:04:57Z worker 10.0.0.1:80 10.0.0.2:80 a b c 200 200 0 29 "GET / HTTP/1.1" "x"`,
	} {
		res := readLines(t, NewParser(nil, nil), "x.log", []string{line})
		for _, o := range res.Obs {
			if o.Format == "elb" {
				t.Errorf("%s\n  read as a Classic Load Balancer line", line)
			}
		}
	}
}
