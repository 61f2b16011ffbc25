package commands

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/testgit"
)

// claudeSessionStart is the whole of what Claude Code reads from a
// SessionStart hook that adds context (hook JSON output): decoding with
// unknown fields disallowed holds status --hook claude to it.
type claudeSessionStart struct {
	HookSpecificOutput *struct {
		HookEventName     string `json:"hookEventName"`
		AdditionalContext string `json:"additionalContext"`
	} `json:"hookSpecificOutput"`
}

// cursorSessionStart is what Cursor's sessionStart hook reads.
type cursorSessionStart struct {
	AdditionalContext *string `json:"additional_context"`
}

// runHook runs status --hook in dir as droid with a standard input that
// never delivers anything: a hook that read it would hang the test.
func runHook(t *testing.T, dir, droid, runtime string) result {
	t.Helper()
	stdin, never := io.Pipe()
	t.Cleanup(func() { never.Close() })
	var stdout, stderr bytes.Buffer
	e := &Env{Stdin: stdin, Stdout: &stdout, Stderr: &stderr, Dir: dir,
		Getenv: func(k string) string {
			if k == "QUEEN_DROID" {
				return droid
			}
			return ""
		},
		Now: func() time.Time { return time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC) }}
	code := Run(e, []string{"git-queen", "status", "--hook", runtime})
	return result{stdout.String(), stderr.String(), code}
}

// sessionContext decodes a hook's output in runtime's shape, strictly,
// and returns the context it adds.
func sessionContext(t *testing.T, runtime, stdout string) string {
	t.Helper()
	if strings.Count(stdout, "\n") != 1 || !strings.HasSuffix(stdout, "\n") {
		t.Fatalf("%s: want one line of JSON, got %q", runtime, stdout)
	}
	dec := json.NewDecoder(strings.NewReader(stdout))
	dec.DisallowUnknownFields()
	if runtime == "cursor" {
		var out cursorSessionStart
		if err := dec.Decode(&out); err != nil || out.AdditionalContext == nil {
			t.Fatalf("cursor: %q is not {\"additional_context\": ...}: %v", stdout, err)
		}
		return *out.AdditionalContext
	}
	var out claudeSessionStart
	if err := dec.Decode(&out); err != nil || out.HookSpecificOutput == nil {
		t.Fatalf("%s: %q is not {\"hookSpecificOutput\": ...}: %v", runtime, stdout, err)
	}
	if out.HookSpecificOutput.HookEventName != "SessionStart" {
		t.Fatalf("%s: hookEventName %q, want SessionStart", runtime, out.HookSpecificOutput.HookEventName)
	}
	return out.HookSpecificOutput.AdditionalContext
}

// TestStatusHookOutputShape: status --hook prints, for each runtime, the
// session-start JSON it reads, with the droid's unread messages and the
// active reservations in a few lines; a broken store, or no repository,
// is a one-line note, and the hook exits 0 whatever happens.
func TestStatusHookOutputShape(t *testing.T) {
	testgit.Isolate(t)
	repo := testgit.Init(t)
	as := func(droid string, args ...string) {
		t.Helper()
		if r := runIn(t, repo, map[string]string{"QUEEN_DROID": droid}, args...); r.Code != ExitOK {
			t.Fatalf("git queen %s: %d %s", strings.Join(args, " "), r.Code, r.Stderr)
		}
	}
	as("ann", "init")
	as("ann", "reserve", "src/**", "--reason", "auth")
	as("cat", "reserve", "docs/**", "--shared")
	for _, subject := range []string{"first", "second", "third", "the API moved\u202e"} {
		as("cat", "msg", "send", "ann", subject, "--new")
	}
	as("cat", "msg", "send", "ann", "urgent one", "--importance", "urgent")

	broken := testgit.Init(t)
	if r := runIn(t, broken, map[string]string{"QUEEN_DROID": "ann"}, "init"); r.Code != ExitOK {
		t.Fatal(r.Stderr)
	}
	log := filepath.Join(broken, ".git", "queen", records.MessagesFile)
	if err := os.Remove(log); err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	if err := os.MkdirAll(log, 0o755); err != nil { // a log that cannot be read
		t.Fatal(err)
	}

	for _, runtime := range []string{"claude", "codex", "gemini", "cursor"} {
		r := runHook(t, repo, "ann", runtime)
		if r.Code != ExitOK || r.Stderr != "" {
			t.Fatalf("%s: exit %d, stderr %q", runtime, r.Code, r.Stderr)
		}
		got := sessionContext(t, runtime, r.Stdout)
		for _, want := range []string{
			"git-queen: you are droid ann. 5 unread messages",
			"from cat, just now [urgent]: urgent one\n",
			"from cat, just now: the API moved \n", // a bidirectional override is not passed on
			"  ... and 2 more\n",
			"2 active reservations",
			"  - src/** by you, exclusive, expires in 2h0m\n",
			"  - docs/** by cat, shared, expires in 2h0m\n",
		} {
			if !strings.Contains(got, want) {
				t.Errorf("%s: context lacks %q:\n%s", runtime, want, got)
			}
		}
		if lines := strings.Count(got, "\n"); lines > 10 {
			t.Errorf("%s: %d lines, want a few:\n%s", runtime, lines, got)
		}

		for name, dir := range map[string]string{"broken store": broken, "no repository": t.TempDir()} {
			r := runHook(t, dir, "ann", runtime)
			if r.Code != ExitOK || r.Stderr != "" {
				t.Errorf("%s, %s: exit %d, stderr %q, want 0 and nothing", runtime, name, r.Code, r.Stderr)
				continue
			}
			note := sessionContext(t, runtime, r.Stdout)
			if !strings.HasPrefix(note, "git-queen: no status: ") || strings.Count(note, "\n") != 1 {
				t.Errorf("%s, %s: want a one-line note, got %q", runtime, name, note)
			}
		}
	}

	// A runtime status does not know is a usage error: a recipe with a
	// typo is found when it is set up.
	if r := runHook(t, repo, "ann", "vim"); r.Code != ExitUsage || !strings.Contains(r.Stderr, "one of claude, codex, cursor, gemini") {
		t.Errorf("--hook vim: exit %d, stderr %q", r.Code, r.Stderr)
	}
}
