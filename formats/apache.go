package formats

import (
	"time"

	"github.com/idem-cli/idem/formats/grammar"
	"github.com/idem-cli/idem/model"
)

// Apache httpd's access logs, read with Apache's meanings: %t is when the
// request arrived (nothing is subtracted from it), %D its duration in
// microseconds, %>s the final status, %{UNIQUE_ID}e mod_unique_id's id of
// the request. Without the server's config idem cannot know which
// directives follow the stock layout, so it knows a list of stock
// layouts exactly (apacheLayouts), each compiled from its LogFormat, and
// reads what follows the combined fields by what its layout names, never
// by the value's shape. A LogFormat of the user's own is the config's
// log_format.
var apacheFormat = &format{
	Name: "apache", Aliases: []string{"httpd", "apache2"}, Kind: kindText, Tier: model.TierProxy,
	Doc: "Apache httpd access logs: the stock common/combined/vhost_combined LogFormats, with %D, %{UNIQUE_ID}e or the ids appended",
	Setup: "`LogFormat \"%h %l %u %t \\\"%r\\\" %>s %b \\\"%{Referer}i\\\" \\\"%{User-Agent}i\\\" %D \\\"%{X-Request-Id}i\\\" \\\"%{Idempotency-Key}i\\\"\" idem` " +
		"and, where it proxies, `RequestHeader setifempty X-Request-Id %{UNIQUE_ID}e` (mod_unique_id and mod_headers) so the server logs the id Apache logs; " +
		"any other LogFormat is a config source's log_format",
	text: readApache,
	// %t is the arrival, to the second; %D the microseconds to the end.
	Samples: []sample{{
		Origin: "fixtures/real/apache: Apache httpd 2.4 behind the capture harness, idem's LogFormat (a 201)",
		Line: `127.0.0.1 - - [02/Dec/2026:04:09:52 +0000] "POST /v1/orders HTTP/1.1" 201 15 "-" "idem-harness/1" 10145 ` +
			`"eb9a192f-ae29-4040-8898-56191c8e4f77" "0a8ee47a-6a6c-48a9-8a8c-e8e34b933ec0"`,
		Want: model.Observation{Tier: model.TierProxy, Format: "apache", Method: "POST", Route: "/v1/orders", Status: 201, Outcome: model.OutcomeOK,
			RequestID: "eb9a192f-ae29-4040-8898-56191c8e4f77", Key: "0a8ee47a-6a6c-48a9-8a8c-e8e34b933ec0", Client: "127.0.0.1",
			Time: mustTime("2026-12-02T04:09:52Z"), Duration: 10145 * time.Microsecond},
	}, {
		Origin: "fixtures/real/apache: a request whose client gave up after 400 ms; Apache logged it when the backend answered, 1.2 s after it arrived",
		Line: `127.0.0.1 - - [02/Dec/2026:04:09:52 +0000] "POST /v1/orders?delay=1200ms HTTP/1.1" 201 15 "-" "idem-harness/1" 1206629 ` +
			`"e4df5f02-a920-4811-ac6b-9ac010d0e041" "633574a0-186d-404c-9b73-71328127eac5"`,
		Want: model.Observation{Tier: model.TierProxy, Format: "apache", Method: "POST", Route: "/v1/orders", Status: 201, Outcome: model.OutcomeOK,
			RequestID: "e4df5f02-a920-4811-ac6b-9ac010d0e041", Key: "633574a0-186d-404c-9b73-71328127eac5", Client: "127.0.0.1",
			Time: mustTime("2026-12-02T04:09:52Z"), Duration: 1206629 * time.Microsecond},
	}, {
		Origin: "fixtures/real/apache: mod_proxy could not reach the upstream (503)",
		Line: `127.0.0.1 - - [02/Dec/2026:04:09:53 +0000] "POST /v1/down/orders HTTP/1.1" 503 339 "-" "idem-harness/1" 1780 ` +
			`"cb29cc86-e24b-4bec-a87f-7474d1449501" "99ba0a7a-fc84-45f0-9b63-5788f8e43f55"`,
		Want: model.Observation{Tier: model.TierProxy, Format: "apache", Method: "POST", Route: "/v1/down/orders", Status: 503, Outcome: model.OutcomeOK,
			RequestID: "cb29cc86-e24b-4bec-a87f-7474d1449501", Key: "99ba0a7a-fc84-45f0-9b63-5788f8e43f55", Client: "127.0.0.1",
			Time: mustTime("2026-12-02T04:09:53Z"), Duration: 1780 * time.Microsecond},
	}},
}

