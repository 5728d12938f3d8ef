package grammar

import (
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/tidwall/gjson"
)

// Envoy's access-log format strings (configuration, access logging):
// literal text and command operators, %NAME%, %NAME(ARGS)% and
// %NAME(ARGS):LENGTH%. A json_format is a JSON object whose string values
// are format strings: its lines are JSON objects whose members are read
// by name, in any order, each by its own format (typed_json_format's
// numbers too).
//
// %START_TIME% is when the request started (RFC 3339 with milliseconds,
// or the strftime format in its argument, with Envoy's %3f/%6f/%9f);
// %DURATION% is the request's duration in milliseconds, to the last byte
// out; %RESPONSE_CODE% is 0 when no response was sent; %RESPONSE_FLAGS%
// say who ended the request ("-" when nothing went wrong);
// %REQ(X?Y)% is request header X, else Y; "-" is a value not set.

// envoyNone are Envoy's operators of no use to idem.
var envoyNone = map[string]bool{
	"PROTOCOL": true, "UPSTREAM_PROTOCOL": true, "BYTES_RECEIVED": true, "BYTES_SENT": true, "UPSTREAM_HOST": true,
	"UPSTREAM_CLUSTER": true, "UPSTREAM_CLUSTER_RAW": true, "UPSTREAM_LOCAL_ADDRESS": true, "UPSTREAM_REMOTE_ADDRESS": true, "DOWNSTREAM_LOCAL_ADDRESS": true,
	"DOWNSTREAM_LOCAL_ADDRESS_WITHOUT_PORT": true, "DOWNSTREAM_LOCAL_PORT": true, "DOWNSTREAM_REMOTE_PORT": true,
	"ROUTE_NAME": true, "VIRTUAL_CLUSTER_NAME": true, "REQUESTED_SERVER_NAME": true, "HOSTNAME": true, "CONNECTION_ID": true,
	"STREAM_ID": true, "REQUEST_DURATION": true, "REQUEST_TX_DURATION": true, "RESPONSE_DURATION": true,
	"RESPONSE_TX_DURATION": true, "DOWNSTREAM_HANDSHAKE_DURATION": true, "ROUNDTRIP_DURATION": true,
	"UPSTREAM_WIRE_BYTES_SENT": true, "UPSTREAM_WIRE_BYTES_RECEIVED": true, "UPSTREAM_HEADER_BYTES_SENT": true,
	"UPSTREAM_HEADER_BYTES_RECEIVED": true, "DOWNSTREAM_WIRE_BYTES_SENT": true, "DOWNSTREAM_WIRE_BYTES_RECEIVED": true,
	"DOWNSTREAM_HEADER_BYTES_SENT": true, "DOWNSTREAM_HEADER_BYTES_RECEIVED": true,
}

// envoyOperator is what an operator means; written is it as written.
func envoyOperator(written, name, args string) *variable {
	switch name {
	case "START_TIME":
		return envoyStart(written, args)
	case "DURATION":
		v := known(written, Duration, 2)
		v.m.Unit, v.kind = time.Millisecond, kindInt
		return v
	case "RESPONSE_CODE":
		v := known(written, Status, 1)
		v.kind = kindInt
		return v
	case "RESPONSE_FLAGS", "RESPONSE_FLAGS_LONG":
		return known(written, Flags, 1)
	case "RESPONSE_CODE_DETAILS", "CONNECTION_TERMINATION_DETAILS", "UPSTREAM_TRANSPORT_FAILURE_REASON":
		return known(written, Reason, 1)
	case "UPSTREAM_REQUEST_ATTEMPT_COUNT":
		v := known(written, Attempts, 1)
		v.kind = kindInt
		return v
	case "DOWNSTREAM_REMOTE_ADDRESS_WITHOUT_PORT", "DOWNSTREAM_DIRECT_REMOTE_ADDRESS_WITHOUT_PORT":
		return known(written, Client, 1)
	case "DOWNSTREAM_REMOTE_ADDRESS", "DOWNSTREAM_DIRECT_REMOTE_ADDRESS":
		// The port names the connection, not the client: a retry on a
		// new connection is the same client.
		v := known(written, Client, 1)
		v.split = func(value string, vs *Values) { vs.set(&v.m, withoutPort(value)) }
		return v
	case "BYTES_RECEIVED", "BYTES_SENT":
		v := known(written, none, 0)
		v.kind = kindInt
		return v
	case "REQ":
		return envoyHeader(written, args, requestHeader)
	case "RESP":
		return envoyHeader(written, args, responseHeader)
	}
	if envoyNone[name] {
		return known(written, none, 0)
	}
	return unknownVar(written)
}

