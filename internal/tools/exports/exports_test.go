package main

import (
	"maps"
	"slices"
	"testing"
)

// TestUnusedFindsWhatNoOtherPackageUses runs the finder on a module made
// for it: a name b (or b's test) uses has a user; a's own external test
// is no user; a method that satisfies an interface (fmt.Stringer, error,
// errors' Unwrap, a's own Namer) is no surface, and an interface
// no one names is unused like any type.
func TestUnusedFindsWhatNoOtherPackageUses(t *testing.T) {
	if testing.Short() {
		t.Skip("loads a module with its types")
	}
	got, err := unused("testdata/mod")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{
		"a": {"Namer", "OnlyMine", "T.M", "Unused"},
		"b": {"Exported"},
	}
	if !maps.EqualFunc(got, want, slices.Equal) {
		t.Errorf("unused = %v, want %v", got, want)
	}
}

// known lists, per package, the names it exported with no user in
// another package on 2026-12-08, in packages that were being changed that
// day. The list only shrinks: a name found that it does not hold fails,
// and so does a name it holds that is no longer found (it has a user now,
// or is unexported or gone: take it off).
var known = map[string][]string{
	// docs/rules.md is written from the catalog by diagnose's own test,
	// which reads through load (an importer of diagnose) and so is an
	// external test: the layers (one set of values, two of them read by
	// other packages' tests), what each rests on, and what a rule reads
	// are its words.
	"diagnose": {
		"Layer.Evidence", "LayerBrowser", "LayerClient", "LayerServer",
		"LayerWorkflowEngine", "Rule.Reads",
	},
	// Config.Patterns is a list of it: a caller building a Config (the
	// formats' own external test does) names it.
	"formats": {"PatternConfig"},
	"logstore": {
		"Above", "AddressError", "Agg", "AggCount", "AggCountIf", "AggDistinct",
		"AggFirst", "AggLast", "AggOp", "All", "And",
		"Candidates", "Eq",
		"Exporter", "FieldActivity", "FieldFile",
		"FieldFormat", "FieldLine", "FieldRetried", "FieldRun", "FieldSecret",
		"Filter", "Group", "Held", "In", "Limits", "Lines", "Loader",
		"Member", "Near", "NearWindow",
		"Not", "Or", "Part", "Query", "Range", "Record", "Selection",
		"Selection.Empty", "Set", "Stats", "Store",
		"Window.Widen", "Window.Within",
	},
	"logstore/vltest": {
		"Binary", "Cluster", "Node", "Retention", "Version",
	},
}

// TestEveryExportHasAUser holds the module to exporting only what another
// package (or another package's test) uses.
func TestEveryExportHasAUser(t *testing.T) {
	if testing.Short() {
		t.Skip("loads the whole module with its types")
	}
	found, err := unused("../../..")
	if err != nil {
		t.Fatal(err)
	}
	for _, pkg := range slices.Sorted(maps.Keys(found)) {
		for _, name := range found[pkg] {
			if !slices.Contains(known[pkg], name) {
				t.Errorf("%s exports %s, which no other package uses: unexport it", pkg, name)
			}
		}
	}
	for _, pkg := range slices.Sorted(maps.Keys(known)) {
		for _, name := range known[pkg] {
			if !slices.Contains(found[pkg], name) {
				t.Errorf("known lists %s.%s, which another package uses now or which is gone: take it off the list", pkg, name)
			}
		}
	}
}
