package logstore

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// victoriaLogs is the dialect of VictoriaLogs' HTTP API, a Store:
// /select/logsql/query asks the plan's questions in LogsQL
// (victorialogs_logsql.go) and streams the answers back as JSON lines;
// /insert/jsonline loads. A cluster is queried through its vlselect
// frontend and loaded through vlinsert; the storage nodes are never asked
// directly, since one key's lines are spread over them.
type victoriaLogs struct {
	base      *url.URL
	name      string
	account   string
	project   string
	msgField  string // the field a shipper's _msg_field moved into _msg
	timeField string // the field a shipper's _time_field moved into _time
	auth      func(*http.Request)
	client    *http.Client
	timeout   time.Duration
	// MaxQueryBytes bounds one query's length: VictoriaLogs refuses longer
	// ones (-search.maxQueryLen, 16 KiB by default) with HTTP 400.
	maxQueryBytes int
	// GroupLines is how many lines of the window one phase 1 grouping
	// query may cover; a larger window is asked in partitions, one after
	// another, each well inside the store's -search.maxQueryDuration
	// (30 s by default). 0 asks in one query whatever the size.
	GroupLines int64
	// MaxAnswerBytes and MaxAnswerRecords bound one answer
	// (Options.MaxAnswerBytes).
	MaxAnswerBytes, MaxAnswerRecords int64
	filter                           string // --query
}

var _ Store = (*victoriaLogs)(nil)

func newVictoriaLogs(u *url.URL, opts Options) (*victoriaLogs, error) {
	q := u.Query()
	scheme := "http"
	if u.Scheme == "victorialogs+https" || q.Get("tls") == "1" || q.Get("tls") == "true" {
		scheme = "https"
	}
	if u.Host == "" {
		return nil, &AddressError{Addr: redactAddr(u.String()), Err: errors.New("no HOST:PORT")}
	}
	base := &url.URL{Scheme: scheme, Host: u.Host, Path: strings.TrimSuffix(u.Path, "/")}
	v := &victoriaLogs{base: base, name: "victorialogs://" + u.Host + base.Path, account: q.Get("account"), project: q.Get("project"),
		msgField: q.Get("msg_field"), timeField: q.Get("time_field"), timeout: opts.Timeout, maxQueryBytes: 12 << 10,
		GroupLines: defaultGroupLines,
		filter:     strings.TrimSpace(opts.Query)}
	v.MaxAnswerBytes, v.MaxAnswerRecords = opts.MaxAnswerBytes, opts.MaxAnswerRecords
	for _, b := range []struct {
		param string
		to    *int64
	}{{"max_answer_bytes", &v.MaxAnswerBytes}, {"max_answer_records", &v.MaxAnswerRecords}} {
		if s := q.Get(b.param); s != "" {
			n, err := strconv.ParseInt(s, 10, 64)
			if err != nil || n < 1 {
				return nil, &AddressError{Addr: v.name, Err: fmt.Errorf("%s is a number of at least 1, not %q", b.param, s)}
			}
			*b.to = n
		}
	}
	if v.MaxAnswerBytes <= 0 {
		v.MaxAnswerBytes = defaultMaxAnswerBytes
	}
	if v.MaxAnswerRecords <= 0 {
		v.MaxAnswerRecords = defaultMaxAnswerRecords
	}
	for _, id := range []string{v.account, v.project} {
		if id != "" {
			if _, err := strconv.ParseUint(id, 10, 32); err != nil {
				return nil, &AddressError{Addr: v.name, Err: fmt.Errorf("account and project are numbers (AccountID, ProjectID), not %q", id)}
			}
		}
	}
	getenv := opts.Getenv
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	token, user, pass := getenv("IDEM_LOGSTORE_TOKEN"), getenv("IDEM_LOGSTORE_USER"), getenv("IDEM_LOGSTORE_PASSWORD")
	switch {
	case token != "":
		v.auth = func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+token) }
	case user != "":
		v.auth = func(r *http.Request) { r.SetBasicAuth(user, pass) }
	default:
		v.auth = func(*http.Request) {}
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.TLSClientConfig = &tls.Config{MinVersion: tls.VersionTLS12}
	// No proxy from the environment: credentials go only where the user
	// pointed them.
	tr.Proxy = nil
	v.client = &http.Client{Transport: tr, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	return v, nil
}

