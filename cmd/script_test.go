package cmd

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

var update = flag.Bool("update", false, "rewrite golden files and testscript expectations")

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"idem": func() { os.Exit(Main()) },
	})
}

// TestScripts runs the end-to-end scripts in testdata/script: the real
// binary's output and exit status on the bundled fixtures.
func TestScripts(t *testing.T) {
	fixtures, err := filepath.Abs("../fixtures")
	if err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		RequireExplicitExec: true,
		UpdateScripts:       *update,
		Setup: func(env *testscript.Env) error {
			env.Setenv("FIXTURES", fixtures)
			env.Setenv("NO_COLOR", "")
			return nil
		},
	})
}
