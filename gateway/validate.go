package gateway

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
)

// What a request must be before anything is reserved: one well-formed
// key, and a body that fits its route.

// keySyntax accepts a key of visible ASCII, at most 255 characters.
var keySyntax = regexp.MustCompile(`^[\x21-\x7e]{1,255}$`)

// validator checks a request's key and body before any reservation.
type validator func(key string, body []byte) error

func validateDemo(key string, body []byte) error {
	if !json.Valid(body) || !bytes.HasPrefix(bytes.TrimSpace(body), []byte("{")) {
		return errors.New("the body must be a JSON object")
	}
	return nil
}

// operationKey is <submissionId>:r<revision>:<operation>: domain-derived
// and attempt-free.
var operationKey = regexp.MustCompile(`^([A-Za-z0-9][A-Za-z0-9._-]{0,127}):r([0-9]{1,9}):(reserve|publish|release)$`)

func validateOperation(op string) validator {
	return func(key string, body []byte) error {
		m := operationKey.FindStringSubmatch(key)
		if m == nil {
			return errors.New("the key must be <submissionId>:r<revision>:<operation>, e.g. article-107:r1:publish")
		}
		if m[3] != op {
			return fmt.Errorf("the key names operation %q but the request is %q", m[3], op)
		}
		var b struct {
			SubmissionID string          `json:"submissionId"`
			Revision     json.Number     `json:"revision"`
			Operation    string          `json:"operation"`
			Rest         json.RawMessage `json:"-"`
		}
		if err := json.Unmarshal(body, &b); err != nil {
			return errors.New("the body must be a JSON object with submissionId and revision")
		}
		if b.SubmissionID != m[1] {
			return fmt.Errorf("the key's submission %q does not match the body's submissionId %q", m[1], b.SubmissionID)
		}
		if string(b.Revision) != m[2] {
			return fmt.Errorf("the key's revision r%s does not match the body's revision %q", m[2], b.Revision)
		}
		if b.Operation != "" && b.Operation != op {
			return fmt.Errorf("the body's operation %q does not match %q", b.Operation, op)
		}
		return nil
	}
}
