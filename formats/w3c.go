package formats

import (
	"bytes"
	"fmt"
	"strings"
	"time"

	"github.com/idem-cli/idem/formats/grammar"
	"github.com/idem-cli/idem/model"
)

// W3C extended log files (IIS, CloudFront standard logs) say what their
// fields are: a "#Fields:" directive names each column, and every line
// after it is read by the header in force, whatever the order; a later
// header (IIS starts one at each restart) restarts the mapping. The
// fields are read by their W3C names: date and time (UTC, when the
// response was finished), c-ip, cs-method, cs-uri-stem, sc-status,
// time-taken (milliseconds for IIS, seconds for CloudFront),
// x-edge-request-id (CloudFront's id of the request), and request
// headers logged as cs(Name) or, in IIS's custom fields, by their name.
var w3cFormat = &format{
	Name: "w3c", Aliases: []string{"iis", "cloudfront"}, Kind: kindText, Tier: model.TierProxy,
	Doc:  "W3C extended logs (IIS, CloudFront standard logs), read by their #Fields header",
	text: readW3C,
	Samples: []sample{{
		Origin: "lnav test/logfile_w3c_big.0, an IIS 8.5 log: its #Fields header is in force for the line after it",
		Line: "#Fields: date time s-ip cs-method cs-uri-stem cs-uri-query s-port cs-username c-ip cs(User-Agent) cs(Referer) sc-status sc-substatus sc-win32-status sc-bytes cs-bytes time-taken\n" +
			"2015-01-13 00:32:17 100.79.192.81 GET /robots.txt - 80 - 157.55.39.146 Mozilla/5.0+(compatible;+bingbot/2.0;++http://www.bing.com/bingbot.htm) - 404 0 2 1405 242 283",
		Want: model.Observation{Tier: model.TierProxy, Format: "w3c", Method: "GET", Route: "/robots.txt", Status: 404, Outcome: model.OutcomeOK,
			Client: "157.55.39.146", Time: mustTime("2015-01-13T00:32:16.717Z"), Duration: 283 * time.Millisecond},
	}, {
		Origin: "elastic/integrations packages/aws/data_stream/cloudfront_logs/_dev/test/pipeline/test-cloudfront.log: a CloudFront 502 (OriginDnsError)",
		Line: "#Version: 1.0\n#Fields: date time x-edge-location sc-bytes c-ip cs-method cs(Host) cs-uri-stem sc-status cs(Referer) cs(User-Agent) cs-uri-query cs(Cookie) " +
			"x-edge-result-type x-edge-request-id x-host-header cs-protocol cs-bytes time-taken x-forwarded-for ssl-protocol ssl-cipher x-edge-response-result-type " +
			"cs-protocol-version fle-status fle-encrypted-fields c-port time-to-first-byte x-edge-detailed-result-type sc-content-type sc-content-len sc-range-start sc-range-end\n" +
			"2019-12-13\t22:36:27\tSEA19-C1\t900\t89.160.20.112\tGET\td111111abcdef8.cloudfront.net\t/favicon.ico\t502\thttp://www.example.com/\t" +
			"Mozilla/5.0%20(Windows%20NT%2010.0;%20Win64;%20x64)%20AppleWebKit/537.36%20(KHTML,%20like%20Gecko)%20Chrome/78.0.3904.108%20Safari/537.36\t-\t-\tError\t" +
			"1pkpNfBQ39sYMnjjUQjmH2w1wdJnbHYTbag21o_3OfcQgPzdL2RSSQ==\twww.example.com\thttp\t675\t0.102\t-\t-\t-\tError\tHTTP/1.1\t-\t-\t25260\t0.102\tOriginDnsError\ttext/html\t507\t-\t-",
		Want: model.Observation{Tier: model.TierProxy, Format: "w3c", Method: "GET", Route: "/favicon.ico", Status: 502, Outcome: model.OutcomeUpstreamReset,
			RequestID: "1pkpNfBQ39sYMnjjUQjmH2w1wdJnbHYTbag21o_3OfcQgPzdL2RSSQ==", Client: "89.160.20.112", Detail: "OriginDnsError",
			Time: mustTime("2019-12-13T22:36:26.898Z"), Duration: 102 * time.Millisecond},
		Count: 1,
	}, {
		Origin: "elastic/integrations test-cloudfront.log: status 000, the viewer closed the connection before CloudFront answered",
		Line: "#Fields: date time x-edge-location sc-bytes c-ip cs-method cs(Host) cs-uri-stem sc-status cs(Referer) cs(User-Agent) cs-uri-query cs(Cookie) " +
			"x-edge-result-type x-edge-request-id x-host-header cs-protocol cs-bytes time-taken x-forwarded-for\n" +
			"2022-04-19\t12:29:36\tSEA19-C2\t10157\t81.2.69.143\tPOST\td111111abcdef8.cloudfront.net\t/getApplications\t000\thttps://test.com/global\t" +
			"Mozilla/5.0%20(Windows%20NT%2010.0)\tsource=global\t-\tMiss\thrsHM5OM6sTIXUleC1G20YtDxMf5Cq0Jbz0pwhVpod2kgEn_W6akCQ==\ttest.com\thttps\t1057\t0.238\t-",
		Want: model.Observation{Tier: model.TierProxy, Format: "w3c", Method: "POST", Route: "/getApplications", Outcome: model.OutcomeClientClosed,
			RequestID: "hrsHM5OM6sTIXUleC1G20YtDxMf5Cq0Jbz0pwhVpod2kgEn_W6akCQ==", Client: "81.2.69.143",
			Time: mustTime("2022-04-19T12:29:35.762Z"), Duration: 238 * time.Millisecond},
	}},
}