// defaultGroupLines keeps a grouping query to a few seconds on a loaded
// 2-core machine (two million lines: 1 to 3 s), a tenth of the store's
// default time limit.
const defaultGroupLines = 2_500_000

// Name is the store's address, without credentials.
func (v *victoriaLogs) Name() string { return v.name }

// Limits are MaxQueryBytes and GroupLines; --query's filter is repeated
// in each subquery.
func (v *victoriaLogs) Limits() Limits {
	return Limits{QueryBytes: v.maxQueryBytes, ScopeBytes: len(v.filter), GroupLines: v.GroupLines}
}

// Run asks a Group or a Lines in LogsQL.
func (v *victoriaLogs) Run(ctx context.Context, q Query, w Window, each func(Record) error) error {
	return v.query(ctx, v.sql().query(q), w, each)
}

// Show writes q in LogsQL, as sent but for --query's filter in front.
func (v *victoriaLogs) Show(q Query) string { return v.sql().query(q) }

// do sends one request and returns the response when it is a 200; any
// other answer, or none in time, is an *IncompleteError.
func (v *victoriaLogs) do(ctx context.Context, method, path string, form url.Values, body io.Reader, contentType string) (*http.Response, context.CancelFunc, error) {
	cancel := context.CancelFunc(func() {})
	if v.timeout > 0 {
		ctx, cancel = context.WithTimeout(ctx, v.timeout)
	}
	u := *v.base
	u.Path += path
	if method == http.MethodGet || body != nil {
		u.RawQuery = form.Encode()
	} else {
		body, contentType = strings.NewReader(form.Encode()), "application/x-www-form-urlencoded"
	}
	req, err := http.NewRequestWithContext(ctx, method, u.String(), body)
	if err != nil {
		cancel()
		return nil, nil, err
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	if v.account != "" {
		req.Header.Set("AccountID", v.account)
	}
	if v.project != "" {
		req.Header.Set("ProjectID", v.project)
	}
	v.auth(req)
	resp, err := v.client.Do(req)
	if err != nil {
		err = v.incomplete(ctx, 0, "", err)
		cancel()
		return nil, nil, err
	}
	if resp.StatusCode != http.StatusOK {
		answer, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		resp.Body.Close()
		err = v.incomplete(ctx, resp.StatusCode, firstLine(answer), nil)
		cancel()
		return nil, nil, err
	}
	return resp, cancel, nil
}

// incomplete makes the error for a failed exchange, telling a timeout
// from other failures.
func (v *victoriaLogs) incomplete(ctx context.Context, status int, answer string, err error) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) || errors.Is(err, context.DeadlineExceeded) {
		err = fmt.Errorf("%w (%s)", ErrTimeout, v.timeout)
	} else if errors.Is(ctx.Err(), context.Canceled) {
		return ctx.Err()
	} else if ue := (*url.Error)(nil); errors.As(err, &ue) {
		err = ue.Err // the URL is already in the message, without its query
	}
	return &IncompleteError{Store: v.name, Status: status, Answer: answer, Err: err}
}

// limit asks the store to give up before idem does, so that the store's
// own answer (which node did not answer) is what the user reads rather
// than idem's timeout. The bound is what is left of this request's time
// and of the whole conversation's, less a margin of a tenth and at least
// a second: the store's answer still has to cross a loaded machine.
func (v *victoriaLogs) limit(ctx context.Context, form url.Values) {
	left := v.timeout
	if dl, ok := ctx.Deadline(); ok {
		if d := time.Until(dl); left <= 0 || d < left {
			left = d
		}
	}
	if d := storeLimit(left); d > 0 {
		form.Set("timeout", d.String())
	}
}

// storeLimit is the store's share of left: left less max(left/10, 1s),
// and never less than half of left. Zero for no bound.
func storeLimit(left time.Duration) time.Duration {
	if left <= 0 {
		return 0
	}
	margin := min(max(left/10, time.Second), left/2)
	return left - margin
}

