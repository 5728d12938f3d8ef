package capture

import (
	"os"
	"path/filepath"
	"testing"
)

// Folder is a capture as it is kept under fixtures/real/: the logs the
// software wrote, byte for byte, the files the harness writes beside them
// (the config the software ran), and the harness's record of what it sent,
// from which the tests derive what they expect.
type Folder struct {
	// Logs are the files to keep by their name in the folder, each copied
	// from where the software wrote it.
	Logs map[string]string
	// Texts are files the harness writes, by name.
	Texts map[string]string
	// Record, unless nil, is written as RecordName (run.json, harness.json)
	// with MarshalRecord.
	RecordName string
	Record     any
}

// Save writes the folder into dir.
func (f Folder) Save(t testing.TB, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, src := range f.Logs {
		copyFile(t, src, filepath.Join(dir, name))
	}
	for name, text := range f.Texts {
		WriteFile(t, dir, name, text)
	}
	if f.Record != nil {
		b, err := MarshalRecord(f.Record)
		if err != nil {
			t.Fatal(err)
		}
		WriteFile(t, dir, f.RecordName, string(b))
	}
}

// Keep saves the folder into a temporary directory and checks it there,
// as a committed capture is checked; with update, and when the test has
// not failed, it writes it again as dst, under fixtures/real/.
func (f Folder) Keep(t *testing.T, dst string, update bool, check func(t *testing.T, dir string)) {
	t.Helper()
	dir := t.TempDir()
	f.Save(t, dir)
	check(t, dir)
	if !update || t.Failed() {
		return
	}
	f.Save(t, dst)
	t.Logf("recorded %s", dst)
}

// Recorded fails t unless the committed capture dir holds its record
// (name); update is the command that records it.
func Recorded(t testing.TB, dir, name, update string) {
	t.Helper()
	if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
		t.Fatalf("%v (%s writes it)", err, update)
	}
}