// w3cHeader is the #Fields directive in force: what each column means.
type w3cHeader struct {
	n                                   int // columns
	date, time, client, method, stem    int // -1 where absent
	status, taken, rid, edgeRID, key    int
	trace, win32, detail, detailFallbck int
	millis                              bool // time-taken in milliseconds (IIS)
}

// w3cHeaderOf reads a #Fields directive.
func w3cHeaderOf(fields string, microsoft bool) *w3cHeader {
	h := &w3cHeader{date: -1, time: -1, client: -1, method: -1, stem: -1, status: -1, taken: -1, rid: -1, edgeRID: -1, key: -1,
		trace: -1, win32: -1, detail: -1, detailFallbck: -1, millis: microsoft}
	names := strings.Fields(fields)
	h.n = len(names)
	for i, name := range names {
		n := strings.ToLower(name)
		if strings.HasPrefix(n, "cs(") && strings.HasSuffix(n, ")") {
			n = n[3 : len(n)-1] // a request header, by its name
		}
		switch f, _ := grammar.RequestHeader(n); f {
		case grammar.RequestID:
			h.rid = i
			continue
		case grammar.Key:
			h.key = i
			continue
		case grammar.TraceParent:
			h.trace = i
			continue
		}
		switch n {
		case "date":
			h.date = i
		case "time":
			h.time = i
		case "c-ip":
			h.client = i
		case "cs-method":
			h.method = i
		case "cs-uri-stem":
			h.stem = i
		case "sc-status":
			h.status = i
		case "time-taken":
			h.taken = i
		case "x-edge-request-id":
			h.edgeRID = i
		case "sc-win32-status", "s-sitename", "sc-substatus":
			h.millis = true // IIS's own fields: IIS writes time-taken in milliseconds
			if n == "sc-win32-status" {
				h.win32 = i
			}
		case "x-edge-detailed-result-type":
			h.detail = i
		case "x-edge-result-type":
			h.detailFallbck = i
		}
	}
	return h
}

