package pipeline

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// seedFile is the example of seed 001.
const seedFile = `{ "42": { "current_phase": "building", "active_agent": "builder", "active_agent_kind": "creative", "issue_type": "feature", "pr_number": "42", "started_at": "2026-04-10T12:48:21.988Z", "last_updated": "2026-04-10T13:06:54.627Z", "plan_iterations": "1", "review_fix_count": "0", "qa_fix_count": "0", "review_passed": "true", "qa_passed": "false", "complexity": "standard", "pipeline_run_id": "run-42-20260410124821-6b11c423", "prompt_rewrite_count": "0", "sub_issues": [43, 44], "steps": { "plan": { "architect": { "status": "completed" } } }, "tokens": { "_runs": [] } }, "lastActivity": "2026-04-10T13:06:54.627Z", "heartbeat_pid": 47281}`

func TestNormalize(t *testing.T) {
	tests := []struct {
		name string
		n    int
		data string
		want string
	}{
		{"seed example", 42, seedFile,
			`{"number":42,"current_phase":"building","active_agent":"builder","issue_type":"feature","pr_number":42,"started_at":"2026-04-10T12:48:21.988Z","last_updated":"2026-04-10T13:06:54.627Z","verdict":"FAIL","branch":null}`},
		{"defaults", 7, `{"7":{"active_agent":""}}`,
			`{"number":7,"current_phase":"unknown","active_agent":null,"issue_type":"feature","pr_number":null,"started_at":null,"last_updated":null,"verdict":null,"branch":null}`},
		{"lastActivity fallback, PASS, parseInt prefix", 8,
			`{"8":{"review_passed":"true","qa_passed":"true","pr_number":"  17abc","issue_type":"bug","current_phase":""},"lastActivity":"2026-04-10T13:00:00Z"}`,
			`{"number":8,"current_phase":"unknown","active_agent":null,"issue_type":"bug","pr_number":17,"started_at":null,"last_updated":"2026-04-10T13:00:00Z","verdict":"PASS","branch":null}`},
		{"NaN pr_number, one side unknown", 9, `{"9":{"pr_number":"none","review_passed":"true"}}`,
			`{"number":9,"current_phase":"unknown","active_agent":null,"issue_type":"feature","pr_number":null,"started_at":null,"last_updated":null,"verdict":null,"branch":null}`},
		{"pr_number written as a number, negative", 10, `{"10":{"pr_number":-3}}`,
			`{"number":10,"current_phase":"unknown","active_agent":null,"issue_type":"feature","pr_number":-3,"started_at":null,"last_updated":null,"verdict":null,"branch":null}`},
		{"key differs from file name but is the only one", 11, `{"12":{"current_phase":"qa"}}`,
			`{"number":11,"current_phase":"qa","active_agent":null,"issue_type":"feature","pr_number":null,"started_at":null,"last_updated":null,"verdict":null,"branch":null}`},
	}
	for _, tt := range tests {
		is, err := Normalize(tt.n, []byte(tt.data))
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		got, _ := json.Marshal(is)
		if string(got) != tt.want {
			t.Errorf("%s:\n got %s\nwant %s", tt.name, got, tt.want)
		}
	}
	for _, bad := range []string{`[]`, `{"1":{}, "2":{}}`, `{"5":"x"}`, `nope`} {
		if _, err := Normalize(5, []byte(bad)); err == nil {
			t.Errorf("Normalize(%s) did not fail", bad)
		}
	}
}

func TestLoadAll(t *testing.T) {
	dir := t.TempDir()
	write := func(name, s string) {
		p := filepath.Join(dir, Dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("42.json", seedFile)
	write("7.json", `{"7":{}}`)
	write("9.json", `{"9":`)
	write("notes.json", `{}`)
	issues, errs := LoadAll(dir)
	if len(issues) != 2 || issues[0].Number != 7 || issues[1].Number != 42 {
		t.Errorf("issues %+v", issues)
	}
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), "9.json") {
		t.Errorf("errors %v", errs)
	}
	if _, err := Load(dir, 3); err == nil || !strings.Contains(err.Error(), "state/pipeline/3.json") {
		t.Errorf("missing issue: %v", err)
	}
}

func TestIsIssueKey(t *testing.T) {
	for k, want := range map[string]bool{"12": true, "0": true, "": false, "1a": false, "-1": false, " 1": false, "١": false} {
		if got := IsIssueKey(k); got != want {
			t.Errorf("%q: %v", k, got)
		}
	}
}
