package grammar

import (
	"strings"
	"time"
)

// nginx's log_format (ngx_http_log_module): literal text and variables,
// $name or ${name}. The format is given as the string, or as the whole
// directive as it stands in nginx.conf:
//
//	log_format main escape=json '{"time":"$time_iso8601",'
//	                            '"rid":"$http_x_request_id","status":$status}';
//
// nginx writes the format as it is, each variable replaced by its value,
// so a JSON template is read like any other format. escape= says how
// values are escaped: default writes '"', '\' and bytes outside ASCII's
// printable range as \xHH and a variable it does not have as "-"; json
// writes JSON's escapes and such a variable as nothing; none writes
// values as they are.
//
// $msec, $time_local and $time_iso8601 are taken when the log is written,
// at the end of the request; $request_time is its duration in seconds.

// nginxVariables are the variables nginx defines that idem reads or
// knows to be of no use to it; $http_*, $sent_http_* and
// $upstream_http_* are headers, read with the shared vocabulary.
var nginxVariables = map[string]func(name string) *variable{
	"remote_addr":        func(n string) *variable { return typed(known(n, Client, 1), kindToken) },
	"realip_remote_addr": func(n string) *variable { return typed(known(n, Client, 1), kindToken) },
	"request_id":         func(n string) *variable { return typed(known(n, RequestID, 1), kindToken) },
	"request_method":     func(n string) *variable { return typed(known(n, Method, 1), kindToken) },
	"request_uri":        func(n string) *variable { return typed(known(n, Path, 2), kindToken) },
	"uri":                func(n string) *variable { return known(n, Path, 1) },
	"document_uri":       func(n string) *variable { return known(n, Path, 1) },
	"request": func(n string) *variable {
		v := known(n, RequestLine, 1)
		v.spaces = 2
		return v
	},
	"status": func(n string) *variable {
		v := known(n, Status, 1)
		v.kind = kindInt
		return v
	},
	"upstream_status": func(n string) *variable { return listOf(known(n, UpstreamStatus, 1)) },
	// ingress-nginx's: the request's X-Request-ID, else one nginx made
	// (its nginx.tmpl maps it), and the upstream (namespace-service-port)
	// it routed the request to.
	"req_id":              func(n string) *variable { return typed(known(n, RequestID, 2), kindToken) },
	"proxy_upstream_name": func(n string) *variable { return typed(known(n, Upstream, 1), kindToken) },
	"request_time": func(n string) *variable {
		v := known(n, Duration, 1)
		v.m.Unit, v.kind = time.Second, kindNumber
		return v
	},
	"msec": func(n string) *variable {
		v := known(n, End, 3)
		v.m.Unit, v.kind = time.Second, kindNumber
		return v
	},
	"time_local": func(n string) *variable {
		v := known(n, End, 1)
		v.spaces = 1
		return v
	},
	"time_iso8601": func(n string) *variable { return known(n, End, 2) },
}

// nginxIgnored are nginx's variables of no use to idem.
var nginxIgnored = map[string]bool{
	"remote_user": true, "remote_port": true, "binary_remote_addr": true, "body_bytes_sent": true, "bytes_sent": true,
	"request_length": true, "host": true, "hostname": true, "server_name": true, "server_port": true, "server_addr": true,
	"server_protocol": true, "scheme": true, "https": true, "connection": true, "connection_requests": true, "pid": true,
	"pipe": true, "gzip_ratio": true, "args": true, "query_string": true, "is_args": true, "content_type": true,
	"content_length": true, "request_completion": true, "nginx_version": true, "proxy_host": true, "proxy_port": true,
	"proxy_protocol_addr": true, "proxy_protocol_port": true, "ssl_protocol": true, "ssl_cipher": true,
	"ssl_server_name": true, "ssl_session_reused": true, "upstream_addr": true, "upstream_response_time": true,
	"upstream_connect_time": true, "upstream_header_time": true, "upstream_response_length": true,
	"upstream_bytes_received": true, "upstream_bytes_sent": true, "upstream_cache_status": true, "time_iso8601_ms": true,
	"request_body": true, "request_body_file": true, "realpath_root": true, "document_root": true, "limit_rate": true,
	"proxy_alternative_upstream_name": true,
}

// nginxLists are the variables whose value is a list where nginx tried
// several upstreams ("10.0.0.1:80, 10.0.0.2:80"; " : " across groups).
var nginxLists = map[string]bool{
	"upstream_addr": true, "upstream_status": true, "upstream_response_time": true, "upstream_connect_time": true,
	"upstream_header_time": true, "upstream_response_length": true, "upstream_bytes_received": true, "upstream_bytes_sent": true,
}

// listOf is v whose value may be a list.
func listOf(v *variable) *variable {
	v.list = true
	return v
}

// nginxInts are nginx's variables whose values are integers.
var nginxInts = map[string]bool{
	"body_bytes_sent": true, "bytes_sent": true, "request_length": true, "connection": true, "connection_requests": true,
	"pid": true, "server_port": true, "remote_port": true,
}

// nginxVariable is what $name means.
func nginxVariable(name string) *variable {
	written := "$" + name
	lower := strings.ToLower(name)
	if mk, ok := nginxVariables[lower]; ok {
		return mk(written)
	}
	switch {
	case nginxInts[lower]:
		return typed(known(written, none, 0), kindInt)
	case strings.HasPrefix(lower, "cookie_"):
		return known(written, secret, 0)
	case nginxLists[lower]:
		return listOf(known(written, none, 0))
	case nginxIgnored[lower]:
		return known(written, none, 0)
	case strings.HasPrefix(lower, "http_"):
		return requestHeader(written, lower[len("http_"):])
	case strings.HasPrefix(lower, "sent_http_"):
		return responseHeader(written, lower[len("sent_http_"):])
	case strings.HasPrefix(lower, "upstream_http_"):
		return responseHeader(written, lower[len("upstream_http_"):])
	}
	return unknownVar(written)
}

