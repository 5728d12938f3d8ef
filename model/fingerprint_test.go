package model

import (
	"testing"

	"github.com/tidwall/gjson"
)

func TestFingerprintIsCanonical(t *testing.T) {
	a := Fingerprint([]byte(`{"b":1, "a":{"y":[1,2],"x":"s"}}`))
	b := Fingerprint([]byte(`{"a":{"x":"s","y":[1,2]},"b":1}`))
	c := Fingerprint([]byte(`{"a":{"x":"s","y":[2,1]},"b":1}`))
	if a != b {
		t.Errorf("key order changed the fingerprint")
	}
	if a == c {
		t.Errorf("array order did not change the fingerprint")
	}
	if got := string(canonicalJSON(gjson.Parse(`{"z":"<&>","a":1.50}`))); got != `{"a":1.50,"z":"<&>"}` {
		t.Errorf("canonical form %s", got)
	}
}

func FuzzFingerprint(f *testing.F) {
	f.Add([]byte(`{"b":1,"a":[1,{"c":null}]}`))
	f.Add([]byte(`not json`))
	f.Fuzz(func(t *testing.T, body []byte) {
		fp := Fingerprint(body)
		if len(fp) != len("sha256:")+64 {
			t.Fatalf("fingerprint %q", fp)
		}
		if Fingerprint(body) != fp {
			t.Fatal("not deterministic")
		}
	})
}