// firstLine is the start of a store's answer, fit for one message line.
func firstLine(b []byte) string {
	s := strings.TrimSpace(string(b))
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}

// sql writes the plan's questions in LogsQL under --query's scope.
func (v *victoriaLogs) sql() logsql {
	if v.filter == "" {
		return logsql{}
	}
	return logsql{scope: "(" + v.filter + ") "}
}

// query runs one LogsQL query and hands each result line to each. Partial
// responses are refused explicitly, whatever the server's default, and an
// answer cut short or not JSON is an *IncompleteError.
func (v *victoriaLogs) query(ctx context.Context, q string, w Window, each func(Record) error) error {
	if v.filter != "" {
		q = "(" + v.filter + ") " + q
	}
	form := url.Values{"query": {q}, "allow_partial_response": {"false"}}
	if !w.Start.IsZero() {
		form.Set("start", w.Start.UTC().Format(time.RFC3339Nano))
	}
	if !w.End.IsZero() {
		form.Set("end", w.End.UTC().Format(time.RFC3339Nano))
	}
	v.limit(ctx, form)
	resp, cancel, err := v.do(ctx, http.MethodPost, "/select/logsql/query", form, nil, "")
	if err != nil {
		return err
	}
	defer cancel()
	defer resp.Body.Close()
	sc := bufio.NewScanner(v.bounded(resp.Body, v.MaxAnswerBytes, "bytes", "max_answer_bytes in the store's address raises it"))
	sc.Buffer(make([]byte, 0, 64<<10), 64<<20)
	var records int64
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		if records++; records > v.MaxAnswerRecords {
			return v.tooLarge(&answerLimitError{What: "records", Limit: v.MaxAnswerRecords, Set: "max_answer_records in the store's address raises it"})
		}
		rec := Record{}
		if err := json.Unmarshal(line, &rec); err != nil {
			// The bound may cut the last line: the scanner hands its
			// start over before its error.
			if le := (*answerLimitError)(nil); errors.As(sc.Err(), &le) {
				return v.tooLarge(le)
			}
			// VictoriaLogs reports an error met while streaming (a query
			// over its -search.maxQueryDuration, a storage node gone) as
			// text after the lines already sent, still under HTTP 200:
			// its last line says what happened.
			answer := firstLine(line)
			for i := 0; i < 8 && sc.Scan(); i++ {
				if l := bytes.TrimSpace(sc.Bytes()); len(l) > 0 {
					answer = firstLine(l)
				}
			}
			return &IncompleteError{Store: v.name, Status: resp.StatusCode, Answer: answer, Err: errors.New("the answer stopped being JSON lines")}
		}
		if err := each(rec); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		if le := (*answerLimitError)(nil); errors.As(err, &le) {
			return v.tooLarge(le)
		}
		if errors.Is(err, bufio.ErrTooLong) {
			return v.tooLarge(&answerLimitError{What: "bytes in one line", Limit: 64 << 20})
		}
		// VictoriaLogs drops the connection of an answer under way when
		// the query reaches -search.maxQueryDuration or a node fails,
		// after HTTP 200 and without a word.
		return v.incomplete(resp.Request.Context(), 0, "", fmt.Errorf("the answer was cut short (the store stops an answer under way at its -search.maxQueryDuration, or when a node fails): %w", err))
	}
	return nil
}

// Count reports how many records f selects within w.
func (v *victoriaLogs) Count(ctx context.Context, f Filter, w Window) (int64, error) {
	var n int64
	err := v.query(ctx, v.sql().count(f), w, func(r Record) error {
		n, _ = strconv.ParseInt(r["n"], 10, 64)
		return nil
	})
	return n, err
}

