package cmd

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// readmeExample is one "$ command" of a console block in README.md and the
// output lines shown under it (up to a "..." line).
type readmeExample struct {
	line    int
	command string
	output  []string
}

func readmeExamples(t *testing.T, path string) []readmeExample {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []readmeExample
	inConsole, truncated := false, false
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		n++
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "```console"):
			inConsole = true
		case strings.HasPrefix(line, "```"):
			inConsole = false
		case inConsole && strings.HasPrefix(line, "$ "):
			out = append(out, readmeExample{line: n, command: strings.TrimPrefix(line, "$ ")})
			truncated = false
		case inConsole && len(out) > 0:
			if strings.TrimSpace(line) == "..." {
				truncated = true
			} else if !truncated {
				out[len(out)-1].output = append(out[len(out)-1].output, line)
			}
		}
	}
	return out
}

// TestReadmeExamples runs every console example of README.md, as written,
// with the built idem on PATH, and checks the output it shows.
func TestReadmeExamples(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := t.TempDir()
	root, _ := filepath.Abs("..")
	build := exec.Command("go", "build", "-o", filepath.Join(bin, "idem"), "./cmd/idem")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	examples := readmeExamples(t, filepath.Join(root, "README.md"))
	if len(examples) < 5 {
		t.Fatalf("found only %d README examples", len(examples))
	}
	for _, ex := range examples {
		t.Run(ex.command, func(t *testing.T) {
			cmd := exec.Command("bash", "-o", "pipefail", "-c", ex.command)
			cmd.Dir = root
			cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "NO_COLOR=1", "COLUMNS=100")
			out, err := cmd.Output()
			code := 0
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if code == 2 || code > 3 { // 3 is an inconclusive diagnosis, said in the output
				t.Fatalf("README.md:%d: %s exited %d\n%s", ex.line, ex.command, code, out)
			}
			if len(out) == 0 {
				t.Errorf("README.md:%d: %s printed nothing", ex.line, ex.command)
			}
			got := strings.Split(string(out), "\n")
			for i, want := range ex.output {
				if i >= len(got) || strings.TrimRight(got[i], " ") != strings.TrimRight(want, " ") {
					g := ""
					if i < len(got) {
						g = got[i]
					}
					t.Errorf("README.md:%d: output line %d\n got: %q\nwant: %q", ex.line, i+1, g, want)
					break
				}
			}
		})
	}
}

// TestReadmeWalkthrough runs the "Try it in two minutes" script of
// README.md as one bash script, on a free port instead of 8080.
func TestReadmeWalkthrough(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and starts a server")
	}
	if _, err := exec.LookPath("curl"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("curl is needed (.ci/run installs it)")
		}
		t.Skip("curl is not installed")
	}
	root, _ := filepath.Abs("..")
	b, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(b), "<!-- walkthrough:start -->")
	block, _, ok2 := strings.Cut(rest, "<!-- walkthrough:end -->")
	if !ok || !ok2 {
		t.Fatal("README.md has no walkthrough block")
	}
	script := strings.TrimSpace(block)
	script = strings.TrimPrefix(script, "```sh")
	script = strings.TrimSuffix(script, "```")
	port := fmt.Sprint(freePort(t))
	script = strings.ReplaceAll(script, "127.0.0.1:8080", "127.0.0.1:"+port)
	script = strings.Replace(script, "idem gateway ", "idem gateway --listen 127.0.0.1:"+port+" ", 1)

	bin := t.TempDir()
	build := exec.Command("go", "build", "-o", filepath.Join(bin, "idem"), "./cmd/idem")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	work := t.TempDir()
	cmd := exec.Command("bash", "-c", "trap 'kill %1 2>/dev/null' EXIT\n"+script)
	cmd.Dir = work
	cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"), "NO_COLOR=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the walkthrough failed: %v\n%s", err, out)
	}
	// Prose is wrapped to the width, so phrases are looked for with every
	// run of spaces and line breaks as one space.
	flat := strings.Join(strings.Fields(string(out)), " ")
	for _, want := range []string{"curl exit 52", "Idempotent-Replayed: true", `"count":1`, "response-lost", "so the contract held",
		"PASS result id", "probe lost-response", "passed, 0 failed, 0 skipped"} {
		if !strings.Contains(flat, want) {
			t.Errorf("the walkthrough's output lacks %q:\n%s", want, out)
		}
	}
}

func freePort(t *testing.T) int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}
