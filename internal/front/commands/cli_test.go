package commands

import (
	"bytes"
	"errors"
	"fmt"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/gitrepo"
	"github.com/git-queen/git-queen/internal/testgit"
)

// result is what one in-process invocation produced.
type result struct {
	Stdout, Stderr string
	Code           int
}

// runIn runs git-queen in-process in dir with the given environment
// variables (nothing else from the machine) and a fixed clock.
func runIn(t *testing.T, dir string, env map[string]string, args ...string) result {
	t.Helper()
	var stdout, stderr bytes.Buffer
	e := &Env{
		Stdin:  strings.NewReader(""),
		Stdout: &stdout,
		Stderr: &stderr,
		Getenv: func(k string) string { return env[k] },
		Dir:    dir,
		Now:    func() time.Time { return time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC) },
	}
	code := Run(e, append([]string{"git-queen"}, args...))
	return result{stdout.String(), stderr.String(), code}
}

func TestReorderArgs(t *testing.T) {
	app := &cli.App{
		Name:  "git-queen",
		Flags: globalFlags(),
		Commands: []*cli.Command{
			{Name: "reserve", Flags: []cli.Flag{
				&cli.BoolFlag{Name: "exclusive", Aliases: []string{"x"}},
				&cli.DurationFlag{Name: "ttl"},
				&cli.StringFlag{Name: "reason"},
			}},
			{Name: "msg", Subcommands: []*cli.Command{
				{Name: "send", Flags: []cli.Flag{&cli.StringFlag{Name: "to"}, &cli.StringFlag{Name: "body-file"}}},
			}},
			{Name: "raw", SkipFlagParsing: true},
			{Name: "merge-driver", Flags: []cli.Flag{&cli.StringFlag{Name: "format"}}},
		},
	}
	tests := []struct{ in, want string }{
		{"reserve src/** --exclusive", "reserve --exclusive -- src/**"},
		{"reserve src/** --ttl 1h docs/* -x", "reserve --ttl 1h -x -- src/** docs/*"},
		{"reserve --reason=why src/**", "reserve --reason=why -- src/**"},
		{"reserve src/** --json --droid bob", "--json --droid bob reserve -- src/**"},
		{"--json reserve a", "--json reserve -- a"},
		{"reserve a -- --not-a-flag", "reserve -- a --not-a-flag"},
		{"msg send --to bob --body-file - extra", "msg send --to bob --body-file - -- extra"},
		{"msg send x --body-file -", "msg send --body-file - -- x"},
		{"reserve --bogus a", "reserve --bogus -- a"},
		{"reserve", "reserve"},
		{"raw --x y", "raw --x y"},
		{"msg unknown --json", "msg unknown --json"},
		{"msg --json send --to bob", "--json msg send --to bob"},
		{"msg --help --json", "--json msg --help"},
		{"msg --droid bob send x", "--droid bob msg send -- x"},
		{"unknown --json a", "unknown --json a"},
		// git's own argv: a path that starts with '-' is an argument.
		{"merge-driver o a b 7 -x/.work/log.jsonl", "merge-driver -- o a b 7 -x/.work/log.jsonl"},
		{"merge-driver --format queen o a b 7 --x", "merge-driver --format queen -- o a b 7 --x"},
		{"merge-driver o a b 7 --", "merge-driver -- o a b 7 --"},
	}
	for _, tt := range tests {
		got := reorderArgs(app, append([]string{"git-queen"}, strings.Fields(tt.in)...))
		want := append([]string{"git-queen"}, strings.Fields(tt.want)...)
		if !slices.Equal(got, want) {
			t.Errorf("reorderArgs(%s) = %q, want %q", tt.in, got[1:], want[1:])
		}
	}
}

func TestExitCodes(t *testing.T) {
	testgit.Isolate(t)
	dir := t.TempDir()
	tests := []struct {
		args       []string
		code       int
		stdout     string
		stderrHint string
	}{
		{[]string{"--version"}, ExitOK, "git-queen version ", ""},
		{[]string{"-h"}, ExitOK, "Exit codes: 0 success", ""},
		{[]string{}, ExitOK, "USAGE", ""},
		{[]string{"bogus"}, ExitUsage, "", "unknown command \"bogus\""},
		{[]string{"--bogus"}, ExitUsage, "", "Run 'git queen --help' for usage."},
		{[]string{"man", "--bogus"}, ExitUsage, "", "Run 'git queen man --help' for usage."},
		{[]string{"man"}, ExitOK, ".TH", ""},
	}
	for _, tt := range tests {
		r := runIn(t, dir, nil, tt.args...)
		if r.Code != tt.code || !strings.Contains(r.Stdout, tt.stdout) || !strings.Contains(r.Stderr, tt.stderrHint) {
			t.Errorf("git queen %s: code %d, stdout %.80q, stderr %q", strings.Join(tt.args, " "), r.Code, r.Stdout, r.Stderr)
		}
	}
}

