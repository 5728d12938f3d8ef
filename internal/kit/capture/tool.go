package capture

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// debianDirs are where Debian's packages put programs that a test's PATH
// may leave out (nginx and HAProxy are in /usr/sbin).
var debianDirs = []string{"/usr/sbin", "/usr/bin", "/sbin", "/bin"}

// Tool finds an installed program by its names: on PATH, then in
// Debian's directories. When none is found the test skips, or fails under
// CI (see Missing); install says how to install it.
func Tool(t testing.TB, install string, names ...string) string {
	t.Helper()
	for _, n := range names {
		if p, ok := lookPath(n); ok {
			return p
		}
	}
	Missing(t, names[0], install)
	return ""
}

func lookPath(name string) (string, bool) {
	if p, err := exec.LookPath(name); err == nil {
		return p, true
	}
	if strings.ContainsRune(name, '/') {
		return "", false
	}
	for _, d := range debianDirs {
		if p, err := exec.LookPath(filepath.Join(d, name)); err == nil {
			return p, true
		}
	}
	return "", false
}

// Missing ends a test whose software is not installed: it skips, except
// under CI (CI set), where the .ci/ scripts install everything the tests
// run and a skip would hide a broken install, so it fails.
func Missing(t testing.TB, what, install string) {
	t.Helper()
	if os.Getenv("CI") != "" {
		t.Fatalf("%s is not installed; CI installs it (%s) and must not skip this test", what, install)
	}
	t.Skipf("%s is not installed (%s); skipping", what, install)
}

// NodeModules makes sure each npm package is installed in dir's
// node_modules (npm ci from its committed lock file), or ends the test as
// Missing does.
func NodeModules(t testing.TB, dir string, modules ...string) {
	t.Helper()
	for _, m := range modules {
		if _, err := os.Stat(filepath.Join(dir, "node_modules", m, "package.json")); err != nil {
			Missing(t, m, "npm ci --prefix "+fromRoot(dir))
		}
	}
}

// Python finds a python3 that imports every module, Debian's first: a
// python3 of its own earlier on PATH (pyenv) does not see Debian's
// packages. Without one the test ends as Missing does.
func Python(t testing.TB, install string, modules ...string) string {
	t.Helper()
	for _, p := range []string{"/usr/bin/python3", "python3"} {
		path, err := exec.LookPath(p)
		if err == nil && exec.Command(path, "-c", "import "+strings.Join(modules, ", ")).Run() == nil {
			return path
		}
	}
	Missing(t, "python3 with "+strings.Join(modules, ", "), install)
	return ""
}

// Version names the software that wrote a capture: its Debian package
// and version where dpkg knows it, else the last line the program prints
// about its version (nginx prints it on stderr; Debian's chromium wrapper
// prints noise before it).
func Version(pkg, bin string, args ...string) string {
	if out, err := exec.Command("dpkg-query", "-W", "-f", "${Package} ${Version} (Debian)", pkg).Output(); err == nil && len(out) > 0 {
		return string(out)
	}
	out, err := exec.Command(bin, args...).CombinedOutput()
	if err != nil {
		return "unknown (" + err.Error() + ")"
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	return lines[len(lines)-1]
}

// fromRoot is dir relative to the module's root, as a command run there
// names it; dir itself when the root is not found.
func fromRoot(dir string) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return dir
	}
	for root := abs; ; {
		if _, err := os.Stat(filepath.Join(root, "go.mod")); err == nil {
			if rel, err := filepath.Rel(root, abs); err == nil {
				return rel
			}
			return dir
		}
		up := filepath.Dir(root)
		if up == root {
			return dir
		}
		root = up
	}
}
