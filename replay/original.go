package replay

import (
	"errors"
	"fmt"
	"strings"

	"github.com/idem-cli/idem/model"
	"github.com/idem-cli/idem/redact"
)

// Original is the first answer to the key: the captured response, or
// what the logs say.
type Original struct {
	Status   int    `json:"status"`
	ResultID string `json:"result_id"`
	Source   string `json:"source"`
	// ResultPath is where the body holds the result id ("" when unknown).
	ResultPath string `json:"-"`
	// Body is the captured response body, compared with the replay's when
	// it holds no result id.
	Body []byte `json:"-"`
}

// errNoCapture is returned by PickCapture when no input captured the
// request with its method and route.
var errNoCapture = errors.New("no HAR entry or log line with its method and route carried it")

// PickCapture chooses the request to replay: the one with the asked
// request id, else the most complete capture (a body, an absolute URL).
func PickCapture(list []*model.Captured, requestID string) (*model.Captured, error) {
	if len(list) == 0 {
		return nil, errNoCapture
	}
	if requestID != "" {
		for _, c := range list {
			if c.RequestID == requestID {
				return c, nil
			}
		}
		return nil, fmt.Errorf("none had the request id %s", redact.String(requestID))
	}
	best := list[0]
	score := func(c *model.Captured) int {
		s := 0
		if c.HasBody {
			s += 2
		}
		if strings.Contains(c.URL, "://") {
			s++
		}
		return s
	}
	for _, c := range list[1:] {
		if score(c) > score(best) {
			best = c
		}
	}
	return best, nil
}

// OriginalOf finds the first answer to the key: a 2xx response captured
// with the request (a HAR entry holds status and body, and is what the
// client saw), else the delivery that made the effect in the logs, else
// the first 2xx any tier logged, else whatever status the capture had.
func OriginalOf(set *model.Set, key string, captures []*model.Captured) Original {
	logged := loggedOriginal(set, key)
	for _, c := range captures {
		if c.Status < 200 || c.Status > 299 {
			continue
		}
		o := Original{Status: c.Status, Source: c.Source.String(), Body: c.ResponseBody}
		o.ResultPath, o.ResultID = resultIDIn(c.ResponseBody, c.URL, key, c.RequestID)
		if o.ResultID == "" && logged.ResultID != "" {
			if p := resultPathIn(c.ResponseBody, logged.ResultID); p != "" || len(c.ResponseBody) == 0 {
				o.ResultPath, o.ResultID = p, logged.ResultID
			}
		}
		return o
	}
	if logged.Status > 0 {
		return logged
	}
	for _, c := range captures {
		if c.Status > 0 {
			return Original{Status: c.Status, Source: c.Source.String()}
		}
	}
	return Original{}
}

// loggedOriginal is the original answer as the logs tell it.
func loggedOriginal(set *model.Set, key string) Original {
	if set == nil || key == "" {
		return Original{}
	}
	for _, in := range set.FindIntent(key) {
		for _, d := range in.Deliveries {
			for _, o := range d.Observations {
				if o.Effect && o.Tier != model.TierProvider {
					status, _ := d.ServerStatus()
					return Original{Status: status, ResultID: o.ResultID, Source: o.Source.String()}
				}
			}
		}
	}
	// Without an effect line, the first answer any tier saw for the key.
	for _, in := range set.FindIntent(key) {
		for _, d := range in.Deliveries {
			if status, o := d.ServerStatus(); status >= 200 && status < 300 {
				return Original{Status: status, ResultID: d.ResultID(), Source: o.Source.String()}
			}
			if e := d.Edge(); e != nil && e.Status >= 200 && e.Status < 300 {
				return Original{Status: e.Status, ResultID: d.ResultID(), Source: e.Source.String()}
			}
		}
	}
	return Original{}
}
