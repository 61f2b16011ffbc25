package schema

import (
	"strings"
	"testing"

	"github.com/git-queen/git-queen/internal/format/records"
)

func TestRegistryDefaults(t *testing.T) {
	stLine := []byte(`{"v":3,"ts":"2026-02-09T20:00:00Z","seq":0,"lane":"event","op":"init"}`)
	qmLine := []byte(`{"id":"qm-01HZ1A2B3C4D5E6F7G8H9J0KMN"}`)
	tests := []struct {
		path  string
		first []byte
		want  string // "" for unknown
	}{
		{".beads/queen_messages.jsonl", nil, "queen-message"},
		{".beads/queen_messages_archive.jsonl", nil, "queen-message"},
		{".beads/queen_assignments.jsonl", nil, "queen-assignment"},
		{".beads/queen_reservations.jsonl", nil, "queen-reservation"},
		{".beads/issues.jsonl", stLine, "beads-issue"},
		{".beads/beads.jsonl", nil, "beads-issue"},
		{"state/pipeline/42.json", nil, "jkz-pipeline"},
		{"state/pipeline/sub/42.json", nil, ""},
		{".openclaw-autopilot/events/events.jsonl", nil, "autopilot-event"},
		{".openclaw-autopilot/events/checkpoints.jsonl", nil, "autopilot-checkpoint"},
		{".work/events.jsonl", nil, "vermas-event"},
		{"project-a/.work/events.jsonl", nil, "vermas-event"},
		{".work/work_orders.jsonl", nil, "vermas-work-order"},
		{".work/messages.jsonl", nil, "vermas-message"},
		{".work/routes.jsonl", nil, "vermas-route"},
		{".work/.assignment-project-a-workers-slot0", nil, "vermas-assignment"},
		{".work/templates/worker-execute.toml", nil, "vermas-template"},
		{".work/processes/proc-abc123.json", nil, "vermas-process"},
		{".work/feed.jsonl", nil, "jsonl"},
		{".work/evidence/e1.json", nil, "json"},
		{"plans/fix.jsonl", stLine, "st"},
		{"plans/fix.json", stLine, ""},
		{".beads/old_messages.jsonl", qmLine, "queen-message"},
		{"sub/.beads/old_messages.jsonl", qmLine, "queen-message"},
		{"backup/old_messages.jsonl", qmLine, ""},
		{"notes.jsonl", []byte(`{"id":"x"}`), ""},
		{"notes.jsonl", []byte(`not json`), ""},
		{"./.beads//queen_messages.jsonl", nil, "queen-message"},
	}
	reg := DefaultRegistry()
	for _, tt := range tests {
		f, ok := reg.FormatFor(tt.path, tt.first)
		got := ""
		if ok {
			got = f.Name
		}
		if got != tt.want {
			t.Errorf("FormatFor(%q) = %q, want %q", tt.path, got, tt.want)
		}
	}
}

func TestMatch(t *testing.T) {
	tests := []struct {
		pattern, path string
		want          bool
	}{
		{".work/events.jsonl", ".work/events.jsonl", true},
		{".work/events.jsonl", "a/b/.work/events.jsonl", true},
		{"/.work/events.jsonl", "a/.work/events.jsonl", false},
		{"/.work/events.jsonl", ".work/events.jsonl", true},
		{".work/**", ".work/a/b/c", true},
		{".work/**", ".work", true},
		{"plans/*.jsonl", "plans/a/b.jsonl", false},
		{"plans/**/*.jsonl", "plans/a/b.jsonl", true},
		{"plans/**/*.jsonl", "plans/b.jsonl", true},
		{"*.jsonl", "deep/down/x.jsonl", true},
		{"[", "x", false},
		// A class matches one character of one segment, never the '/'
		// between two (as "*" and "?", and as the .gitattributes line
		// that routes the files to the merge driver); braces are
		// characters, as .gitattributes reads them.
		{"plans/a[^x]b.jsonl", "plans/a/b.jsonl", false},
		{"plans/a[^x]b.jsonl", "plans/a-b.jsonl", true},
		{"a[,-0]b", "a/b", false},
		{"a[,-0]b", "a.b", true},
		{"plans/run[^_]*.jsonl", "plans/run/old.jsonl", false},
		{"x{a,b}.jsonl", "xa.jsonl", false},
		{"x{a,b}.jsonl", "x{a,b}.jsonl", true},
	}
	for _, tt := range tests {
		if got := Match(tt.pattern, tt.path); got != tt.want {
			t.Errorf("Match(%q, %q) = %v, want %v", tt.pattern, tt.path, got, tt.want)
		}
	}
}

