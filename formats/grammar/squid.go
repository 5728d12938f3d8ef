package grammar

import (
	"sort"
	"strings"
	"time"
)

// Squid's logformat (squid.conf's logformat and access_log). A code is
//
//	% [quoting] [-] [[0]width[.max]] [{argument}] code [{argument}]
//
// quoting one of " [ # / ' (how the value is escaped), '-' left-aligned,
// width the value's minimum width (padded with spaces, or zeros with a
// leading 0), and the argument (a header's name, a strftime format)
// before or after the code. Codes are names of letters and < > : _, read
// longest first: %>Hs, %<st, %rm, %ts.
//
// What the codes mean (squid.conf.documented, Squid 5 and 6):
//
//   - %ts and %tu are when squid wrote the line, the END of the
//     transaction: Unix seconds and their milliseconds (%ts.%03tu);
//     %tl and %tg the same instant as a local or GMT date (a strftime
//     argument, [%d/%b/%Y:%H:%M:%S %z] by default); %tS the transaction's
//     start as seconds.milliseconds; %tr how long it took, in
//     milliseconds.
//   - %>Hs is the status sent to the client, %<Hs the one the next hop
//     answered; %Ss is squid's word for how the transaction went
//     (TCP_MISS, TCP_MISS_ABORTED when the client left, NONE_NONE when
//     nothing was forwarded), %Sh how it reached the next hop (HIER_NONE:
//     it reached none, as where it could not connect).
//   - %>a is the client's address, %rm the method, %ru the URL (in full,
//     with its query cut), %rp its path, %rv the protocol version.
//   - %{Name}>h is a request header, %{Name}<h a response header.
//
// Named formats are squid's own: squid (its default), common, combined,
// referrer and useragent.

// squidNamed are the formats squid predefines. Its common and combined
// are written by code of squid's own, which puts the protocol's name
// before the version where squid.conf's documentation shows "HTTP/%rv"
// ("NONE/0.0" for a request it never read): here %rv is that whole.
var squidNamed = map[string]string{
	"squid":     `%ts.%03tu %6tr %>a %Ss/%03>Hs %<st %rm %ru %[un %Sh/%<a %mt`,
	"common":    `%>a %[ui %[un [%tl] "%rm %ru %rv" %>Hs %<st %Ss:%Sh`,
	"combined":  `%>a %[ui %[un [%tl] "%rm %ru %rv" %>Hs %<st "%{Referer}>h" "%{User-Agent}>h" %Ss:%Sh`,
	"referrer":  `%ts.%03tu %>a %{Referer}>h %ru`,
	"useragent": `%>a [%tl] "%{User-Agent}>h"`,
}

// SquidNamed is the definition of squid's predefined format name, and
// whether it is one.
func SquidNamed(name string) (string, bool) {
	s, ok := squidNamed[name]
	return s, ok
}

// squidTimeLayout is %tl's and %tg's date when no argument names one.
const squidTimeLayout = "%d/%b/%Y:%H:%M:%S %z"

// squidCodes are the codes squid knows, longest first, so that %>Hs is
// not read as %>H followed by "s".
var squidCodes = func() []string {
	codes := []string{
		">a", ">A", ">p", "<a", "<A", "<p", "la", "lp", "<la", "<lp", ">la", ">lp", ">qos", ">nfmark", "<qos", "<nfmark",
		"ts", "tu", "tl", "tg", "tr", "tS", "dt", "<pt", "<tt", "busy_time",
		">h", ">ha", "<h", "un", "ul", "ui", "ub", "ue", "us", ">Hs", "<Hs", "Hs", "Ss", "Sh", "mt",
		"rm", ">rm", "<rm", "ru", ">ru", "<ru", ">rs", "<rs", ">rd", "<rd", ">rP", "<rP", "rp", ">rp", "<rp", "rv", ">rv", "<rv",
		"st", ">st", "<st", ">sh", "<sh", "<bs", "et", "ea", "note", "err_code", "err_detail", "sn", "master_xaction",
		"http::>h", "http::<h", "http::>ha",
	}
	sort.SliceStable(codes, func(i, j int) bool { return len(codes[i]) > len(codes[j]) })
	return codes
}()

// compileSquid compiles a squid logformat: the codes after the
// directive's name (logformat NAME codes…), the codes alone, or one of
// squid's named formats.
func compileSquid(format string) (*Program, error) {
	s := strings.TrimSpace(format)
	off := strings.Index(format, s)
	if rest, ok := strings.CutPrefix(s, "logformat"); ok && rest != "" && (rest[0] == ' ' || rest[0] == '\t') {
		// logformat NAME codes…: the codes start after the name.
		rest = strings.TrimLeft(rest, " \t")
		_, codes, _ := strings.Cut(rest, " ")
		codes = strings.TrimLeft(codes, " \t")
		off += len(s) - len(codes)
		s = codes
	}
	if named, ok := squidNamed[s]; ok {
		return compileSquidCodes(format, named, -1)
	}
	return compileSquidCodes(format, s, off)
}

