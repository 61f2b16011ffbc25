package commands

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-queen/git-queen/internal/testgit"
)

// What git-queen prints as JSON without --json (st show --format json, st
// plan, Cursor's refusal) is JSON whatever the text holds: written through
// the human output's escaping, a DEL or a tag character became \x7f or
// \U000e0041, which JSON has no escape for, and the reader got nothing it
// could parse (Cursor no deny).
func TestJSONWithoutTheFlagIsJSON(t *testing.T) {
	texts := []string{"a\x7f.go", "a\U000E0041.go", "\u202e.go\x1b[2J"}
	for _, text := range texts {
		var out strings.Builder
		r := refusal{Summary: text, Reason: text + "\n"}
		_ = cursorRuntime.Refuse(safeWriter{&out}, safeWriter{&out}, r)
		var got cursorAnswer
		if err := json.Unmarshal([]byte(out.String()), &got); err != nil || got.AgentMessage != r.Reason {
			t.Errorf("Cursor's refusal of %q: %v; Cursor got\n%s", text, err, out.String())
		}
	}
	testgit.Isolate(t)
	repo := testgit.Init(t)
	plan := filepath.Join(repo, "plan.jsonl")
	env := map[string]string{"QUEEN_DROID": "ann"}
	if r := runIn(t, repo, env, "st", "init", plan); r.Code != 0 {
		t.Fatalf("st init: %+v", r)
	}
	for _, text := range texts {
		if r := runIn(t, repo, env, "st", "add", plan, text); r.Code != 0 {
			t.Fatalf("st add %q: %+v", text, r)
		}
	}
	for _, args := range [][]string{{"st", "show", "--format", "json", plan}, {"st", "plan", plan}} {
		r := runIn(t, repo, env, args...)
		if !json.Valid([]byte(r.Stdout)) || r.Code != 0 || !strings.Contains(r.Stdout, `\u001b[2J`) {
			t.Errorf("%s: %+v; want JSON holding every step", strings.Join(args, " "), r)
		}
	}
}
