package formats

import (
	"regexp"
	"strings"
)

// The prefixes the big logging libraries write at their defaults before
// a message, peeled so that a message of key=value pairs after one is
// read as logfmt (logfmt.go): the prefix gives the line's time, level,
// logger and process where it has them.
//
//   - Python's logging.basicConfig(): "INFO:orders:message" (no time);
//     and the cookbook's "%(asctime)s - %(name)s - %(levelname)s -
//     %(message)s": "2026-12-08 10:00:00,123 - orders - INFO - message";
//   - Java's logback and log4j2 defaults, "%d{HH:mm:ss.SSS} [%thread]
//     %-5level %logger{36} - %msg": "12:00:01.234 [main] INFO  c.e.Orders -
//     message" (a time of day without its date, which places nothing);
//     Spring Boot's, "2026-12-08T10:00:00.123Z  INFO 1234 --- [orders]
//     [main] c.e.Orders : message" (its time, in RFC 3339, is read by
//     kubectl.go's, which hands on the rest);
//   - Ruby's Logger: "I, [2026-12-08T10:00:00.123456 #1234]  INFO -- :
//     message" (or "-- progname: message");
//   - Go's log package, log.LstdFlags (and Lmicroseconds): "2026/12/08
//     10:00:00 message", with a prefix the program set before the
//     time, or after it with log.Lmsgprefix.
type prefixed struct {
	time, level, logger, pid string
}

// levelWords are the level names the prefixes write.
const levelWords = `TRACE|DEBUG|INFO|NOTICE|WARN|WARNING|ERROR|CRITICAL|FATAL|SEVERE|FINE`

var (
	pythonBasic   = regexp.MustCompile(`^(` + levelWords + `):([^:\s]*):`)
	pythonAsctime = regexp.MustCompile(`^(\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(?:[,.]\d+)?) - (\S+) - (` + levelWords + `) - `)
	logbackBasic  = regexp.MustCompile(`^(\d{2}:\d{2}:\d{2}(?:\.\d+)?) \[[^\]]*\] +(` + levelWords + `) +(\S+) - `)
	springBoot    = regexp.MustCompile(`^(?:(\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:?\d{2})?) +)?(` + levelWords + `) +(\d+) --- (?:\[[^\]]*\] +)?\[[^\]]*\] +(\S+) *: `)
	rubyLogger    = regexp.MustCompile(`^[DIWEFA], \[(\S+) #(\d+)\] +([A-Z]+) -- ([^:]*): `)
	goLog         = regexp.MustCompile(`^(?:\S+ )?(\d{4}/\d{2}/\d{2} \d{2}:\d{2}:\d{2}(?:\.\d+)?) `)
)

// peelPrefix takes a logging library's default prefix off s: what
// follows it, and what it said.
func peelPrefix(s string) (string, prefixed, bool) {
	if len(s) < 10 {
		return s, prefixed{}, false
	}
	var p prefixed
	switch c := s[0]; {
	case c >= '0' && c <= '9':
		if m := springBoot.FindStringSubmatch(s); m != nil {
			p = prefixed{time: m[1], level: m[2], pid: m[3], logger: m[4]}
			return s[len(m[0]):], p, true
		}
		if m := pythonAsctime.FindStringSubmatch(s); m != nil {
			p = prefixed{time: m[1], logger: m[2], level: m[3]}
			return s[len(m[0]):], p, true
		}
		if m := logbackBasic.FindStringSubmatch(s); m != nil {
			// A time of day without its date places nothing.
			p = prefixed{level: m[2], logger: m[3]}
			return s[len(m[0]):], p, true
		}
	case len(s) > 3 && s[1] == ',' && s[2] == ' ' && s[3] == '[':
		if m := rubyLogger.FindStringSubmatch(s); m != nil {
			p = prefixed{time: m[1], pid: m[2], level: m[3], logger: strings.TrimSpace(m[4])}
			return s[len(m[0]):], p, true
		}
	default:
		if m := pythonBasic.FindStringSubmatch(s); m != nil {
			p = prefixed{level: m[1], logger: m[2]}
			return s[len(m[0]):], p, true
		}
		// Spring Boot's after its time, which an RFC 3339 time's reader
		// (kubectl.go) took off.
		if m := springBoot.FindStringSubmatch(s); m != nil {
			p = prefixed{level: m[2], pid: m[3], logger: m[4]}
			return s[len(m[0]):], p, true
		}
	}
	if m := goLog.FindStringSubmatch(s); m != nil {
		p = prefixed{time: m[1]}
		return s[len(m[0]):], p, true
	}
	return s, prefixed{}, false
}

// splitMessage splits what follows a peeled prefix into its message's
// words and the key=value pairs after them ("order created id=ord_1
// key=k-1"): the pairs begin at the first word that is one, and
// everything after must be pairs. ok is false when no word is a pair.
func splitMessage(s string) (msg, pairs string, ok bool) {
	for i := 0; i < len(s); {
		for i < len(s) && s[i] == ' ' {
			i++
		}
		if _, _, _, isPair := logfmtPair(s[i:]); isPair {
			return strings.TrimRight(s[:i], " :,-"), s[i:], true
		}
		j := strings.IndexByte(s[i:], ' ')
		if j < 0 {
			break
		}
		i += j
	}
	return "", "", false
}
