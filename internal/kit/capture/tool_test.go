package capture

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestToolIsMissing: a missing tool skips the test, except under CI,
// where it fails it (run in a child process, whose failure is the point).
func TestToolIsMissing(t *testing.T) {
	if os.Getenv("CAPTURE_TOOL_CHILD") != "" {
		Tool(t, "nothing installs it", "idem-no-such-tool")
		t.Fatal("Tool returned for a tool that is not installed")
	}
	for _, tt := range []struct {
		ci   string
		fail bool
		says string
	}{
		{"", false, "--- SKIP: TestToolIsMissing"},
		{"true", true, "idem-no-such-tool is not installed; CI installs it (nothing installs it) and must not skip this test"},
	} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestToolIsMissing$", "-test.v")
		cmd.Env = append(os.Environ(), "CAPTURE_TOOL_CHILD=1", "CI="+tt.ci)
		out, err := cmd.CombinedOutput()
		if failed := err != nil; failed != tt.fail || !strings.Contains(string(out), tt.says) {
			t.Errorf("CI=%q: failed %v, want %v, saying %q:\n%s", tt.ci, failed, tt.fail, tt.says, out)
		}
	}
}

func TestToolFindsDebiansPrograms(t *testing.T) {
	sh := Tool(t, "it is part of Debian", "idem-no-such-tool", "sh")
	if _, err := exec.LookPath(sh); err != nil {
		t.Fatalf("Tool found %q: %v", sh, err)
	}
	// Off PATH, Debian's directories are still looked in.
	t.Setenv("PATH", "")
	if p := Tool(t, "it is part of Debian", "sh"); !strings.HasPrefix(p, "/") {
		t.Fatalf("without PATH, Tool found %q", p)
	}
}

func TestFromRoot(t *testing.T) {
	if got := fromRoot("testdata"); got != "internal/kit/capture/testdata" {
		t.Fatalf("fromRoot(testdata) = %q", got)
	}
}

func TestStartAnnounced(t *testing.T) {
	sh := Tool(t, "it is part of Debian", "sh")
	p := Start(t, Cmd{Name: "announcer", Bin: sh, Args: []string{"-c", "echo starting; echo listening 4242; echo more; exec sleep 30"}, Announce: "listening "})
	if p.Addr != "127.0.0.1:4242" {
		t.Fatalf("announced %q", p.Addr)
	}
	p.Stop()
	if out := p.Output(); !strings.Contains(out, "starting") {
		t.Fatalf("the rest of its output is kept for messages: %q", out)
	}
}
