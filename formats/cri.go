package formats

import (
	"bytes"

	"github.com/idem-cli/idem/model"
)

// Kubernetes' container runtimes (containerd, CRI-O) write each line a
// container prints as the CRI logging format has it, in the files under
// /var/log/pods:
//
//	2026-12-01T09:00:00.123456789Z stdout F {"level":"info",…}
//	2026-12-01T09:00:00.123456789Z stdout P <the first 16 KiB of a longer line>
//	2026-12-01T09:00:00.123456789Z stdout F <its end>
//
// the time the runtime read it, the stream, and a tag: F ends a line, P
// is a part of one the runtime split, joined with what follows until the
// F. The line is read as if it stood alone, cited by its first part.
var criFormat = &Format{
	Name: "cri", Aliases: []string{"containerd", "cri-o"}, Kind: KindEnvelope,
	Doc:  "Kubernetes container log files (the CRI format containerd and CRI-O write: time, stream, P/F, the line), unwrapped",
	text: readCRI,
	Samples: []Sample{{
		Origin: "the CRI logging format (kubernetes/cri-api, containerd's pkg/cri/io): an nginx combined line as containerd writes it",
		Line: `2026-12-01T09:00:00.123456789Z stdout F 10.244.0.1 - - [01/Dec/2026:09:00:00 +0000] "POST /v1/orders HTTP/1.1" 201 57 "-" "okhttp/4.12.0" ` +
			`0.120 "201" "c9b2decb-ebc7-4a9b-99d6-69712772ef41" "0b5d3c1e-5b7a-4d1e-9a63-2f1f3c9b8e41"`,
		Want: model.Observation{Tier: model.TierProxy, Format: "combined", Method: "POST", Route: "/v1/orders", Status: 201, UpstreamStatus: 201,
			Outcome: model.OutcomeOK, RequestID: "c9b2decb-ebc7-4a9b-99d6-69712772ef41", Key: "0b5d3c1e-5b7a-4d1e-9a63-2f1f3c9b8e41",
			Client: "10.244.0.1", Time: mustTime("2026-12-01T08:59:59.880Z"), Duration: 120_000_000},
	}, {
		Origin: "the CRI logging format: a JSON line the runtime split in two (P, then F)",
		Line: "2026-12-01T09:00:00.123456789Z stdout P {\"time\":\"2026-12-01T09:00:00.1Z\",\"level\":\"INFO\",\"msg\":\"order created\",\n" +
			`2026-12-01T09:00:00.123456789Z stdout F "request_id":"c9b2decb-ebc7-4a9b-99d6-69712772ef41","result_id":"ord_1","status":201}`,
		Want: model.Observation{Tier: model.TierServer, Format: "slog", Status: 201, RequestID: "c9b2decb-ebc7-4a9b-99d6-69712772ef41",
			ResultID: "ord_1", Message: "order created", Time: mustTime("2026-12-01T09:00:00.1Z")},
	}},
}

// criPartial is the line being joined from P parts.
type criPartial struct {
	buf []byte
	src model.Source
	on  bool
}

// maxCRILine bounds a joined line: a hostile file of P parts without an F
// would grow it without end.
const maxCRILine = 4 << 20

func readCRI(p *Parser, s string, src model.Source) bool {
	// 2026-12-01T09:00:00Z stdout F: a time, a stream, a tag.
	if len(s) < 30 || s[4] != '-' || s[10] != 'T' {
		return false
	}
	sp := indexByte(s, ' ', 40)
	if sp < 20 {
		return false
	}
	rest := s[sp+1:]
	var stream string
	switch {
	case len(rest) >= 8 && rest[:7] == "stdout ":
		stream, rest = "stdout", rest[7:]
	case len(rest) >= 8 && rest[:7] == "stderr ":
		stream, rest = "stderr", rest[7:]
	default:
		return false
	}
	_ = stream
	if len(rest) < 1 || (rest[0] != 'F' && rest[0] != 'P') || len(rest) > 1 && rest[1] != ' ' {
		return false
	}
	if _, ok := model.ParseTime(s[:sp]); !ok {
		return false
	}
	tag, payload := rest[0], ""
	if len(rest) > 2 {
		payload = rest[2:]
	}
	c := &p.cri
	if tag == 'P' {
		if !c.on {
			c.on, c.src, c.buf = true, src, c.buf[:0]
		}
		if len(c.buf)+len(payload) <= maxCRILine {
			c.buf = append(c.buf, payload...)
		}
		p.out.Ignored++ // a part: read with the line it begins
		p.countFormat("cri")
		return true
	}
	line := []byte(payload)
	if c.on {
		c.buf = append(c.buf, payload...)
		line, src = c.buf, c.src
		c.on = false
	}
	p.unwrapLine(line, nil, src)
	return true
}

// indexByte is the index of c in s's first n bytes, or -1.
func indexByte(s string, c byte, n int) int {
	for i := 0; i < len(s) && i < n; i++ {
		if s[i] == c {
			return i
		}
	}
	return -1
}

// Continued reports whether line is a part of a longer line that a
// container runtime split (CRI's P tag), or of a client's request trace
// or retry that the lines after it complete (requestline.go): the
// reader keeps it with the lines that follow, so that one parser joins
// them.
func Continued(line []byte) bool {
	if requestLineContinues(line) {
		return true
	}
	if len(line) < 30 || line[4] != '-' || line[10] != 'T' {
		return false
	}
	sp := bytes.IndexByte(line[:min(len(line), 40)], ' ')
	if sp < 0 {
		return false
	}
	rest := line[sp+1:]
	return len(rest) >= 9 && (string(rest[:9]) == "stdout P " || string(rest[:9]) == "stderr P ")
}

// Flush ends an input's part: a line the container runtime split (P)
// whose end never came (the input ends) is said so.
func (p *Parser) Flush() {
	p.reqline = reqLine{} // a request line's dump or retry mark ends with its batch
	if c := &p.cri; c.on {
		c.on = false
		p.skip(c.src, "a line the container runtime split (CRI P) whose end (F) never came")
	}
}