// readW3C reads a directive or a line under the header in force.
func readW3C(p *Parser, s string, src model.Source) bool {
	if s[0] == '#' {
		directive, value, ok := strings.Cut(s[1:], ":")
		if !ok || strings.ContainsAny(directive, " \t") {
			return false
		}
		switch directive {
		case "Fields":
			p.w3c = w3cHeaderOf(value, p.w3cMicrosoft)
		case "Software":
			p.w3cMicrosoft = strings.Contains(value, "Microsoft")
		case "Version", "Date", "Remark", "Start-Date", "End-Date":
		default:
			return false
		}
		p.out.Ignored++
		p.countFormat("w3c")
		return true
	}
	h := p.w3c
	if h == nil {
		return false
	}
	sep := " "
	if strings.IndexByte(s, '\t') >= 0 {
		sep = "\t" // CloudFront separates its fields with tabs
	}
	f := strings.Split(s, sep)
	if len(f) != h.n {
		// Under a header, a line of another count of fields is none of
		// its lines: said, never read by guess.
		p.skip(src, fmt.Sprintf("%d fields where the W3C #Fields header in force names %d", len(f), h.n))
		return true
	}
	get := func(i int) string {
		if i < 0 || f[i] == "-" {
			return ""
		}
		return f[i]
	}
	var o model.Observation
	o.Source, o.Format, o.Tier = src, "w3c", model.TierProxy
	unit := model.Seconds
	if h.millis {
		unit = model.Milliseconds
	}
	o.Duration, _ = model.ParseDuration(get(h.taken), unit)
	if t, ok := model.ParseTime(get(h.date) + "T" + get(h.time) + "Z"); ok {
		o.Time = t.Add(-o.Duration) // written when the response was finished
	}
	o.Client = get(h.client)
	o.Method = httpMethod(get(h.method))
	o.Route = routePath(get(h.stem))
	o.Status, _ = intValue(get(h.status))
	o.RequestID = get(h.rid)
	if o.RequestID == "" {
		o.RequestID = get(h.edgeRID)
	}
	if o.RequestID == "" {
		o.RequestID = traceDelivery(get(h.trace))
	}
	o.Key = model.NormalizeKey(get(h.key))
	o.Outcome = proxyOutcome(o.Status) // CloudFront's 000: the viewer left first
	switch w := get(h.win32); w {
	case "64", "1236":
		// ERROR_NETNAME_DELETED, ERROR_CONNECTION_ABORTED: the client's
		// connection went away before IIS finished the response.
		if o.Outcome == model.OutcomeOK {
			o.Outcome = model.OutcomeClientClosed
		}
		o.Detail = "sc-win32-status " + w
	}
	if d := get(h.detail); d != "" && !strings.EqualFold(d, "Hit") && !strings.EqualFold(d, "Miss") {
		o.Detail = d
	} else if d := get(h.detailFallbck); d != "" && o.Detail == "" && strings.EqualFold(d, "Error") {
		o.Detail = d
	}
	p.textDone(&o)
	return true
}

// HeaderLine is the last W3C #Fields directive in data, or nil: the
// reader hands it to the parser of each part of an input that follows
// it (Parser.Context), so that every part is read by the header in force.
func HeaderLine(data []byte) []byte {
	var last []byte
	for i := 0; i < len(data); {
		j := bytes.Index(data[i:], []byte("#Fields:"))
		if j < 0 {
			break
		}
		at := i + j
		i = at + 8
		if at > 0 && data[at-1] != '\n' {
			continue
		}
		end := bytes.IndexByte(data[at:], '\n')
		if end < 0 {
			end = len(data) - at
		}
		last = bytes.TrimRight(data[at:at+end], "\r")
	}
	return last
}

// Context sets what the lines before this part of an input said about
// how the lines that follow are written: the W3C header in force (nil:
// none). Lines are read by it without it being counted again.
func (p *Parser) Context(header []byte) {
	p.w3c, p.w3cMicrosoft = nil, false
	if len(header) > 0 {
		p.w3c = w3cHeaderOf(strings.TrimPrefix(string(header), "#Fields:"), false)
	}
}