// stockLayout is a LogFormat a server's stock config writes, compiled.
// Detected layouts are read wherever a line matches them and the values
// in their id fields are shaped like generated ids (idsEvidenced); the
// others only where the input is said to be of the format: a bare common
// or combined line, which nginx writes too; a bare integer after it,
// which is %D to Apache and $request_length or $bytes_sent to nginx; a
// trailing token that Tomcat's %I writes the same way as mod_unique_id's
// id.
type stockLayout struct {
	format string
	detect bool
	prog   *grammar.Program
}

// The stock combined fields, and what Apache setups append to them; in
// the order they are tried (the one with more fields first, so that no
// layout takes a longer line's fields for its own).
const (
	apacheCombined = `%h %l %u %t "%r" %>s %b "%{Referer}i" "%{User-Agent}i"`
	apacheCommon   = `%h %l %u %t "%r" %>s %b`
	apacheVHost    = `%v:%p %h %l %u %t "%r" %>s %O "%{Referer}i" "%{User-Agent}i"`
	withIDs        = ` "%{X-Request-Id}i" "%{Idempotency-Key}i"`
	withRID        = ` "%{X-Request-Id}i"`
	withUniqueID   = ` %{UNIQUE_ID}e`
)

var apacheLayouts = compileLayouts(grammar.Apache, []stockLayout{
	{format: apacheCombined + " %D" + withIDs, detect: true},
	{format: apacheCombined + " %D" + withRID, detect: true},
	{format: apacheCombined + " %D" + withUniqueID},
	{format: apacheCombined + " %D"},
	{format: apacheCombined + withIDs},
	{format: apacheCombined + withRID},
	{format: apacheCombined + withUniqueID},
	{format: apacheCombined},
	{format: apacheVHost + " %D"},
	{format: apacheVHost},
	{format: apacheCommon + " %D" + withIDs, detect: true},
	{format: apacheCommon + " %D" + withRID, detect: true},
	{format: apacheCommon + " %D" + withUniqueID},
	{format: apacheCommon + " %D"},
	{format: apacheCommon + withUniqueID},
	{format: apacheCommon},
})

// stockLayouts is a format's stock layouts, compiled, and those of them
// tried on a line no input option says is of the format: the detected
// ones, in the same order, so that an unread line passes over the rest
// without a look.
type stockLayouts struct {
	all, detected []stockLayout
	// valid, when set, says whether what a layout read is the format's:
	// a check on a value no other server writes (squid's TCP_MISS).
	valid func(*grammar.Values) bool
}

// compileLayouts compiles stock layouts; they are the package's own, so
// one that does not compile is a bug.
func compileLayouts(syn grammar.Syntax, layouts []stockLayout) stockLayouts {
	var st stockLayouts
	for i := range layouts {
		prog, err := grammar.Compile(syn, layouts[i].format, grammar.Options{})
		if err != nil {
			panic("formats: stock layout " + layouts[i].format + ": " + err.Error())
		}
		layouts[i].prog = prog
		if layouts[i].detect {
			st.detected = append(st.detected, layouts[i])
		}
	}
	st.all = layouts
	return st
}

func readApache(p *Parser, s string, src model.Source) bool {
	return p.readStock("apache", apacheLayouts, s, src)
}

// readStock reads a line with the first stock layout that wrote it: a
// detected one, or any where the input is said to be of the format name.
func (p *Parser) readStock(name string, st stockLayouts, s string, src model.Source) bool {
	forced := p.forced() != nil && p.forced().Name == name
	layouts := st.detected
	if forced {
		layouts = st.all
	}
	missing := "" // a key the line lacks: the layouts that share it are passed over
	for i := range layouts {
		l := &layouts[i]
		if missing != "" && l.prog.Key() == missing {
			continue
		}
		if p.lacks(s, l.prog.Key()) {
			missing = l.prog.Key()
			continue
		}
		if !l.prog.Could(s) {
			continue
		}
		if l.prog.Read(s, &p.values) != nil || !forced && !idsEvidenced(&p.values) || st.valid != nil && !st.valid(&p.values) {
			continue
		}
		var o model.Observation
		o.Source, o.Format, o.Tier = src, name, model.TierProxy
		if !p.observeValues(&o, &p.values, l.prog.Syntax()) {
			p.out.Ignored++
			p.countFormat(name)
			return true
		}
		p.textDone(&o)
		return true
	}
	return false
}

// idsEvidenced reports whether the ids a stock layout read are shaped like
// generated ids (or absent): without the server's config the layout is
// only assumed, and quoted values after a number are Apache's ids only if
// they are ids at all (a forwarded-for list, a thread's name, a router's
// are not).
func idsEvidenced(v *grammar.Values) bool {
	for _, f := range []grammar.Field{grammar.RequestID, grammar.Key} {
		if s, _ := v.Get(f); s != "" && !generatedID(s) {
			return false
		}
	}
	return true
}
