package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestStatusHookRecipes runs the README's session-start recipes: each is
// valid JSON for its runtime (the event under the name the runtime reads),
// its one command is git queen status --hook for that runtime, and that
// command, run through the shell as the runtime runs it with a standard
// input that never delivers, exits 0 with the runtime's JSON and the
// droid's unread message in it.
func TestStatusHookRecipes(t *testing.T) {
	repo := newRepo(t)
	mustQueen(t, repo, "ann", "init")
	mustQueen(t, repo, "bob", "msg", "send", "ann", "the API moved", "--new")
	mustQueen(t, repo, "bob", "reserve", "src/**")

	for _, tc := range []struct {
		runtime, first, event string
	}{
		{"claude", `{"hooks": {"SessionStart": [{"hooks": [{"type": "command", "command": "git queen status --hook claude"}]}]}}`, "SessionStart"},
		{"codex", `{"hooks": {"SessionStart": [{"matcher": "startup|resume|clear",`, "SessionStart"},
		{"gemini", `{"hooks": {"SessionStart": [{"hooks": [{"name": "git-queen-status", "type": "command",`, "SessionStart"},
		{"cursor", `{"version": 1, "hooks": {"sessionStart": [{"command": "git queen status --hook cursor"}]}}`, "sessionStart"},
	} {
		t.Run(tc.runtime, func(t *testing.T) {
			var recipe struct {
				Hooks map[string]any `json:"hooks"`
			}
			if err := json.Unmarshal([]byte(readmeBlock(t, tc.first)), &recipe); err != nil {
				t.Fatalf("the README's %s recipe is not JSON: %v", tc.runtime, err)
			}
			entries, ok := recipe.Hooks[tc.event]
			if !ok || len(recipe.Hooks) != 1 {
				t.Fatalf("the recipe's hooks are %v, want only %s", recipe.Hooks, tc.event)
			}
			commands := commandsIn(entries)
			if want := "git queen status --hook " + tc.runtime; len(commands) != 1 || commands[0] != want {
				t.Fatalf("the recipe runs %q, want [%q]", commands, want)
			}

			stdin, never, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			defer stdin.Close()
			defer never.Close()
			cmd := exec.Command("sh", "-c", commands[0])
			cmd.Dir = repo
			cmd.Env = append(os.Environ(), "QUEEN_DROID=ann")
			cmd.Stdin = stdin
			r := runLimited(t, cmd)
			if r.code != 0 || r.stderr != "" {
				t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
			}
			var out struct {
				HookSpecificOutput struct {
					HookEventName     string `json:"hookEventName"`
					AdditionalContext string `json:"additionalContext"`
				} `json:"hookSpecificOutput"`
				AdditionalContext string `json:"additional_context"`
			}
			if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
				t.Fatalf("stdout %q is not JSON: %v", r.stdout, err)
			}
			context := out.AdditionalContext
			if tc.runtime != "cursor" {
				if out.HookSpecificOutput.HookEventName != "SessionStart" {
					t.Fatalf("hookEventName %q in %s", out.HookSpecificOutput.HookEventName, r.stdout)
				}
				context = out.HookSpecificOutput.AdditionalContext
			}
			for _, want := range []string{"you are droid ann. 1 unread message", "from bob", "the API moved", "src/** by bob"} {
				if !strings.Contains(context, want) {
					t.Errorf("context lacks %q:\n%s", want, context)
				}
			}
		})
	}
}

// commandsIn collects every "command" string in a decoded hooks entry.
func commandsIn(v any) []string {
	var out []string
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			if s, ok := x.(string); ok && k == "command" {
				out = append(out, s)
			} else {
				out = append(out, commandsIn(x)...)
			}
		}
	case []any:
		for _, x := range v {
			out = append(out, commandsIn(x)...)
		}
	}
	return out
}
