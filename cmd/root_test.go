package cmd

import (
	"runtime/debug"
	"strings"
	"testing"
)

func TestUsageMistakes(t *testing.T) {
	for _, tc := range []struct {
		name     string
		args     []string
		want     []string
		mustNot  []string
		wantCode int
	}{
		{"mistyped subcommand", []string{"diagnos"},
			[]string{"idem: unknown command \"diagnos\" for \"idem\"\n\nDid you mean this?\n  diagnose\nRun 'idem --help' for usage.\n"},
			[]string{`\n`, `\t`}, exitError},
		{"hostile mistyped subcommand", []string{"\x1b[31mdiagnose"},
			[]string{`unknown command "\x1b[31mdiagnose"`}, []string{"\x1b"}, exitError},
		{"flag error names the subcommand", []string{"diagnose", "--frobnicate"},
			[]string{"idem: unknown flag: --frobnicate\nRun 'idem diagnose --help' for usage.\n"}, nil, exitError},
		{"argument error names the subcommand", []string{"trace"},
			[]string{"Run 'idem trace --help' for usage."}, nil, exitError},
		{"root flag error", []string{"--frobnicate"},
			[]string{"Run 'idem --help' for usage."}, nil, exitError},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := run(t, "", tc.args...)
			if code != tc.wantCode {
				t.Errorf("exit %d, want %d", code, tc.wantCode)
			}
			for _, w := range tc.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr %q lacks %q", stderr, w)
				}
			}
			for _, w := range tc.mustNot {
				if strings.Contains(stderr, w) {
					t.Errorf("stderr %q holds %q", stderr, w)
				}
			}
		})
	}
}

func TestVersionText(t *testing.T) {
	for _, tc := range []struct {
		name string
		bi   *debug.BuildInfo
		want string
	}{
		{"no build info", nil, "idem dev\n"},
		{"a checkout without VCS stamping", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}},
			"idem dev\nno commit recorded: build with 'go build -buildvcs=true ./cmd/idem' or 'go install' from a git checkout\nbuilt with go1.26.8\n"},
		{"go install from a checkout", &debug.BuildInfo{GoVersion: "go1.26.8",
			Main: debug.Module{Version: "v0.0.0-20261201093000-901478e1c2d3+dirty"},
			Settings: []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: "901478e1c2d3aa"},
				{Key: "vcs.time", Value: "2026-12-01T09:30:00Z"}, {Key: "vcs.modified", Value: "true"}}},
			"idem v0.0.0-20261201093000-901478e1c2d3+dirty\nrevision 901478e1c2d3aa (2026-12-01T09:30:00Z), with uncommitted changes\nbuilt with go1.26.8\n"},
		{"a tagged module", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "v1.2.3"}},
			"idem v1.2.3\nbuilt with go1.26.8\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := versionText(tc.bi); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
	code, out, _ := run(t, "", "--version")
	if code != 0 || !strings.HasPrefix(out, "idem ") || !strings.Contains(out, "built with go") {
		t.Errorf("--version: exit %d, %q", code, out)
	}
}

func TestHelpListsTopicsAndCompletion(t *testing.T) {
	_, out, _ := run(t, "", "--help")
	for _, w := range []string{"completion ", "Additional help topics:", "idem exit-codes", "idem formats"} {
		if !strings.Contains(out, w) {
			t.Errorf("idem --help lacks %q:\n%s", w, out)
		}
	}
}

func TestCompletionValues(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want []string
		not  []string
	}{
		{"rule IDs", []string{"diagnose", "--rule", ""}, []string{"response-lost\t", "retry-new-key\t"}, nil},
		{"diagnose formats", []string{"diagnose", "-o", ""}, []string{"text", "markdown", "json", "html"}, nil},
		{"trace formats", []string{"trace", "-o", ""}, []string{"text", "json"}, []string{"markdown"}},
		{"tiers", []string{"diagnose", "--tier", ""}, []string{"client", "proxy", "server", "worker", "provider"}, nil},
		{"input tiers", []string{"trace", "--input-tier", ""}, []string{"client", "provider"}, nil},
		// trace's --tier is FILE=TIER: no bare tier is offered.
		{"one input's tier", []string{"trace", "--tier", ""}, nil, []string{"provider"}},
		{"input formats", []string{"diagnose", "--input-format", ""}, []string{"har", "nginx"}, nil},
		{"fail-on", []string{"diagnose", "--fail-on", ""}, []string{"info", "warning", "critical"}, nil},
		{"rules argument", []string{"rules", ""}, []string{"payload-mismatch\t"}, nil},
		{"help topics", []string{"help", ""}, []string{"exit-codes\t", "formats\t", "diagnose\t"}, nil},
		{"help topics by prefix", []string{"help", "ex"}, []string{"exit-codes\t"}, []string{"formats"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, out, _ := run(t, "", append([]string{"__complete"}, tc.args...)...)
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("completing %q: %q lacks %q", tc.args, out, w)
				}
			}
			for _, w := range tc.not {
				if strings.Contains(out, w) {
					t.Errorf("completing %q: %q holds %q", tc.args, out, w)
				}
			}
		})
	}
}
