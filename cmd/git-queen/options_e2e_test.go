package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/git-queen/git-queen/internal/testgit"
)

// hostileArgs are values that make git run a program (each creates
// canary) if git reads them as options, or as a URL that runs a program.
func hostileArgs(canary string) []string {
	return []string{
		"--upload-pack=touch " + canary + ";:",
		"--receive-pack=touch " + canary + ";:",
		"--output=" + canary,
		"-oProxyCommand=touch " + canary + ":x",
		"ext::sh -c touch% " + canary,
		"fd::0",
		"ssh://-oProxyCommand=touch%20" + canary + "/x",
		"git@-oProxyCommand=touch%20PWNED:x", // scp-like only with no '/' before the ':'
	}
}

// optionsFixture is a clone set up with a real file remote, so that every
// command that talks to a remote gets as far as git.
func optionsFixture(t *testing.T) (dir, canary string) {
	t.Helper()
	t.Parallel()
	r := testgit.FileRemote(t)
	seedRemote(t, r)
	dir = queenClone(t, r, "ann")
	canary = filepath.Join(t.TempDir(), "PWNED")
	// The payload is live: given to git as an option, it runs.
	if _, err := gitProc(dir, "fetch", "--upload-pack=touch "+canary+";:", "origin"); err == nil {
		t.Log("git fetch with --upload-pack succeeded")
	}
	if _, err := os.Stat(canary); err != nil {
		t.Fatalf("the canary payload did not run when given to git directly (%v): the test would prove nothing", err)
	}
	os.Remove(canary)
	return dir, canary
}

func assertNothingRan(t *testing.T, canary, what string) {
	t.Helper()
	if _, err := os.Stat(canary); err == nil {
		os.Remove(canary)
		t.Errorf("%s ran the payload: %s exists", what, canary)
	}
}

// Option-shaped and program-running remotes, revisions and ref lines,
// given to every command that starts git, run nothing and get a clear
// error: sync's REMOTE, queen.remote (sync, reserve, autosync, doctor),
// init --remote, resolve --octopus's branches, the pre-push hook's input;
// and commands that take paths or patterns never hand them to git.
func TestOptionShapedArgumentsRunNothing(t *testing.T) {
	dir, canary := optionsFixture(t)
	type probe struct {
		args  []string
		stdin string
		setup func(t *testing.T, v string) // before the command, undone after
		// want, when set, must be in stderr (and the exit non-zero).
		want []string
	}
	setRemote := func(t *testing.T, v string) {
		testgit.Run(t, dir, "config", "--local", "--", "queen.remote", v)
		t.Cleanup(func() { testgit.Run(t, dir, "config", "--local", "--", "queen.remote", "origin") })
	}
	refused := []string{"starts with '-'", "remote helper", "its host", "does not fetch over", "its user", "control character"}
	zero := strings.Repeat("0", 40)
	for _, v := range hostileArgs(canary) {
		probes := []probe{
			{args: []string{"sync", "--", v}, want: refused},
			{args: []string{"sync", "--json", "--", v}, want: refused},
			{args: []string{"sync"}, setup: setRemote, want: refused},
			{args: []string{"reserve", "src/**", "-x"}, setup: setRemote, want: refused},
			{args: []string{"doctor"}, setup: setRemote},
			{args: []string{"init", "--remote", v}},
			{args: []string{"resolve", "--octopus", "--", v, "main"}},
			{args: []string{"hook", "pre-push", "origin", "x"}, stdin: "refs/heads/main " + v + " refs/heads/main " + zero + "\n",
				want: []string{"unexpected line"}},
			{args: []string{"hook", "pre-push", "origin", "x"}, stdin: "refs/heads/main " + strings.Repeat("a", 40) + " refs/heads/main " + v + "\n",
				want: []string{"unexpected line"}},
			{args: []string{"check", "--", v}},
			{args: []string{"reserve", "--offline", "--", v}},
			{args: []string{"validate", "--", v}},
			{args: []string{"resolve", "--", v}},
			{args: []string{"reservations", "--path", v}},
		}
		for _, p := range probes {
			t.Run(strings.Join(p.args, " ")+" "+v, func(t *testing.T) {
				if p.setup != nil {
					p.setup(t, v)
				}
				cmd := queenCmd(dir, "ann", p.args...)
				cmd.Stdin = strings.NewReader(p.stdin)
				out, _ := cmd.CombinedOutput()
				assertNothingRan(t, canary, "git queen "+strings.Join(p.args, " "))
				if len(p.want) == 0 {
					return
				}
				if cmd.ProcessState.ExitCode() == 0 {
					t.Fatalf("exit 0; want a refusal:\n%s", out)
				}
				if !containsAny(string(out), p.want) {
					t.Errorf("the error does not say what is wrong (want one of %q):\n%s", p.want, out)
				}
			})
		}
	}
	// Nothing a refusal touched stops the clone: it still syncs.
	mustQueen(t, dir, "ann", "sync")
}

// The MCP server's tools, every string an agent fills set to each hostile
// value, run nothing; sync refuses the remote with a usage error that
// says why.
func TestMCPToolsRunNothingFromOptionShapedInput(t *testing.T) {
	dir, canary := optionsFixture(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	s := mcpSession(t, ctx, dir, "ann")
	tools, err := s.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range hostileArgs(canary) {
		for _, tool := range tools.Tools {
			var schema struct {
				Properties map[string]struct {
					Type json.RawMessage `json:"type"` // "string", or ["null","array"]
				} `json:"properties"`
			}
			b, _ := json.Marshal(tool.InputSchema)
			if err := json.Unmarshal(b, &schema); err != nil {
				t.Fatalf("%s: schema %s: %v", tool.Name, b, err)
			}
			args := map[string]any{}
			for name, prop := range schema.Properties {
				switch {
				case name == "timeout":
					args[name] = "10ms" // wait returns at once
				case strings.Contains(string(prop.Type), `"string"`):
					args[name] = v
				case strings.Contains(string(prop.Type), `"array"`):
					args[name] = []string{v}
				}
			}
			res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: tool.Name, Arguments: args})
			if err != nil {
				t.Fatalf("%s %v: %v", tool.Name, args, err)
			}
			assertNothingRan(t, canary, "the MCP tool "+tool.Name+" with "+v)
			if tool.Name != "sync" {
				continue
			}
			var out map[string]any
			b, _ = json.Marshal(res.StructuredContent)
			json.Unmarshal(b, &out)
			kind, code := errorOf(out)
			msg, _ := out["error"].(map[string]any)["message"].(string)
			if !res.IsError || kind != "usage" || code != 2 || !containsAny(msg, []string{"starts with '-'", "remote helper", "its host", "its user"}) {
				t.Errorf("sync {remote: %q}: error=%v %v", v, res.IsError, out)
			}
		}
	}
	if out, isErr := call(t, ctx, s, "sync", map[string]any{}); isErr {
		t.Errorf("a plain sync after the hostile calls failed: %v", out)
	}
}

func containsAny(s string, subs []string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}
