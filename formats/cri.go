package formats

import (
	"bytes"
	"fmt"
	"unicode"

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
var criFormat = &format{
	Name: "cri", Aliases: []string{"containerd", "cri-o"}, Kind: kindEnvelope,
	Doc:  "Kubernetes container log files (the CRI format containerd and CRI-O write: time, stream, P/F, the line), unwrapped",
	text: readCRI,
	Samples: []sample{{
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

// A line split in parts is joined per stream: the runtime writes stdout
// and stderr into one file, and a stdout P may be followed by a whole
// stderr line (F) before its own end. A joined line is bounded (the
// reader's --max-line-bytes): past it, the parts are let go as they come
// and the line is skipped at its end, cited by its first part.

// criRun is a stream's line being joined from P parts. prefix holds the
// parts an earlier batch read (shared with the reader's CRIRuns, never
// written), own the parts read since; a run cut for its length keeps
// neither.
type criRun struct {
	prefix, own []byte
	src         model.Source
	on, cut     bool
}

// size is the run's bytes so far.
func (r *criRun) size() int { return len(r.prefix) + len(r.own) }

// add appends a part's payload, or cuts the run where it would pass max.
func (r *criRun) add(payload []byte, src model.Source, max int) {
	if !r.on {
		*r = criRun{own: r.own[:0], src: src, on: true}
	}
	switch {
	case r.cut:
	case r.size()+len(payload) > max:
		r.cut, r.prefix, r.own = true, nil, r.own[:0]
	default:
		r.own = append(r.own, payload...)
	}
}

// defaultMaxCRILine bounds a joined line where the reader sets no bound
// (ingest's default line bound).
const defaultMaxCRILine = 16 << 20

// criStreams are the streams a runtime writes, a run each.
const criStreams = 2

// criLine splits a CRI line into its stream (0 stdout, 1 stderr), its tag
// (P a part, F a line's end) and its payload; ok is false for a line of
// another format.
func criLine(s string) (stream int, part bool, payload string, ok bool) {
	// 2026-12-01T09:00:00Z stdout F: a time, a stream, a tag.
	if len(s) < 30 || s[4] != '-' || s[10] != 'T' {
		return 0, false, "", false
	}
	sp := indexByte(s, ' ', 40)
	if sp < 20 {
		return 0, false, "", false
	}
	rest := s[sp+1:]
	switch {
	case len(rest) >= 8 && rest[:7] == "stdout ":
		stream, rest = 0, rest[7:]
	case len(rest) >= 8 && rest[:7] == "stderr ":
		stream, rest = 1, rest[7:]
	default:
		return 0, false, "", false
	}
	if len(rest) < 1 || (rest[0] != 'F' && rest[0] != 'P') || len(rest) > 1 && rest[1] != ' ' {
		return 0, false, "", false
	}
	if _, ok := model.ParseTime(s[:sp]); !ok {
		return 0, false, "", false
	}
	if len(rest) > 2 {
		payload = rest[2:]
	}
	return stream, rest[0] == 'P', payload, true
}

func readCRI(p *Parser, s string, src model.Source) bool {
	stream, part, payload, ok := criLine(s)
	if !ok {
		return false
	}
	max := p.criMax
	if max <= 0 {
		max = defaultMaxCRILine
	}
	if len(s) != p.lineLen {
		// Within another format's line (an export, a prefix): the reader
		// cannot follow its parts across batches, so they are not joined.
		if part {
			p.skip(src, "a part of a line a container runtime split (CRI P) within another format's line: not joined")
		} else {
			p.unwrapLine([]byte(payload), nil, src)
		}
		return true
	}
	r := &p.cri[stream]
	if part {
		r.add([]byte(payload), src, max)
		p.out.Ignored++ // a part: read with the line it begins
		p.countFormat("cri")
		return true
	}
	if !r.on {
		p.unwrapLine([]byte(payload), nil, src)
		return true
	}
	r.on = false
	if r.cut || r.size()+len(payload) > max {
		p.skip(r.src, fmt.Sprintf("a line the container runtime split (CRI P parts) longer than %d bytes", max))
		r.prefix, r.own = nil, r.own[:0]
		return true
	}
	// A line of its own: what is read of it may point into it until the
	// batch is consumed, so the next joined line cannot reuse it.
	line := make([]byte, 0, r.size()+len(payload))
	line = append(append(append(line, r.prefix...), r.own...), payload...)
	r.prefix, r.own = nil, r.own[:0]
	p.unwrapLine(line, nil, r.src)
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

// CRIRuns follows the lines a container runtime split across the batches
// an input is read in: the reader hands each batch's parser the runs open
// where the batch begins (Snapshot, then Resume), and follows the batch's
// lines (Follow) as its parser will read them. Each part is copied once
// here, each batch's parser reads only its own lines: linear in the input,
// however many parts a line has.
type CRIRuns struct {
	runs [criStreams]criRun
	max  int
}

// NewCRIRuns follows runs whose joined lines are bounded by max bytes.
func NewCRIRuns(max int) *CRIRuns {
	if max <= 0 {
		max = defaultMaxCRILine
	}
	return &CRIRuns{max: max}
}

// CRICut is a part the reader skipped for its length: the line it is a
// part of is longer than the bound too, and is cut there. At is the index
// of the batch's line it came before.
type CRICut struct {
	At, Stream int
	Src        model.Source
}

// CRIPartStream says whether a line, of which start is the beginning, is
// a part (P) and of which stream: the reader asks it of a line it skips
// for its length.
func CRIPartStream(start []byte) (stream int, ok bool) {
	start = bytes.TrimLeftFunc(bytes.TrimPrefix(start, BOM), unicode.IsSpace)
	stream, part, _, ok := criLine(bytesToString(start[:min(len(start), 64)]))
	return stream, ok && part
}

// cutAt cuts the stream's run at a part too long to read, opening it
// there if none is open.
func (r *criRun) cutAt(src model.Source) {
	if !r.on {
		*r = criRun{own: r.own[:0], src: src, on: true}
	}
	r.cut, r.prefix, r.own = true, nil, r.own[:0]
}

// Cut cuts a stream's run at a part the reader skipped for its length.
func (p *Parser) Cut(c CRICut) {
	if c.Stream >= 0 && c.Stream < criStreams {
		p.cri[c.Stream].cutAt(c.Src)
	}
}

// Follow reads a batch's lines, data[starts[i]:ends[i]], the line numbered
// nums[i] of file, for their parts, as readCRI does, and the parts the
// reader skipped for their length where they fell.
func (c *CRIRuns) Follow(file string, data []byte, starts, ends, nums []int, cuts []CRICut) {
	for i, end := range ends {
		for len(cuts) > 0 && cuts[0].At <= i {
			c.runs[cuts[0].Stream].cutAt(cuts[0].Src)
			cuts = cuts[1:]
		}
		line := data[starts[i]:end]
		// Most lines of most inputs are not a runtime's: a byte or two say
		// so (a line that starts with a space or a BOM is trimmed first).
		if len(line) < 30 || line[4] != '-' && line[0] > ' ' && line[0] < 0x80 {
			continue
		}
		// Trimmed as parseLine trims what it hands readCRI.
		line = bytes.TrimSpace(bytes.TrimPrefix(bytes.TrimRight(line, "\r\n"), BOM))
		stream, part, payload, ok := criLine(bytesToString(line))
		if !ok {
			continue
		}
		r := &c.runs[stream]
		if !part {
			// The end: the next run starts afresh, never in these bytes,
			// which a batch's parser may still be reading.
			*r = criRun{}
			continue
		}
		if !r.on {
			*r = criRun{src: model.Source{File: file, Line: nums[i]}, on: true}
		}
		switch {
		case r.cut:
		case len(r.prefix)+len(payload) > c.max:
			r.cut, r.prefix = true, nil
		default:
			// Appended past what any snapshot holds: a snapshot's bytes
			// are never written again.
			r.prefix = append(r.prefix, payload...)
		}
	}
	for _, cut := range cuts {
		c.runs[cut.Stream].cutAt(cut.Src)
	}
}

// Open reports whether a line is being joined: an input that ends so has a
// line whose end never came.
func (c *CRIRuns) Open() bool { return c.runs[0].on || c.runs[1].on }

// Snapshot is the runs as they stand, for the parser of the batch that
// begins here. It shares their bytes, capped so that no one appends into
// them.
func (c *CRIRuns) Snapshot() CRIRuns {
	s := CRIRuns{max: c.max}
	for i, r := range c.runs {
		s.runs[i] = criRun{prefix: r.prefix[:len(r.prefix):len(r.prefix)], src: r.src, on: r.on, cut: r.cut}
	}
	return s
}

// Resume starts the parser's batch where the runs stand (a zero CRIRuns:
// none open, the default bound).
func (p *Parser) Resume(c CRIRuns) {
	// A request line's dump or retry mark ends with its batch: what is
	// read never depends on which worker read the batch before.
	p.reqline = reqLine{}
	p.criMax = c.max
	for i := range p.cri {
		own := p.cri[i].own[:0]
		p.cri[i] = c.runs[i]
		p.cri[i].own = own
	}
}

// Flush ends an input: a line the container runtime split (P) whose end
// never came is said so, once, cited by its first part.
func (p *Parser) Flush() {
	p.reqline = reqLine{}
	for i := range p.cri {
		if r := &p.cri[i]; r.on {
			r.on, r.prefix, r.own = false, nil, r.own[:0]
			p.skip(r.src, "a line the container runtime split (CRI P) whose end (F) never came")
		}
	}
}

// continued reports whether line is a part of a longer line that a
// container runtime split (CRI's P tag).
func continued(line []byte) bool {
	_, part, _, ok := criLine(bytesToString(bytes.TrimSpace(line)))
	return ok && part
}