// envoyHeader is %REQ(X?Y)% or %RESP(X?Y)%: the pseudo-headers name the
// method and path; X-Envoy-Original-Path is the path before a rewrite.
func envoyHeader(written, args string, header func(string, string) *variable) *variable {
	first, alt, _ := strings.Cut(args, "?")
	for _, h := range []string{first, alt} {
		switch strings.ToUpper(strings.TrimSpace(h)) {
		case "":
			continue
		case ":METHOD":
			return known(written, Method, 1)
		case ":PATH":
			return known(written, Path, 1)
		case "X-ENVOY-ORIGINAL-PATH":
			return known(written, Path, 2)
		case ":AUTHORITY", ":SCHEME", ":PROTOCOL", "X-ENVOY-UPSTREAM-SERVICE-TIME":
			// Envoy's default format logs the upstream's own time: of
			// no use beside %DURATION%.
			return known(written, none, 0)
		}
		if v := header(written, h); !v.unknown || alt == "" {
			return v
		}
	}
	return unknownVar(written)
}

// envoyStart is %START_TIME(FORMAT)%.
func envoyStart(written, format string) *variable {
	v := known(written, Start, 1)
	switch format {
	case "":
		return v // RFC 3339, milliseconds
	case "%s":
		v.m.Unit, v.kind = time.Second, kindInt
		return v
	}
	layout, spaces, ok := strftimeLayout(format)
	if !ok {
		return unknownVar(written)
	}
	v.m.Layout, v.spaces = layout, spaces
	return v
}

// withoutPort is an address without its port: "10.0.0.7:40112" and
// "[2001:db8::1]:443" are 10.0.0.7 and 2001:db8::1; a bare IPv6 address
// is kept whole.
func withoutPort(addr string) string {
	if strings.HasPrefix(addr, "[") {
		if i := strings.Index(addr, "]:"); i > 0 {
			return addr[1:i]
		}
		return addr
	}
	if i := strings.LastIndexByte(addr, ':'); i > 0 && strings.IndexByte(addr[:i], ':') < 0 {
		return addr[:i]
	}
	return addr
}

// envoyLooking reports whether s holds an Envoy operator: an upper-case
// name of three or more characters between '%' and '%' or '('.
func envoyLooking(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] != '%' {
			continue
		}
		k := i + 1
		for k < len(s) && (s[k] >= 'A' && s[k] <= 'Z' || s[k] == '_') {
			k++
		}
		if k-i-1 >= 3 && k < len(s) && (s[k] == '%' || s[k] == '(') {
			return true
		}
	}
	return false
}

// compileEnvoy compiles a format string, or a json_format object.
func compileEnvoy(format string) (*Program, error) {
	if s := strings.TrimSpace(format); strings.HasPrefix(s, "{") {
		j, err := compileEnvoyJSON(format, strings.Index(format, "{"))
		if err != nil {
			return nil, err
		}
		return &Program{syntax: Envoy, json: j}, nil
	}
	return compileEnvoyText(format, source{text: format})
}

func compileEnvoyText(format string, src source) (*Program, error) {
	s := src.text
	b := &builder{syntax: Envoy}
	for i := 0; i < len(s); {
		start := b.next(s, i, '%', false)
		if start < 0 {
			break
		}
		i = start + 1
		k := i
		for k < len(s) && (s[k] >= 'A' && s[k] <= 'Z' || s[k] >= '0' && s[k] <= '9' || s[k] == '_') {
			k++
		}
		if k == i {
			return nil, syntaxErrorAt(Envoy, format, src.at(i), "an operator name (%START_TIME%, %REQ(X)%) after '%'")
		}
		name := s[i:k]
		i = k
		args := ""
		if i < len(s) && s[i] == '(' {
			end := strings.IndexByte(s[i:], ')')
			if end < 0 {
				return nil, syntaxErrorAt(Envoy, format, src.at(i), "')' closing "+name+"(")
			}
			args = s[i+1 : i+end]
			i += end + 1
		}
		if i < len(s) && s[i] == ':' {
			k := i + 1
			for k < len(s) && s[k] >= '0' && s[k] <= '9' {
				k++
			}
			if k == i+1 {
				return nil, syntaxErrorAt(Envoy, format, src.at(k), "a length after ':'")
			}
			i = k
		}
		if i >= len(s) || s[i] != '%' {
			return nil, syntaxErrorAt(Envoy, format, src.at(i), "'%' closing %"+name)
		}
		i++
		b.variable(envoyOperator(s[start:i], name, args))
	}
	return b.program(format)
}

