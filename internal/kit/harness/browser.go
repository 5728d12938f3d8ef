package harness

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/idem-cli/idem/internal/kit/capture"
)

// fetch is one fetch() the page makes.
type fetch struct {
	Step
	// AbortAfter aborts the fetch (AbortController) after that long.
	AbortAfter time.Duration
	// Pause, when set, asks the harness to do something first (stop the
	// proxy, for a refused connection): onPause is called with it.
	Pause string
	// Together starts the next fetch at once, without waiting for this
	// one to end: a double click on a submit button.
	Together bool
}

// fetchBody is the body har.mjs sends: Body, else {"item":NAME}; none
// with a GET.
func (f fetch) fetchBody() string {
	switch {
	case f.Method == "GET":
		return ""
	case f.Body != "":
		return f.Body
	}
	b, _ := json.Marshal(map[string]string{"item": f.Name})
	return string(b)
}

// fetchPlan is what har.mjs reads.
type fetchPlan struct {
	Executable string      `json:"executable"`
	Page       string      `json:"page"`
	HAR        string      `json:"har"`
	Fetches    []planFetch `json:"fetches"`
}

type planFetch struct {
	Name      string `json:"name"`
	RequestID string `json:"request_id"`
	Key       string `json:"key,omitempty"`
	Path      string `json:"path"`
	Method    string `json:"method,omitempty"`
	TimeoutMS int64  `json:"timeout_ms,omitempty"`
	AbortMS   int64  `json:"abort_ms,omitempty"`
	Pause     string `json:"pause,omitempty"`
	// Body is the payload ("" sends {"item":NAME}); Headers are sent too.
	Body     string            `json:"body,omitempty"`
	Headers  map[string]string `json:"headers,omitempty"`
	Together bool              `json:"together,omitempty"`
}

// chromium is Debian's Chromium and the playwright-core that drives it.
type chromium struct {
	Executable string
	Node       string
	Script     string
}

// findChromium finds chromium, node and playwright-core (npm ci in
// internal/kit/harness/playwright), skipping the test when one is missing
// (failing under CI=true).
func findChromium(t testing.TB) *chromium {
	t.Helper()
	c := &chromium{
		Executable: capture.Tool(t, "apt-get install chromium", "chromium"),
		Node:       capture.Tool(t, "apt-get install nodejs", "node"),
	}
	_, file, _, _ := runtime.Caller(0)
	dir := filepath.Join(filepath.Dir(file), "playwright")
	c.Script = filepath.Join(dir, "har.mjs")
	capture.NodeModules(t, dir, "playwright-core")
	return c
}

// record opens page in Chromium, makes the fetches from it and writes
// the HAR Chromium recorded to har. It returns each fetch as sent and
// as the page saw it end.
func (c *chromium) record(t testing.TB, page, har string, fetches []fetch, onPause func(string)) []capture.Sent {
	t.Helper()
	plan := fetchPlan{Executable: c.Executable, Page: page, HAR: har}
	sent := make([]capture.Sent, len(fetches))
	for i, f := range fetches {
		sent[i] = capture.Sent{Step: f.Name, Layer: "browser", Method: f.Method, Path: f.Path, RequestID: capture.NewID(), Key: f.Key,
			Body: f.fetchBody(), Headers: f.Headers, Timeout: f.Timeout, Meant: string(f.End)}
		plan.Fetches = append(plan.Fetches, planFetch{Name: f.Name, RequestID: sent[i].RequestID, Key: f.Key, Path: f.Path, Method: f.Step.Method,
			TimeoutMS: f.Timeout.Milliseconds(), AbortMS: f.AbortAfter.Milliseconds(), Pause: f.Pause,
			Body: f.Body, Headers: f.Headers, Together: f.Together})
	}
	b, _ := json.Marshal(plan)
	planPath := capture.WriteFile(t, t.TempDir(), "plan.json", string(b))
	cmd := exec.Command(c.Node, c.Script, planPath)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	byName := map[string]int{}
	for i, f := range fetches {
		byName[f.Name] = i
	}
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "PAUSE "):
			onPause(strings.TrimPrefix(line, "PAUSE "))
			fmt.Fprintln(stdin, "go")
		case strings.HasPrefix(line, "RESULT "):
			var r struct {
				Name, Body, Error string
				Status            int
				MS                int64
				Start             int64
			}
			if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "RESULT ")), &r); err != nil {
				t.Fatalf("har.mjs: %v: %s", err, line)
			}
			i, ok := byName[r.Name]
			if !ok {
				t.Fatalf("har.mjs: a result for no fetch: %s", line)
			}
			s := &sent[i]
			s.Start = time.UnixMilli(r.Start)
			s.End = s.Start.Add(time.Duration(r.MS) * time.Millisecond)
			s.Status, s.Error, s.Ended = r.Status, r.Error, capture.EndedOf(r.Status, r.Error)
			s.Response = strings.TrimSpace(r.Body[:min(len(r.Body), 512)])
			var created struct {
				ID string `json:"id"`
			}
			if json.Unmarshal([]byte(r.Body), &created) == nil {
				s.ResultID = created.ID
			}
		}
	}
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("har.mjs: %v\n%s", err, stderr.String())
	}
	return sent
}
