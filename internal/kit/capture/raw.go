package capture

import (
	"bufio"
	"net"
	"strconv"
	"strings"
	"time"
)

// Raw is a connection a capture drives by hand, for what no HTTP client
// sends: nothing at all, bytes that are no HTTP (TLS to a plain port), a
// request cut short. It records what went out and what came back.
type Raw struct {
	Step string `json:"step"`
	// Sent is the bytes written, as Go quotes them.
	Sent string `json:"sent"`
	// Method, Path, RequestID and Key are what the bytes say, where they
	// hold a request line and those headers.
	Method    string `json:"method,omitempty"`
	Path      string `json:"path,omitempty"`
	RequestID string `json:"request_id,omitempty"`
	Key       string `json:"key,omitempty"`
	// Closed says the client closed the connection after writing,
	// without waiting for an answer.
	Closed bool `json:"closed,omitempty"`
	// Status is the status line's code of the answer, 0 when none came.
	Status int       `json:"status,omitempty"`
	Start  time.Time `json:"start"`
	End    time.Time `json:"end"`
}

// SendRaw writes data to addr on a connection of its own and, unless
// closeAfter is set, waits up to wait for the answer's status line;
// with closeAfter it closes the connection that long after writing.
func SendRaw(addr, step string, data []byte, closeAfter, wait time.Duration) (r Raw) {
	r = Raw{Step: step, Sent: strconv.Quote(string(data)), Start: time.Now().UTC()}
	if line, rest, ok := strings.Cut(string(data), "\r\n"); ok {
		if f := strings.Fields(line); len(f) == 3 && strings.HasPrefix(f[2], "HTTP/") {
			r.Method, r.Path = f[0], f[1]
		}
		for _, h := range strings.Split(rest, "\r\n") {
			name, v, _ := strings.Cut(h, ":")
			switch strings.ToLower(strings.TrimSpace(name)) {
			case "x-request-id":
				r.RequestID = strings.TrimSpace(v)
			case "idempotency-key":
				r.Key = strings.TrimSpace(v)
			}
		}
	}
	defer func() { r.End = time.Now().UTC() }()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		return r
	}
	defer c.Close()
	if len(data) > 0 {
		if _, err := c.Write(data); err != nil {
			return r
		}
	}
	if closeAfter > 0 {
		r.Closed = true
		time.Sleep(closeAfter)
		return r
	}
	_ = c.SetReadDeadline(time.Now().Add(wait))
	line, _ := bufio.NewReader(c).ReadString('\n')
	if f := strings.Fields(line); len(f) >= 2 && strings.HasPrefix(f[0], "HTTP/") {
		r.Status, _ = strconv.Atoi(f[1])
	}
	return r
}