// compileNginx compiles a log_format string or directive.
func compileNginx(format string) (*Program, error) {
	src, esc, err := nginxSource(format)
	if err != nil {
		return nil, err
	}
	b := &builder{syntax: Nginx, esc: esc}
	s := src.text
	for i := 0; i < len(s); {
		j := b.next(s, i, '$', false)
		if j < 0 {
			break
		}
		i = j + 1
		var name string
		if i < len(s) && s[i] == '{' {
			end := strings.IndexByte(s[i:], '}')
			if end < 0 {
				return nil, syntaxErrorAt(Nginx, format, src.at(i-1), "'}' closing ${")
			}
			name = s[i+1 : i+end]
			if !nginxName(name) {
				return nil, syntaxErrorAt(Nginx, format, src.at(i+1), "a variable name inside ${}")
			}
			i += end + 1
		} else {
			k := i
			for k < len(s) && nginxNameByte(s[k]) {
				k++
			}
			if k == i {
				return nil, syntaxErrorAt(Nginx, format, src.at(i), "a variable name after '$'")
			}
			name = s[i:k]
			i = k
		}
		b.variable(nginxVariable(name))
	}
	return b.program(format)
}

func nginxNameByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}

func nginxName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !nginxNameByte(s[i]) {
			return false
		}
	}
	return true
}

// source is a format string as read out of its directive, each byte's
// column in what the user gave kept for messages.
type source struct {
	text string
	orig []int // orig[i] is text[i]'s index in the given string; nil: the same
}

func (s source) at(i int) int {
	if s.orig == nil {
		return i
	}
	if i < len(s.orig) {
		return s.orig[i]
	}
	if len(s.orig) > 0 {
		return s.orig[len(s.orig)-1] + 1
	}
	return 0
}

// nginxSource reads the format out of a log_format directive (its name,
// escape= and quoted strings, joined), or takes a bare string as it is,
// after an optional escape= of its own.
func nginxSource(format string) (source, escaping, error) {
	esc := escNginx
	s := strings.TrimSpace(format)
	off := strings.Index(format, s)
	directive := strings.HasPrefix(s, "log_format")
	if !directive {
		if rest, ok := strings.CutPrefix(s, "escape="); ok {
			word, _, _ := strings.Cut(rest, " ")
			e, ok := nginxEscape(word)
			if !ok {
				return source{}, 0, syntaxErrorAt(Nginx, format, off+len("escape="), "default, json or none after escape=")
			}
			esc = e
			s = strings.TrimLeft(rest[len(word):], " \t\n")
			off = strings.Index(format, s)
			if s == "" {
				off = len(format)
			}
		}
		orig := make([]int, len(s))
		for i := range orig {
			orig[i] = off + i
		}
		return source{text: s, orig: orig}, esc, nil
	}
	// The directive: log_format NAME [escape=…] STRING…;
	var text strings.Builder
	var orig []int
	i := len("log_format")
	words := 0
	for {
		for i < len(format) && strings.IndexByte(" \t\r\n", format[i]) >= 0 {
			i++
		}
		if i >= len(format) || format[i] == ';' {
			break
		}
		words++
		if q := format[i]; q == '\'' || q == '"' {
			i++
			closed := false
			for i < len(format) {
				c := format[i]
				if c == q {
					closed = true
					i++
					break
				}
				if c == '\\' && i+1 < len(format) {
					switch e := format[i+1]; e {
					case q, '\\':
						text.WriteByte(e)
					case 'n':
						text.WriteByte('\n')
					case 't':
						text.WriteByte('\t')
					case 'r':
						text.WriteByte('\r')
					default:
						text.WriteByte(c)
						orig = append(orig, i)
						i++
						continue
					}
					orig = append(orig, i)
					i += 2
					continue
				}
				text.WriteByte(c)
				orig = append(orig, i)
				i++
			}
			if !closed {
				return source{}, 0, syntaxErrorAt(Nginx, format, i, "the quote closing the string")
			}
			if words == 1 {
				// A quoted name: what follows is the format.
				text.Reset()
				orig = orig[:0]
			}
			continue
		}
		start := i
		for i < len(format) && strings.IndexByte(" \t\r\n;", format[i]) < 0 {
			i++
		}
		word := format[start:i]
		switch {
		case words == 1:
			// the format's name
		case words == 2 && strings.HasPrefix(word, "escape="):
			e, ok := nginxEscape(word[len("escape="):])
			if !ok {
				return source{}, 0, syntaxErrorAt(Nginx, format, start+len("escape="), "default, json or none after escape=")
			}
			esc = e
		default:
			text.WriteString(word)
			for k := start; k < i; k++ {
				orig = append(orig, k)
			}
		}
	}
	if words < 2 {
		return source{}, 0, syntaxErrorAt(Nginx, format, i, "log_format NAME followed by the format")
	}
	if i < len(format) && strings.TrimSpace(format[i+1:]) != "" {
		return source{}, 0, syntaxErrorAt(Nginx, format, i+1, "nothing after the directive's ';'")
	}
	return source{text: text.String(), orig: orig}, esc, nil
}

func nginxEscape(s string) (escaping, bool) {
	switch s {
	case "default":
		return escNginx, true
	case "json":
		return escJSON, true
	case "none":
		return escNone, true
	}
	return 0, false
}
