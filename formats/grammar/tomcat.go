package grammar

import (
	"strings"
	"time"
)

// Tomcat's AccessLogValve pattern: Apache's %-language with meanings of
// Tomcat's own.
//
//   - %t is when the request started ([18/Sep/2011:19:18:28 -0400]);
//     %{xxx}t is a Java SimpleDateFormat pattern, or sec, msec, msec_frac,
//     each perhaps after begin: (the default) or end:.
//   - %D is the duration in microseconds from Tomcat 10 on, in
//     milliseconds before it (syntax tomcat9); %T in seconds; %{xxx}T in
//     the unit it names (s, ms, us, ns); %F is the time to commit the
//     response, not the request's duration.
//   - %s is the status; %a the remote IP; %S the session id and %I the
//     thread's name (neither names the request); %{xxx}r a request
//     attribute, read with the vocabulary of headers; %X "X" when the
//     connection was aborted before the response completed.
//
// The pattern is given as in server.xml (&quot; and the other entities
// are read) or as a string; common and combined are its named patterns.

// tomcatNamed are the patterns AccessLogValve names.
var tomcatNamed = map[string]string{
	"common":   `%h %l %u %t "%r" %s %b`,
	"combined": `%h %l %u %t "%r" %s %b "%{Referer}i" "%{User-Agent}i"`,
}

var xmlEntities = strings.NewReplacer("&quot;", `"`, "&apos;", "'", "&lt;", "<", "&gt;", ">", "&amp;", "&")

// compileTomcat compiles an AccessLogValve pattern.
func compileTomcat(syn Syntax, format string) (*Program, error) {
	s := strings.TrimSpace(format)
	if named, ok := tomcatNamed[s]; ok {
		return compilePercent(syn, format, source{text: named}, func(d directive) *variable { return tomcatVariable(syn, d) })
	}
	src := source{text: format}
	if strings.Contains(format, "&") {
		// Entities are read before the pattern; columns then point at
		// the entity that became each byte.
		var text strings.Builder
		var orig []int
		for i := 0; i < len(format); {
			if format[i] == '&' {
				if end := strings.IndexByte(format[i:], ';'); end > 0 {
					if r := xmlEntities.Replace(format[i : i+end+1]); len(r) == 1 {
						text.WriteString(r)
						orig = append(orig, i)
						i += end + 1
						continue
					}
				}
			}
			text.WriteByte(format[i])
			orig = append(orig, i)
			i++
		}
		src = source{text: text.String(), orig: orig}
	}
	return compilePercent(syn, format, src, func(d directive) *variable { return tomcatVariable(syn, d) })
}

// tomcatVariable is what an AccessLogValve directive means.
func tomcatVariable(syn Syntax, d directive) *variable {
	switch d.letter {
	case "t":
		return percentTime(syn, d, simpleDateLayout)
	case "D":
		if syn == tomcat9 {
			return percentDuration(d.text, time.Millisecond)
		}
		return percentDuration(d.text, time.Microsecond)
	case "T":
		return percentElapsed(d)
	case "S", "I":
		return typed(known(d.text, none, 0), kindToken) // the session id, the thread's name
	case "s":
		if d.hasArg {
			return unknownVar(d.text) // a session attribute
		}
		v := known(d.text, Status, 1)
		v.kind = kindInt
		return v
	case "a":
		return typed(known(d.text, Client, 2), kindToken)
	case "r":
		if d.hasArg {
			return requestHeader(d.text, d.arg)
		}
	}
	return percentShared(d)
}