func TestExitCodeMapping(t *testing.T) {
	// git's own exit code is git's, not git-queen's: `git config
	// --unset-all` of a key with no value exits 5, which read as a
	// reservation conflict, and a locked config file exits 255.
	testgit.Isolate(t)
	repo := testgit.Init(t)
	_, gitExit5 := gitrepo.Git(repo, "config", "--local", "--unset-all", "--", "queen.nosuchkey", "x")
	if gitExit5 == nil {
		t.Fatal("git config --unset-all of a missing key succeeded")
	}
	tests := []struct {
		err  error
		code int
	}{
		{nil, 0},
		{gitExit5, 1},
		{fmt.Errorf("set up the driver: %w", gitExit5), 1},
		{usageErrorf("x"), 2},
		{&SilentError{Code: 5}, 5},
		{errConflictForTest{}, 5},
		{fmt.Errorf("release: %w", &records.ForceNeededError{Verb: "release"}), 5},
		{bytes.ErrTooLarge, 1},
		// git refusing (128: another user's repository, a corrupt one)
		// under a failed command is a failure, not an exit code of its own.
		{gitFailure(t), 1},
		{fmt.Errorf("set up: %w", gitFailure(t)), 1},
	}
	for _, tt := range tests {
		if got := exitCode(tt.err); got != tt.code {
			t.Errorf("exitCode(%v) = %d, want %d", tt.err, got, tt.code)
		}
	}
}

type errConflictForTest struct{}

func (errConflictForTest) Error() string { return "conflict" }
func (errConflictForTest) ExitCode() int { return ExitConflict }

// A mistyped flag is named with the nearest real one, and a usage error a
// command returns points at that command's help, not the top level's.
func TestUsageErrorsSuggestAndPointAtTheCommand(t *testing.T) {
	testgit.Isolate(t)
	dir := testgit.Init(t)
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"reserve", "--tll", "2h", "x"}, []string{"unknown flag --tll; did you mean --ttl?", "git queen reserve --help"}},
		{[]string{"--jsn", "reservations"}, []string{"unknown flag --jsn; did you mean --json?", "git queen --help"}},
		{[]string{"msg", "send", "--too", "bob"}, []string{"did you mean --to?", "git queen msg send --help"}},
		{[]string{"reserve", "--zzzzzz", "x"}, []string{"unknown flag --zzzzzz\n"}},
		{[]string{"archive", "--before", "yesterday"}, []string{"git queen archive --help"}},
	} {
		r := runIn(t, dir, nil, c.args...)
		if r.Code != ExitUsage {
			t.Errorf("%v: exit %d, want %d\n%s", c.args, r.Code, ExitUsage, r.Stderr)
		}
		for _, w := range c.want {
			if !strings.Contains(r.Stderr, w) {
				t.Errorf("%v: stderr lacks %q:\n%s", c.args, w, r.Stderr)
			}
		}
	}
}

// TestCommandTableNamesTheCommandsItBuilds keeps commandTable's names
// true: a run whose first argument is a name builds only that row.
func TestCommandTableNamesTheCommandsItBuilds(t *testing.T) {
	env := &Env{Getenv: func(string) string { return "" }}
	seen := map[string]bool{}
	for _, g := range commandTable {
		var built []string
		for _, c := range g.build(env) {
			built = append(built, c.Names()...)
		}
		want := strings.Fields(g.names)
		slices.Sort(built)
		slices.Sort(want)
		if !slices.Equal(built, want) {
			t.Errorf("commandTable row %q builds commands named %q", g.names, built)
		}
		for _, n := range want {
			if seen[n] {
				t.Errorf("%q is in two rows of commandTable", n)
			}
			seen[n] = true
		}
	}
}

// TestOneCommandRunsAsInTheWholeTree: a run that builds only the command
// it names (the command first) prints what the whole tree (a global flag
// first, --droid ann, which QUEEN_DROID says anyway) prints, for every
// command's help, usage errors and real runs.
func TestOneCommandRunsAsInTheWholeTree(t *testing.T) {
	dir := testgit.Init(t)
	env := map[string]string{"QUEEN_DROID": "ann"}
	cases := [][]string{
		{"msg", "send", "--help"}, {"msg", "sedn"}, {"msg"}, {"msg", "send", "--to", "bob", "--nope"},
		{"msg", "send", "--to", "bob", "--new", "--subject", "hi"}, {"msg", "inbox"},
		{"reserve", "--exclusiv", "a"}, {"reserved"}, {"who"}, {"hook", "--help"}, {"st", "--help"},
	}
	for _, g := range commandTable {
		for _, name := range strings.Fields(g.names) {
			cases = append(cases, []string{name, "--help"}, []string{name, "-h"})
		}
	}
	for _, args := range cases {
		whole := runIn(t, dir, env, append([]string{"--droid", "ann"}, args...)...)
		alone := runIn(t, dir, env, args...)
		anyID := regexp.MustCompile(`qm-[0-9A-Z]{26}`)
		whole.Stdout, alone.Stdout = anyID.ReplaceAllString(whole.Stdout, "qm-ID"), anyID.ReplaceAllString(alone.Stdout, "qm-ID")
		if alone != whole {
			t.Errorf("git queen %s: alone %+v, in the whole tree %+v", strings.Join(args, " "), alone, whole)
		}
	}
}

// gitFailure is the error of a git command that exits 128.
func gitFailure(t *testing.T) error {
	t.Helper()
	_, err := gitrepo.Git(t.TempDir(), "--git-dir=/nonexistent/.git", "rev-parse", "--git-dir")
	if exit, ok := errors.AsType[*exec.ExitError](err); !ok || exit.ExitCode() != 128 {
		t.Fatalf("git rev-parse in no repository: %v", err)
	}
	return err
}
