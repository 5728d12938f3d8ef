package formats

import (
	"strings"
	"time"

	"github.com/idem-cli/idem/formats/grammar"
	"github.com/idem-cli/idem/model"
)

// Squid's access logs, read with squid's meanings (grammar/squid.go): its
// native format (squid's default, %ts.%03tu %6tr %>a %Ss/%03>Hs …) and its
// common and combined formats, each compiled from its logformat. The time
// squid writes is when the transaction ENDED (%ts.%03tu, %tl), and %tr how
// long it took in milliseconds: the start is the end less it. %Ss is
// squid's word for how the transaction went: TCP_MISS_ABORTED (any
// *_ABORTED) is a client that left before its answer, NONE_NONE/000 a
// request squid never forwarded, and %Sh's HIER_NONE beside an error
// squid answered (5xx) a request it could deliver to no server. None of
// these formats logs a request id or a key: a logformat of the user's own with %{X-Request-Id}>h and
// %{Idempotency-Key}>h is the config's log_format (log_format_syntax
// squid).
var squidFormat = &format{
	Name: "squid", Kind: kindText, Tier: model.TierProxy,
	Doc: "Squid access logs: its native squid format (its default), and its common and combined logformats",
	Setup: "`logformat idem %{X-Request-Id}>h %tS %tr %>a \"%rm %ru HTTP/%rv\" %Ss/%03>Hs %<st \"%{Idempotency-Key}>h\"` and " +
		"`access_log stdio:/var/log/squid/idem.log idem`, read through a config source's log_format (log_format_syntax squid)",
	text: readSquid,
	// %ts.%03tu is the end, %tr the milliseconds before it.
	Samples: []sample{{
		Origin: "fixtures/real/squid: Squid 5.7 from Debian as a reverse proxy, its default log (a 201)",
		Line:   `1796692027.134      3 127.0.0.1 TCP_MISS/201 261 POST http://127.0.0.1:46201/v1/orders - FIRSTUP_PARENT/127.0.0.1 application/json`,
		Want: model.Observation{Tier: model.TierProxy, Format: "squid", Method: "POST", Route: "/v1/orders", Status: 201, Outcome: model.OutcomeOK,
			Client: "127.0.0.1", Time: mustTime("2026-12-08T01:07:07.131Z"), Duration: 3 * time.Millisecond},
	}, {
		Origin: "fixtures/real/squid: a client that gave up after 400 ms; squid logged it when it left, the query cut (strip_query_terms)",
		Line:   `1796692027.538    400 127.0.0.1 TCP_MISS_ABORTED/000 0 POST http://127.0.0.1:46201/v1/orders? - FIRSTUP_PARENT/127.0.0.1 -`,
		Want: model.Observation{Tier: model.TierProxy, Format: "squid", Method: "POST", Route: "/v1/orders", Outcome: model.OutcomeClientClosed,
			Client: "127.0.0.1", Time: mustTime("2026-12-08T01:07:07.138Z"), Duration: 400 * time.Millisecond},
	}, {
		Origin: "fixtures/real/squid: the upstream refused the connection: squid answered 502 having reached no next hop (HIER_NONE)",
		Line:   `1796692027.544      0 127.0.0.1 TCP_MISS/502 3467 POST http://127.0.0.1:46201/v1/down/orders - HIER_NONE/- text/html`,
		Want: model.Observation{Tier: model.TierProxy, Format: "squid", Method: "POST", Route: "/v1/down/orders", Status: 502,
			Outcome: model.OutcomeNotDelivered, Client: "127.0.0.1", Time: mustTime("2026-12-08T01:07:07.544Z")},
	}, {
		Origin: "fixtures/real/squid: the same request in squid's combined log, %tl its end to the second, no duration",
		Line: `127.0.0.1 - - [08/Dec/2026:01:07:07 +0000] "POST http://127.0.0.1:46201/v1/orders? HTTP/1.1" 0 0 "-" "idem-harness/1" ` +
			`TCP_MISS_ABORTED:FIRSTUP_PARENT`,
		Want: model.Observation{Tier: model.TierProxy, Format: "squid", Method: "POST", Route: "/v1/orders", Outcome: model.OutcomeClientClosed,
			Client: "127.0.0.1", Time: mustTime("2026-12-08T01:07:07Z")},
	}},
}

// squidLayouts are squid's predefined formats, the native one first.
var squidLayouts = func() stockLayouts {
	var ls []stockLayout
	for _, name := range []string{"squid", "combined", "common"} {
		def, _ := grammar.SquidNamed(name)
		ls = append(ls, stockLayout{format: def, detect: true})
	}
	st := compileLayouts(grammar.Squid, ls)
	st.valid = squidLine
	return st
}()

func readSquid(p *Parser, s string, src model.Source) bool {
	return p.readStock("squid", squidLayouts, s, src)
}

// squidLine reports whether what a layout read has squid's own word for
// the transaction (TCP_MISS, NONE_NONE): upper-case letters, digits and
// '_' only. Squid's common and combined lines are otherwise any server's.
func squidLine(v *grammar.Values) bool {
	w, _ := v.Get(grammar.OutcomeWord)
	if len(w) < 4 {
		return false
	}
	for i := 0; i < len(w); i++ {
		if c := w[i]; !(c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// squidNoRequest reports whether a line is about a connection that sent
// no request: squid logs one that closed before its headers came whole
// as NONE_NONE/000 with the method "-" and a URL of the form
// error:transaction-end-before-headers (a health check's probe, a port
// scan). No request was sent: it is not one.
func squidNoRequest(word, method, url string) bool {
	return method == "" && strings.HasPrefix(url, "error:") && (strings.HasPrefix(word, "NONE") || strings.HasPrefix(word, "TAG_NONE"))
}

// squidOutcome is how a transaction ended by squid's word for it, how it
// reached the next hop (%Sh, "" where the format does not log it) and the
// status it sent: *_ABORTED, the client left before its answer; NONE_…
// with no status, squid forwarded nothing (the request never came whole);
// an error squid answered itself (5xx) having reached no next hop
// (HIER_NONE: it could not connect), the request was delivered to no
// server; otherwise what the status says.
func squidOutcome(word, hop string, status int) model.Outcome {
	switch {
	case strings.HasSuffix(word, "_ABORTED"):
		return model.OutcomeClientClosed
	case status <= 0 && (strings.HasPrefix(word, "NONE") || strings.HasPrefix(word, "TAG_NONE")):
		return model.OutcomeNotDelivered
	case status >= 500 && hop == "HIER_NONE":
		return model.OutcomeNotDelivered
	}
	return proxyOutcome(status)
}