// Insert loads JSON lines. The content type matters: without
// application/stream+json VictoriaLogs answers 200 and keeps nothing, or
// part of the lines.
func (v *victoriaLogs) Insert(ctx context.Context, body io.Reader) error {
	form := url.Values{"_msg_field": {"_msg"}, "_time_field": {"_time"}, "_stream_fields": {FieldFile}}
	resp, cancel, err := v.do(ctx, http.MethodPost, "/insert/jsonline", form, body, "application/stream+json")
	if err != nil {
		return err
	}
	defer cancel()
	// The answer says nothing idem reads: a few bytes of it are enough to
	// keep the connection, and an endless one is not waited for.
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	return resp.Body.Close()
}

// Flush asks a single node to make what it was sent searchable now; a
// cluster's insert node has no such endpoint, and its lines turn up
// within a few seconds.
func (v *victoriaLogs) Flush(ctx context.Context) {
	if resp, cancel, err := v.do(ctx, http.MethodGet, "/internal/force_flush", nil, nil, ""); err == nil {
		resp.Body.Close()
		cancel()
	}
}

// Fields reads which fields the store has within w.
func (v *victoriaLogs) Fields(ctx context.Context, w Window) (map[string]bool, error) {
	form := url.Values{"query": {"*"}}
	if v.filter != "" {
		form.Set("query", v.filter)
	}
	if !w.Start.IsZero() {
		form.Set("start", w.Start.UTC().Format(time.RFC3339Nano))
	}
	if !w.End.IsZero() {
		form.Set("end", w.End.UTC().Format(time.RFC3339Nano))
	}
	v.limit(ctx, form)
	resp, cancel, err := v.do(ctx, http.MethodPost, "/select/logsql/field_names", form, nil, "")
	if err != nil {
		return nil, err
	}
	defer cancel()
	defer resp.Body.Close()
	var ans struct {
		Values []struct {
			Value string `json:"value"`
		} `json:"values"`
	}
	if err := json.NewDecoder(v.bounded(resp.Body, maxFieldNamesBytes, "bytes of field names", "")).Decode(&ans); err != nil {
		if le := (*answerLimitError)(nil); errors.As(err, &le) {
			return nil, v.tooLarge(le)
		}
		return nil, &IncompleteError{Store: v.name, Status: resp.StatusCode, Err: fmt.Errorf("field names: %w", err)}
	}
	if len(ans.Values) > maxFieldNames {
		return nil, v.tooLarge(&answerLimitError{What: "field names", Limit: maxFieldNames})
	}
	out := map[string]bool{}
	for _, f := range ans.Values {
		out[f.Value] = true
	}
	return out, nil
}

// bounded reads at most max bytes of an answer: a byte more is an
// *answerLimitError, so that an answer of exactly max bytes is whole.
func (v *victoriaLogs) bounded(r io.Reader, max int64, what, set string) io.Reader {
	return &boundedReader{r: r, left: max, err: &answerLimitError{What: what, Limit: max, Set: set}}
}

type boundedReader struct {
	r    io.Reader
	left int64
	err  error
}

func (b *boundedReader) Read(p []byte) (int, error) {
	if b.left < 0 {
		return 0, b.err
	}
	if int64(len(p)) > b.left+1 {
		p = p[:b.left+1]
	}
	n, err := b.r.Read(p)
	if b.left -= int64(n); b.left < 0 {
		return n - 1, b.err
	}
	return n, err
}

// tooLarge is the incomplete result of an answer past its bound, read no
// further: the connection is dropped rather than drained.
func (v *victoriaLogs) tooLarge(le *answerLimitError) error {
	return &IncompleteError{Store: v.name, Err: le}
}

// quoteField writes a field name for LogsQL; names such as
// "Idempotency-Key" or "http.request_id" need the quotes.
func quoteField(f string) string { return strconv.Quote(f) }

// quoteList writes fields for a by (...) or fields pipe.
func quoteList(fs []string) string {
	q := make([]string, len(fs))
	for i, f := range fs {
		q[i] = quoteField(f)
	}
	return strings.Join(q, ", ")
}

// inList is f:in("a","b",…).
func inList(f string, vals []string) string {
	q := make([]string, len(vals))
	for i, s := range vals {
		q[i] = strconv.Quote(s)
	}
	return quoteField(f) + ":in(" + strings.Join(q, ",") + ")"
}