// compileSquidCodes compiles the codes s, found at off in format (-1:
// not in it, a named format's definition).
func compileSquidCodes(format, s string, off int) (*Program, error) {
	at := func(i int) int {
		if off < 0 {
			return len(format)
		}
		return off + i
	}
	b := &builder{syntax: Squid, esc: escBackslash}
	padNext := false
	for i := 0; i < len(s); {
		start := b.next(s, i, '%', true)
		if start < 0 {
			break
		}
		i = start + 1
		if i < len(s) && strings.IndexByte(`"[#/'`, s[i]) >= 0 {
			i++
		}
		left := false
		if i < len(s) && s[i] == '-' {
			left = true
			i++
		}
		width := false
		for i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == '.') {
			width = true
			i++
		}
		arg, hasArg := "", false
		readArg := func() error {
			if i < len(s) && s[i] == '{' {
				end := strings.IndexByte(s[i:], '}')
				if end < 0 {
					return syntaxErrorAt(Squid, format, at(i), "'}' closing %{")
				}
				arg, hasArg = s[i+1:i+end], true
				i += end + 1
			}
			return nil
		}
		if err := readArg(); err != nil {
			return nil, err
		}
		code := ""
		for _, c := range squidCodes {
			if strings.HasPrefix(s[i:], c) {
				code = c
				break
			}
		}
		if code == "" {
			// A code squid has added since: < > then letters, ':' and '_'.
			j := i
			for j < len(s) && (s[j] == '<' || s[j] == '>') {
				j++
			}
			k := j
			for k < len(s) && (s[k] >= 'a' && s[k] <= 'z' || s[k] >= 'A' && s[k] <= 'Z' || s[k] == '_' || s[k] == ':') {
				k++
			}
			if k == j {
				return nil, syntaxErrorAt(Squid, format, at(i), "a logformat code after '%'")
			}
			code = s[i:k]
		}
		i += len(code)
		if !hasArg {
			if err := readArg(); err != nil {
				return nil, err
			}
		}
		v := squidVariable(s[start:i], code, arg, hasArg)
		// A value padded to a width starts (right-aligned) or is followed
		// (left-aligned) by spaces that are not part of it.
		v.trim = width && !left || padNext
		padNext = width && left
		b.variable(v)
	}
	return b.program(format)
}

// squidVariable is what a squid code means.
func squidVariable(written, code, arg string, hasArg bool) *variable {
	code = strings.TrimPrefix(code, "http::")
	switch code {
	case "ts":
		v := known(written, End, 1)
		v.m.Unit, v.kind = time.Second, kindInt
		return v
	case "tu":
		v := known(written, EndFrac, 1)
		v.m.Unit, v.kind = time.Millisecond, kindInt
		return v
	case "tS":
		// seconds.milliseconds since the epoch: a decimal time.
		return typed(known(written, Start, 2), kindNumber)
	case "tl", "tg":
		f := squidTimeLayout
		if hasArg && arg != "" {
			f = arg
		}
		layout, spaces, ok := strftimeLayout(f)
		if !ok {
			return unknownVar(written)
		}
		v := known(written, End, 1)
		v.m.Layout, v.spaces = layout, spaces
		return v
	case "tr":
		v := known(written, Duration, unitRank(time.Millisecond))
		v.m.Unit, v.kind = time.Millisecond, kindInt
		return v
	case ">Hs", "Hs":
		return typed(known(written, Status, 1), kindInt)
	case "<Hs":
		return typed(known(written, UpstreamStatus, 1), kindInt)
	case "Ss":
		return typed(known(written, OutcomeWord, 1), kindToken)
	case "Sh":
		return typed(known(written, NextHop, 1), kindToken)
	case ">a":
		return typed(known(written, Client, 2), kindToken)
	case "rm", ">rm":
		return typed(known(written, Method, 1), kindToken)
	case "ru", ">ru":
		return typed(known(written, Path, 1), kindToken)
	case "rp", ">rp":
		return typed(known(written, Path, 2), kindToken)
	case ">h":
		if hasArg {
			if name, _, sub := strings.Cut(arg, ":"); sub {
				return unknownVar(written + "(" + name + ")") // one member of a list header
			}
			return requestHeader(written, arg)
		}
	case "<h":
		if hasArg {
			return responseHeader(written, arg)
		}
	case "st", ">st", "<st", ">sh", "<sh", "<bs", "<pt", "<tt", "dt", "sn", ">p", "<p", "lp", "<lp", ">lp", "busy_time":
		// Sizes, ports, the next hop's times, a sequence number.
		return typed(known(written, none, 0), kindInt)
	case ">A", "<a", "<A", "la", "<la", ">la", "un", "ul", "ui", "ub", "ue", "us", "mt", "rv", ">rv", "<rv",
		"<rm", "<ru", ">rs", "<rs", ">rd", "<rd", ">rP", "<rP", "<rp":
		return typed(known(written, none, 0), kindToken)
	}
	return unknownVar(written)
}

// squidLooking reports whether a %-format uses codes only squid has:
// %>Hs, %Ss, %Sh, %>a, %<st, %rm, %ru, or a header as %{Name}>h.
func squidLooking(s string) bool {
	for _, c := range []string{"%>Hs", "%03>Hs", "%Ss", "%Sh", "%>a", "%<st", "%rm", "%ru", "}>h", "}<h"} {
		if strings.Contains(s, c) {
			return true
		}
	}
	return false
}
