package cmd

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// archRow is one row of the packages table in docs/architecture.md: the
// packages it names and the idem packages it says they know (import).
type archRow struct {
	line     int
	packages []string
	knows    []string
	// anything is set when the row says its packages may know
	// "everything" (the commands, the test harnesses): only the names it
	// lists are then checked, as a floor.
	anything bool
}

var backticked = regexp.MustCompile("`([^`]+)`")

// archTable reads the "| package | holds | knows |" table of path.
func archTable(t *testing.T, path string) []archRow {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rows []archRow
	in := false
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "| package | holds | knows |"):
			in = true
			continue
		case !in || strings.HasPrefix(line, "|---"):
			continue
		case !strings.HasPrefix(line, "|"):
			in = false
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		if len(cells) != 3 {
			t.Fatalf("%s:%d: a row of the packages table has %d cells, want 3", path, n, len(cells))
		}
		r := archRow{line: n, anything: strings.Contains(cells[2], "everything")}
		for _, m := range backticked.FindAllStringSubmatch(cells[0], -1) {
			r.packages = append(r.packages, m[1])
		}
		for _, m := range backticked.FindAllStringSubmatch(cells[2], -1) {
			if c := m[1][0]; c >= 'a' && c <= 'z' { // not a name it uses, such as `Build`
				r.knows = append(r.knows, m[1])
			}
		}
		rows = append(rows, r)
	}
	if len(rows) == 0 {
		t.Fatalf("%s: no packages table", path)
	}
	return rows
}

// idemPackages lists every package of the module (go list) with the
// module's packages it imports, outside tests, by their path in the
// module ("formats/grammar").
func idemPackages(t *testing.T) map[string][]string {
	t.Helper()
	out, err := exec.Command("go", "list", "-json", "github.com/idem-cli/idem/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	const mod = "github.com/idem-cli/idem/"
	pkgs := map[string][]string{}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for dec.More() {
		var p struct {
			ImportPath string
			Imports    []string
		}
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		var own []string
		for _, imp := range p.Imports {
			imp, _, _ = strings.Cut(imp, " [") // the variant built for the main package's profile
			if strings.HasPrefix(imp, mod) {
				own = append(own, strings.TrimPrefix(imp, mod))
			}
		}
		pkgs[strings.TrimPrefix(p.ImportPath, mod)] = own
	}
	return pkgs
}

// TestArchitectureNamesEveryPackage holds docs/architecture.md's table of
// packages against the code: every package of the module has its row, no
// row names a package that is gone, and what a row says its packages know
// is exactly the module's packages they import (at least, for the rows
// that may know everything).
func TestArchitectureNamesEveryPackage(t *testing.T) {
	const doc = "../docs/architecture.md"
	rows := archTable(t, doc)
	pkgs := idemPackages(t)
	seen := map[string]bool{}
	for _, r := range rows {
		var imports []string
		for _, p := range r.packages {
			own, ok := pkgs[p]
			if !ok {
				t.Errorf("%s:%d names package %s, which the module does not have", doc, r.line, p)
				continue
			}
			seen[p] = true
			for _, imp := range own {
				if !slices.Contains(r.packages, imp) && !slices.Contains(imports, imp) {
					imports = append(imports, imp)
				}
			}
		}
		slices.Sort(imports)
		knows := slices.Clone(r.knows)
		slices.Sort(knows)
		knows = slices.Compact(knows)
		for _, k := range knows {
			if _, ok := pkgs[k]; !ok {
				t.Errorf("%s:%d says %s knows %s, which the module does not have", doc, r.line, strings.Join(r.packages, ", "), k)
			} else if !slices.Contains(imports, k) {
				t.Errorf("%s:%d says %s knows %s, but it does not import it", doc, r.line, strings.Join(r.packages, ", "), k)
			}
		}
		if r.anything {
			continue
		}
		for _, imp := range imports {
			if !slices.Contains(knows, imp) {
				t.Errorf("%s:%d: %s imports %s, which its row does not say it knows", doc, r.line, strings.Join(r.packages, ", "), imp)
			}
		}
	}
	var missing []string
	for p := range pkgs {
		if !seen[p] {
			missing = append(missing, p)
		}
	}
	slices.Sort(missing)
	for _, p := range missing {
		t.Errorf("package %s has no row in %s's table of packages", p, doc)
	}
}

// TestArchitectureNamesFilesThatExist: every path docs/architecture.md
// names in backticks (a folder or a file of the repository, such as
// `trace/record.go` or `internal/kit/capture/formats.go`) is there, so a
// recipe never sends a reader to a file that moved or never was.
func TestArchitectureNamesFilesThatExist(t *testing.T) {
	doc, err := os.ReadFile("../docs/architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	pathLike := regexp.MustCompile(`^[a-z][a-z0-9_./-]*/[a-z0-9_./*-]*$`)
	checked := 0
	for n, line := range strings.Split(string(doc), "\n") {
		for _, m := range backticked.FindAllStringSubmatch(line, -1) {
			p := m[1]
			if !pathLike.MatchString(p) || strings.Contains(p, "//") {
				continue
			}
			if strings.ContainsAny(p, "*") {
				if got, _ := filepath.Glob(filepath.Join("..", p)); len(got) == 0 {
					t.Errorf("docs/architecture.md:%d names %s, which matches no file", n+1, p)
				}
			} else if _, err := os.Stat(filepath.Join("..", p)); err != nil {
				t.Errorf("docs/architecture.md:%d names %s, which is not in the repository", n+1, p)
			}
			checked++
		}
	}
	if checked < 20 {
		t.Errorf("only %d paths checked: the pattern no longer finds the doc's paths", checked)
	}
}

// TestBinaryLeavesKitsAndTools holds the split docs/architecture.md
// states: the test kits (internal/kit) and the bench tools
// (internal/tools) never reach the idem binary.
func TestBinaryLeavesKitsAndTools(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "github.com/idem-cli/idem/cmd/idem").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	const mod = "github.com/idem-cli/idem/"
	for _, p := range strings.Fields(string(out)) {
		if strings.HasPrefix(p, mod+"internal/kit/") || strings.HasPrefix(p, mod+"internal/tools/") {
			t.Errorf("the binary imports %s: a test kit or bench tool is not part of idem", strings.TrimPrefix(p, mod))
		}
	}
}