func TestConfigOverrides(t *testing.T) {
	cfg, err := ParseConfig([]byte(`
[validate]
limit = 3

[[format]]
path = "plans/*.jsonl"
format = "st"

[[format]]
path = "/.beads/issues.jsonl"
format = "none"

[merge]
whatever = true
`))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Validate.Limit != 3 {
		t.Errorf("limit %d", cfg.Validate.Limit)
	}
	reg, err := cfg.Registry()
	if err != nil {
		t.Fatal(err)
	}
	if f, ok := reg.FormatFor("plans/a.jsonl", []byte(`{}`)); !ok || f.Name != "st" {
		t.Errorf("configured rule not used: %v %v", f, ok)
	}
	if _, ok := reg.FormatFor(".beads/issues.jsonl", nil); ok {
		t.Error(`format "none" did not skip the file`)
	}
	if reg.Candidate(".beads/issues.jsonl") {
		t.Error(`a file configured "none" is still a candidate`)
	}
	if f, ok := reg.FormatFor(".beads/queen_messages.jsonl", nil); !ok || f.Name != "queen-message" {
		t.Error("defaults lost behind the configured rules")
	}

	for _, bad := range []struct{ toml, msg string }{
		{"[[format]]\npath = \"x\"\nformat = \"stt\"\n", `names format "stt"`},
		{"[[format]]\nformat = \"st\"\n", "has no path"},
		{"[validate]\nlimit = -1\n", "validate.limit"},
		{"[[format]\n", "queen.toml"},
		{"[validate]\nlimt = 3\n", "queen.toml:2: unknown key validate.limt"},
		{"[[format]]\npath = \"x\"\nformat = \"st\"\nformta = 1\n", "unknown key format.formta"},
	} {
		cfg, err := ParseConfig([]byte(bad.toml))
		if err == nil {
			_, err = cfg.Registry()
		}
		if err == nil || !strings.Contains(err.Error(), bad.msg) {
			t.Errorf("config %q: error %v, want one mentioning %q", bad.toml, err, bad.msg)
		}
	}
}

func TestCandidates(t *testing.T) {
	reg := DefaultRegistry()
	for p, want := range map[string]bool{
		".beads/queen_messages.jsonl": true,
		"anything/else.jsonl":         true,
		".work/README.md":             true,
		"state/pipeline/42.json":      true,
		".beads/config.yaml":          false,
		"main.go":                     false,
		"package.json":                false,
	} {
		if got := reg.Candidate(p); got != want {
			t.Errorf("Candidate(%q) = %v, want %v", p, got, want)
		}
	}
}

// TestEveryStoreKindHasItsFormat checks the rules and the recognition by
// content that records.Kinds gives the registry: each kind's log in
// .beads/ has the kind's format, a QueenBee store's format (validated by
// appends, by the version order), and a renamed copy is known by the
// prefix of its first record's id.
func TestEveryStoreKindHasItsFormat(t *testing.T) {
	reg := DefaultRegistry()
	for _, k := range records.Kinds {
		f, ok := Lookup(k.Format)
		if !ok || !f.versioned || !f.Incremental() {
			t.Errorf("%s: format %q is not a known QueenBee store format", k.Name, k.Format)
			continue
		}
		if got, ok := reg.FormatFor(".beads/"+k.File, nil); !ok || got != f {
			t.Errorf("FormatFor(.beads/%s) = %v, want %s", k.File, got, k.Format)
		}
		first := []byte(`{"id":"` + k.IDPrefix() + `01HZ1A2B3C4D5E6F7G8H9J0KMN"}`)
		if got, ok := reg.FormatFor(".beads/renamed.jsonl", first); !ok || got != f {
			t.Errorf("FormatFor(.beads/renamed.jsonl, %s) = %v, want %s", first, got, k.Format)
		}
	}
}
