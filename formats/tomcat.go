package formats

import (
	"time"

	"github.com/idem-cli/idem/formats/grammar"
	"github.com/idem-cli/idem/model"
)

// Tomcat's AccessLogValve logs, read with Tomcat's meanings (Tomcat 10 and
// later): %t is when the request started, %D its duration in
// microseconds (milliseconds before Tomcat 10: give log_format_syntax
// tomcat9), %F the time to commit the response, %s the status. Its
// stock patterns are Apache's common and combined, with %s for %>s:
// their lines are Apache's, so only a layout Apache's stock list does
// not have (%D %F appended) is told apart; any other is read as Tomcat's
// where the input is said to be (--input-format tomcat, a config
// source's format), and a pattern of the user's own is the config's
// log_format.
var tomcatFormat = &format{
	Name: "tomcat", Aliases: []string{"tomcat10", "catalina"}, Kind: kindText, Tier: model.TierProxy,
	Doc: "Tomcat AccessLogValve logs: the common/combined patterns, with %D, %F or the ids appended",
	Setup: "`<Valve className=\"org.apache.catalina.valves.AccessLogValve\" pattern=\"%h %l %u %t &quot;%r&quot; %s %b &quot;%{Referer}i&quot; " +
		"&quot;%{User-Agent}i&quot; %D %F &quot;%{X-Request-Id}i&quot; &quot;%{Idempotency-Key}i&quot;\"/>` in the Host (%F: when the response was committed); " +
		"any other pattern is a config source's log_format",
	text: readTomcat,
	// %t is when the request started, %D microseconds, %F milliseconds to
	// commit the response (not read).
	Samples: []sample{{
		Origin: "fixtures/real/tomcat: Tomcat 10.1 answering a POST itself (no application: 404), its stock pattern with %D %F and the ids",
		Line: `127.0.0.1 - - [02/Dec/2026:04:09:59 +0000] "POST /v1/orders HTTP/1.1" 404 692 "-" "idem-harness/1" 7114 1 ` +
			`"f3e00f78-52de-4ba9-ae7f-685b9be0e7dd" "15e135b3-1696-4664-b0b4-56779f89f0f3"`,
		Want: model.Observation{Tier: model.TierProxy, Format: "tomcat", Method: "POST", Route: "/v1/orders", Status: 404, Outcome: model.OutcomeOK,
			RequestID: "f3e00f78-52de-4ba9-ae7f-685b9be0e7dd", Key: "15e135b3-1696-4664-b0b4-56779f89f0f3", Client: "127.0.0.1",
			Time: mustTime("2026-12-02T04:09:59Z"), Duration: 7114 * time.Microsecond},
	}},
}

const (
	tomcatCombined = `%h %l %u %t "%r" %s %b "%{Referer}i" "%{User-Agent}i"`
	tomcatCommon   = `%h %l %u %t "%r" %s %b`
)

var tomcatLayouts = compileLayouts(grammar.Tomcat, []stockLayout{
	{format: tomcatCombined + " %D %F" + withIDs, detect: true},
	{format: tomcatCombined + " %D %F"},
	{format: tomcatCombined + " %D" + withIDs},
	{format: tomcatCombined + " %D" + withRID},
	{format: tomcatCombined + " %D"},
	{format: tomcatCombined},
	{format: tomcatCommon + " %D %F"},
	{format: tomcatCommon + " %D"},
	{format: tomcatCommon},
})

func readTomcat(p *Parser, s string, src model.Source) bool {
	return p.readStock("tomcat", tomcatLayouts, s, src)
}
