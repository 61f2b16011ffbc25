package commands

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/git-queen/git-queen/internal/app"
	"github.com/git-queen/git-queen/internal/testgit"
)

const goodMessage = `{"id":"qm-01HZ1A2B3C4D5E6F7G8H9J0KMN","created_at":"2026-02-09T20:00:00Z","from":"alice","to":"bob","subject":"s","body":"b","importance":"low","read":false}`

func TestValidateCommand(t *testing.T) {
	testgit.Isolate(t)
	dir := testgit.Init(t)
	testgit.Write(t, dir, ".beads/queen_messages.jsonl", goodMessage+"\n")
	testgit.Write(t, dir, ".beads/queen_reservations.jsonl",
		`{"id":"qr-01HZ1A2B3C4D5E6F7G8H9J0KMN","created_at":"2026-02-09T20:00:00Z","expires_at":"2026-02-09T19:00:00Z","pattern":"src/**","droid":"bob","status":"active","exclusive":true}`+"\n")
	testgit.Write(t, dir, "sub/notes.jsonl", `{"kind":"note"}`+"\n")

	tests := []struct {
		name   string
		args   []string
		code   int
		stdout []string
	}{
		{"one valid file", []string{"validate", ".beads/queen_messages.jsonl"}, ExitOK, []string{"validate: 1 file valid\n"}},
		{"whole repository", []string{"validate"}, ExitFailure, []string{
			".beads/queen_reservations.jsonl:1: expires_at: 2026-02-09T19:00:00Z is not after created_at 2026-02-09T20:00:00Z",
			"skipped sub/notes.jsonl: no known format", "validate: 1 of 2 files invalid, 1 problem; 1 skipped\n"}},
		{"forced format", []string{"validate", "sub/notes.jsonl", "--format", "queen-message"}, ExitFailure, []string{
			"sub/notes.jsonl:1: id: is missing"}},
		{"from a subdirectory, a directory argument", []string{"validate", "."}, ExitOK, []string{"skipped sub/notes.jsonl"}},
		{"bad limit", []string{"validate", "--limit", "-3"}, ExitUsage, nil},
	}
	for _, tt := range tests {
		runDir := dir
		if strings.Contains(tt.name, "subdirectory") {
			runDir = dir + "/sub"
		}
		r := runIn(t, runDir, nil, tt.args...)
		if r.Code != tt.code {
			t.Errorf("%s: exit %d, want %d\n%s%s", tt.name, r.Code, tt.code, r.Stdout, r.Stderr)
		}
		for _, s := range tt.stdout {
			if !strings.Contains(r.Stdout, s) {
				t.Errorf("%s: stdout lacks %q:\n%s", tt.name, s, r.Stdout)
			}
		}
	}

	r := runIn(t, dir, nil, "validate", "--json")
	var rep app.ValidateReport
	if err := json.Unmarshal([]byte(r.Stdout), &rep); err != nil {
		t.Fatalf("--json output is not JSON: %v\n%s", err, r.Stdout)
	}
	if rep.Valid || rep.Problems != 1 || len(rep.Files) != 2 || len(rep.Skipped) != 1 || r.Code != ExitFailure {
		t.Errorf("--json report %+v, exit %d", rep, r.Code)
	}
	if p := rep.Files[1].Problems[0]; p.Rule != "expires-after-created" || p.Line != 1 || p.Field != "expires_at" {
		t.Errorf("problem %+v", p)
	}
}

func TestValidateConfigLimit(t *testing.T) {
	testgit.Isolate(t)
	dir := testgit.Init(t)
	testgit.Write(t, dir, ".beads/queen.toml", "[validate]\nlimit = 1\n")
	testgit.Write(t, dir, ".beads/queen_messages.jsonl", "a\nb\nc\n")
	r := runIn(t, dir, nil, "validate")
	if r.Code != ExitFailure || strings.Count(r.Stdout, "not valid JSON") != 1 ||
		!strings.Contains(r.Stdout, ".beads/queen_messages.jsonl: ... and 2 more problems") {
		t.Errorf("exit %d\n%s%s", r.Code, r.Stdout, r.Stderr)
	}
	r = runIn(t, dir, nil, "validate", "--limit", "0")
	if strings.Count(r.Stdout, "not valid JSON") != 3 {
		t.Errorf("--limit 0 did not list all:\n%s", r.Stdout)
	}
}

func TestValidateConfigErrors(t *testing.T) {
	testgit.Isolate(t)
	dir := testgit.Init(t)
	for _, tt := range []struct{ toml, want string }{
		{"[validate]\nlimt = 1\n", "/.beads/queen.toml:2: unknown key validate.limt"},
		{"[[format]]\npath = \"x\"\nformat = \"stt\"\n", `/.beads/queen.toml: format rule 1 (x) names format "stt"`},
		{"[[format\n", "/.beads/queen.toml: "},
	} {
		testgit.Write(t, dir, ".beads/queen.toml", tt.toml)
		r := runIn(t, dir, nil, "validate")
		if r.Code != ExitFailure || !strings.Contains(r.Stderr, tt.want) || !strings.Contains(r.Stderr, "fix the file") {
			t.Errorf("config %q: exit %d, stderr %q", tt.toml, r.Code, r.Stderr)
		}
	}
}