// jsonProgram reads a JSON object member by member.
type jsonProgram struct {
	members map[string]*jsonMember
	order   []*jsonMember
}

// jsonMember is a template member: a format string, or an object.
type jsonMember struct {
	key  string
	prog *Program
	sub  *jsonProgram
}

func (j *jsonProgram) meanings() []meaning {
	var out []meaning
	for _, m := range j.order {
		if m.sub != nil {
			out = append(out, m.sub.meanings()...)
		} else {
			out = append(out, m.prog.meanings()...)
		}
	}
	return out
}

// compileEnvoyJSON compiles a json_format object found at format[at:].
func compileEnvoyJSON(format string, at int) (*jsonProgram, error) {
	text := format[at:]
	if !gjson.Valid(text) {
		var se *json.SyntaxError
		var v any
		col := len(format)
		if err := json.Unmarshal([]byte(text), &v); errors.As(err, &se) {
			col = at + int(se.Offset) - 1
		}
		return nil, syntaxErrorAt(Envoy, format, col, "a JSON object (json_format)")
	}
	obj := gjson.Parse(text)
	if !obj.IsObject() {
		return nil, syntaxErrorAt(Envoy, format, at, "a JSON object (json_format)")
	}
	return compileJSONObject(format, at, obj)
}

func compileJSONObject(format string, at int, obj gjson.Result) (*jsonProgram, error) {
	j := &jsonProgram{members: map[string]*jsonMember{}}
	var err error
	obj.ForEach(func(k, v gjson.Result) bool {
		m := &jsonMember{key: k.Str}
		switch {
		case v.IsObject():
			m.sub, err = compileJSONObject(format, at, v)
		case v.Type == gjson.String:
			// Columns inside the string are the value's, past its quote.
			orig := make([]int, len(v.Str))
			for i := range orig {
				orig[i] = at + v.Index + 1 + i
			}
			m.prog, err = compileEnvoyText(format, source{text: v.Str, orig: orig})
			var se *syntaxError
			if errors.As(err, &se) && se.Want == "a variable somewhere in the format" {
				m.prog, err = nil, nil // a constant member
			}
		}
		if err != nil {
			return false
		}
		if m.prog != nil || m.sub != nil {
			j.members[m.key] = m
			j.order = append(j.order, m)
		}
		return true
	})
	if err != nil {
		return nil, err
	}
	if len(j.order) == 0 {
		return nil, &syntaxError{Syntax: Envoy, Column: at + 1, Want: "a format string among the object's values"}
	}
	return j, nil
}

// read reads a line that is a JSON object.
func (j *jsonProgram) read(line string, v *Values) error {
	if !gjson.Valid(line) {
		return mismatch(line, 0, "a JSON object")
	}
	obj := gjson.Parse(line)
	if !obj.IsObject() {
		return mismatch(line, 0, "a JSON object")
	}
	return j.readObject(line, obj, v)
}

func (j *jsonProgram) readObject(line string, obj gjson.Result, v *Values) error {
	var err error
	obj.ForEach(func(k, val gjson.Result) bool {
		m := j.members[k.Str]
		if m == nil {
			return true
		}
		if m.sub != nil {
			if val.IsObject() {
				err = m.sub.readObject(line, val, v)
			}
			return err == nil
		}
		var s string
		switch val.Type {
		case gjson.String:
			s = val.Str
		case gjson.Null:
			return true
		default:
			s = val.Raw
		}
		if e := m.prog.readText(s, v); e != nil {
			var me *mismatchError
			if errors.As(e, &me) {
				me.Column += val.Index
				me.Want = "member " + strconv.Quote(m.key) + ": " + me.Want
			}
			err = e
			return false
		}
		return true
	})
	return err
}
