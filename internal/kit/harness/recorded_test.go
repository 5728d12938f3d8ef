package harness

import (
	"os"
	"path/filepath"
	"testing"
)

// TestRecordedCaptures checks the captures recorded under fixtures/real
// (go test ./internal/kit/harness -update rewrites them from a live run) with
// the same expectations as the live tests, without the software
// installed.
func TestRecordedCaptures(t *testing.T) {
	var dirs []string
	err := filepath.WalkDir(realDir, func(p string, d os.DirEntry, err error) error {
		if err == nil && d.Name() == "run.json" {
			dirs = append(dirs, filepath.Dir(p))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(dirs) == 0 {
		t.Fatalf("no recorded capture under %s", realDir)
	}
	for _, dir := range dirs {
		rel, _ := filepath.Rel(realDir, dir)
		t.Run(filepath.ToSlash(rel), func(t *testing.T) {
			run, err := loadRun(dir)
			if err != nil {
				t.Fatal(err)
			}
			if len(run.Sent) == 0 || len(run.Logs) == 0 {
				t.Fatalf("%s/run.json records no traffic", dir)
			}
			verifyRecorded(t, dir, run)
		})
	}
}
