package diagnose

import (
	"strings"
	"testing"
	"time"
)

// TestEveryRuleSaysWhatItNeeds: a rule without an entry would silently
// see only what other rules asked for.
func TestEveryRuleSaysWhatItNeeds(t *testing.T) {
	ids := map[string]bool{}
	for _, r := range catalog {
		ids[r.ID] = true
		if _, ok := needs[r.ID]; !ok {
			t.Errorf("rule %s has no entry in needs (diagnose/build.go)", r.ID)
		}
	}
	for id := range needs {
		if !ids[id] {
			t.Errorf("needs names %s, which is not in the catalog", id)
		}
	}
}

func TestOptionsBuild(t *testing.T) {
	tests := []struct {
		name     string
		window   time.Duration
		followUp time.Duration
	}{
		{"default", DefaultOptions().RetryWindow, 10 * time.Minute},
		{"unset reads as the default", 0, 10 * time.Minute},
		{"wider", 30 * time.Minute, 30 * time.Minute},
		{"narrower", 5 * time.Minute, 5 * time.Minute},
		{"never below the likely-retry minute", 10 * time.Second, likelyWindow},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := DefaultOptions()
			o.RetryWindow = tt.window
			b := o.Build()
			if b.FollowUp != tt.followUp || b.All {
				t.Errorf("Build() = %+v, want FollowUp %s", b, tt.followUp)
			}
			if b.Key == nil {
				t.Fatal("no key filter: attempt-scoped keys would not be built")
			}
		})
	}
	key := DefaultOptions().Build().Key
	for k, want := range map[string]bool{
		"article-107:r1:publish:attempt-2":     true,
		"pay_42-try3":                          true,
		"3b7d1f0e-6a2c-4f9e-b1d3-5e7f9a0b1c2d": false,
		"attempt-2":                            false, // nothing left but the attempt
		"order-attempted":                      false,
		"":                                     false,
	} {
		if got := key(k); got != want {
			t.Errorf("Key(%q) = %v, want %v", k, got, want)
		}
	}
}

// FuzzBuildKeyBytes: Build's key filter accepts no key without one of
// the bytes it promises to need, or Set would skip keys it must build.
func FuzzBuildKeyBytes(f *testing.F) {
	for _, k := range []string{"article-107:r1:publish:attempt-2", "pay_42-try3", "3b7d1f0e-6a2c-4f9e-b1d3-5e7f9a0b1c2d",
		"ATTEMPT_2", "order-Try-4", "", "x"} {
		f.Add(k)
	}
	b := DefaultOptions().Build()
	if b.KeyBytes == "" {
		f.Fatal("no KeyBytes: Set unpacks every packed key to ask about it")
	}
	f.Fuzz(func(t *testing.T, key string) {
		if b.Key(key) && !strings.ContainsAny(key, b.KeyBytes) {
			t.Errorf("Key(%q) accepts a key holding none of %q", key, b.KeyBytes)
		}
	})
}
