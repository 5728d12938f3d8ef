package formats

import (
	"testing"

	"github.com/idem-cli/idem/model"
)

// TestReplayLinesAreNoEffect reads the lines servers write when they
// answer from an earlier request: the result id they name is the old
// one. An effect word beside the replay's words ("stored") makes no
// effect; the same line one phrase away from a replay's does.
func TestReplayLinesAreNoEffect(t *testing.T) {
	for _, tc := range []struct {
		name, line       string
		effect, replayed bool
	}{
		{"replaying a stored response", `{"msg":"replaying stored response","request_id":"r-1","order_id":"ord_1"}`, false, true},
		{"a cached result", `{"msg":"returning cached result","request_id":"r-2","order_id":"ord_1"}`, false, true},
		{"an idempotent replay", `{"message":"idempotent replay","request_id":"r-3","result_id":"ord_1"}`, false, true},
		{"an order that already exists", `{"msg":"order already exists","request_id":"r-4","order_id":"ord_1"}`, false, true},
		{"a replay flagged by its decision", `{"msg":"order replayed","decision":"replay","request_id":"r-5","order_id":"ord_1"}`, false, true},
		// Near misses: the effect the replay words stand beside.
		{"an order stored", `{"msg":"order stored","request_id":"r-6","order_id":"ord_2"}`, true, false},
		{"an order created", `{"msg":"order created","request_id":"r-7","order_id":"ord_3"}`, true, false},
		{"replay words without a result id", `{"msg":"replaying stored response","request_id":"r-8"}`, false, false},
		{"an explicit effect flag wins", `{"msg":"replaying stored response","effect":true,"request_id":"r-9","order_id":"ord_4"}`, true, false},
	} {
		p := NewParser(nil, nil)
		var res Result
		p.Into(&res)
		p.Line([]byte(tc.line), model.Source{File: "app.jsonl", Line: 1})
		if len(res.Obs) != 1 {
			t.Errorf("%s: %d observations, want 1", tc.name, len(res.Obs))
			continue
		}
		o := res.Obs[0]
		if o.Effect != tc.effect || o.Replayed != tc.replayed {
			t.Errorf("%s: effect %v replayed %v, want effect %v replayed %v", tc.name, o.Effect, o.Replayed, tc.effect, tc.replayed)
		}
	}
}

// TestCallerByAnyName reads who the caller is where a log names no
// address: a customer or user id, or a token's hash. An address, where
// logged, is preferred.
func TestCallerByAnyName(t *testing.T) {
	for _, tc := range []struct{ line, want string }{
		{`{"msg":"order created","request_id":"r-1","customer_id":"cus_42","order_id":"ord_1"}`, "cus_42"},
		{`{"msg":"charge","request_id":"r-2","userId":"u-7"}`, "u-7"},
		{`{"message":"paid","request_id":"r-3","user":{"id":"u-8"}}`, "u-8"},
		{`{"msg":"paid","request_id":"r-4","token_hash":"sha256:ab12"}`, "sha256:ab12"},
		{`{"msg":"paid","request_id":"r-5","remote_addr":"10.0.0.7","customer_id":"cus_42"}`, "10.0.0.7"},
		{`{"msg":"paid","request_id":"r-6","customer_name":"Ann"}`, ""},
	} {
		p := NewParser(nil, nil)
		var res Result
		p.Into(&res)
		p.Line([]byte(tc.line), model.Source{File: "app.jsonl", Line: 1})
		if len(res.Obs) != 1 {
			t.Errorf("%s: %d observations, want 1", tc.line, len(res.Obs))
			continue
		}
		if got := res.Obs[0].Client; got != tc.want {
			t.Errorf("%s: caller %q, want %q", tc.line, got, tc.want)
		}
	}
}

// TestServerWordsForALostAnswer reads a server's own words for a response
// it could not write, in whichever field it puts them: the answer was
// lost, whatever status the line meant to send. An error of another kind
// is no loss.
func TestServerWordsForALostAnswer(t *testing.T) {
	for _, tc := range []struct {
		line string
		lost bool
	}{
		{`{"msg":"request failed","request_id":"r-1","status":201,"write_error":"write tcp 127.0.0.1:8080->127.0.0.1:5123: write: broken pipe"}`, true},
		{`{"msg":"request failed","request_id":"r-2","write_error":"EPIPE"}`, true},
		{`{"msg":"request failed","request_id":"r-3","error":"read ECONNRESET"}`, true},
		{`{"message":"Exception on /pay","request_id":"r-4","exception":{"type":"BrokenPipeError","message":"[Errno 32] Broken pipe"}}`, true},
		{`{"msg":"handler stopped","request_id":"r-5","error":"client disconnected"}`, true},
		{`{"msg":"handler stopped","request_id":"r-6","err":"context canceled"}`, true},
		{`{"msg":"request failed","request_id":"r-7","exc_type":"ConnectionResetError"}`, true},
		// Near misses: an error, but not of a lost answer.
		{`{"msg":"request failed","request_id":"r-8","status":500,"error":"database timeout"}`, false},
		{`{"msg":"request failed","request_id":"r-9","write_error":"disk full"}`, false},
	} {
		p := NewParser(nil, nil)
		var res Result
		p.Into(&res)
		p.Line([]byte(tc.line), model.Source{File: "app.jsonl", Line: 1})
		if len(res.Obs) != 1 {
			t.Errorf("%s: %d observations, want 1", tc.line, len(res.Obs))
			continue
		}
		if o := res.Obs[0]; o.Outcome.Lost() != tc.lost {
			t.Errorf("%s: outcome %s (tier %s), lost %v", tc.line, o.Outcome, o.Tier, tc.lost)
		}
	}
}
