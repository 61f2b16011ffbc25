package commands

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/git-queen/git-queen/internal/gitrepo"
	"github.com/git-queen/git-queen/internal/workspace"
)

// Env is everything a command touches besides its arguments. Commands get it
// injected, so tests run them in-process with buffers, a fake clock and a
// temporary directory.
type Env struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	// Getenv reads the environment (QUEEN_DROID, BEADS_DIR, NO_COLOR).
	Getenv func(string) string
	// Environ lists the environment, for what is known only by a prefix
	// (the GITHEAD_<id> variables git merge gives its hooks); nil is none.
	Environ func() []string
	// Dir is the working directory commands resolve paths against.
	Dir string
	// Now is the clock.
	Now func() time.Time
	// Terminal is true when Stdout is a terminal (colour, relative times).
	Terminal bool
	// Ctx, when set, ends a command that waits (msg wait) when it is done:
	// the MCP server cancels a tool call this way.
	Ctx context.Context
	// identityNote says why a configured identity was not used (it was
	// set for another worktree), for the error that asks for one.
	identityNote string
	// found remembers the workspace found for a command, so that what
	// runs after it (autosync) does not search again.
	found map[workspace.Options]*workspace.Workspace
}

// OSEnv is the Env of a real process.
func OSEnv() *Env {
	dir, err := os.Getwd()
	if err != nil {
		dir = "."
	}
	return &Env{
		Stdin:    os.Stdin,
		Stdout:   os.Stdout,
		Stderr:   os.Stderr,
		Getenv:   os.Getenv,
		Environ:  os.Environ,
		Dir:      dir,
		Now:      clockFromEnv(),
		Terminal: isTerminal(os.Stdout),
	}
}

// clockFromEnv is time.Now, or the fixed instant QUEEN_NOW names (RFC
// 3339): the end-to-end tests give the processes they start one clock, so
// that what they print ("expires in 2h0m") does not depend on how fast the
// machine runs them.
func clockFromEnv() func() time.Time {
	if v := os.Getenv("QUEEN_NOW"); v != "" {
		if t, err := time.Parse(time.RFC3339Nano, v); err == nil {
			return func() time.Time { return t }
		}
	}
	return time.Now
}

func isTerminal(f *os.File) bool {
	info, err := f.Stat()
	return err == nil && info.Mode()&os.ModeCharDevice != 0
}

// globals are the flags every command accepts.
type globals struct {
	Droid    string
	BeadsDir string
	JSON     bool
}

func readGlobals(c *cli.Context) globals {
	return globals{
		Droid:    c.String("droid"),
		BeadsDir: c.String("beads-dir"),
		JSON:     c.Bool("json"),
	}
}

// workspace finds the store directory for a command.
func (e *Env) workspace(g globals) (*workspace.Workspace, error) {
	o := workspace.Options{Flag: g.BeadsDir, Env: e.Getenv("BEADS_DIR"), Dir: e.Dir}
	if ws, ok := e.found[o]; ok {
		return ws, nil
	}
	ws, err := workspace.Find(o)
	if err != nil {
		return nil, err
	}
	if e.found == nil {
		e.found = map[workspace.Options]*workspace.Workspace{}
	}
	e.found[o] = ws
	return ws, nil
}

// identity is the droid the command acts as: --droid, else QUEEN_DROID,
// else `git config queen.droid` (which `git config --worktree` can set per
// worktree). It returns "" when none is set. The repository's own config
// files are read directly (where init puts the identity); git is asked
// only when they do not set it (a global setting, an include).
func (e *Env) identity(g globals) string {
	if g.Droid != "" {
		return g.Droid
	}
	for _, name := range []string{"QUEEN_DROID", "QUEEN_AGENT"} { // QUEEN_AGENT: QueenBee's name
		if d := strings.TrimSpace(e.Getenv(name)); d != "" {
			return d
		}
	}
	cfg := gitrepo.ReadConfigIn(e.Dir)
	d, _ := cfg.Get("queen.droid")
	if d = strings.TrimSpace(d); d != "" && (cfg.Scope("queen.droid") == gitrepo.ScopeLocal || cfg.Scope("queen.droid") == gitrepo.ScopeWorktree) {
		if repo, err := gitrepo.Discover(e.Dir); err == nil {
			if other := copiedIdentity(repo); other != "" {
				e.identityNote = fmt.Sprintf("this worktree's queen.droid (%s) was set for the worktree whose git directory is %s "+
					"and copied here by git worktree add; give this worktree its own: git queen init --droid NAME", d, other)
				return ""
			}
		}
	}
	return d
}

// errNoIdentity says how to set an identity, for commands that need one.
var errNoIdentity = &UsageError{Msg: "no droid identity: pass --droid NAME, set QUEEN_DROID, " +
	"or run `git config --worktree queen.droid NAME` (git queen init --droid NAME does this)"}

// requireIdentity is identity for commands that cannot act as nobody.
func (e *Env) requireIdentity(g globals) (string, error) {
	if d := e.identity(g); d != "" {
		return d, nil
	}
	if e.identityNote != "" {
		return "", &UsageError{Msg: "no droid identity: " + e.identityNote}
	}
	return "", errNoIdentity
}

// copiedIdentity is the git directory of the worktree the configured
// identity was set for, when that is not this worktree's (git worktree add
// copies config.worktree, and with it the creator's identity); "" when
// the identity is this worktree's own, or says nothing of where it was set.
func copiedIdentity(repo *gitrepo.Repo) string {
	setFor, ok := repo.LocalConfig("queen.droidfor")
	if !ok || strings.TrimSpace(setFor) == "" {
		return ""
	}
	setFor = strings.TrimSpace(setFor)
	if filepath.Clean(setFor) == filepath.Clean(repo.GitDir) {
		return ""
	}
	return setFor
}

// printJSON writes v as indented JSON, the --json output of every command.
func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("write JSON output: %w", err)
	}
	return nil
}

// Identity is the droid a command run with --droid droid would act as:
// droid, else $QUEEN_DROID, else git config queen.droid; "" when none is
// set. The MCP server resolves it once, at start.
func (e *Env) Identity(droid string) string { return e.identity(globals{Droid: droid}) }

// WithIO is a copy of e that reads stdin, writes stdout and stderr, and
// stops waiting commands when ctx ends: one in-process run of a command
// among concurrent ones (the MCP server's tool calls).
func (e *Env) WithIO(ctx context.Context, stdin io.Reader, stdout, stderr io.Writer) *Env {
	c := *e
	c.Stdin, c.Stdout, c.Stderr, c.Ctx, c.Terminal = stdin, stdout, stderr, ctx, false
	c.found = nil
	return &c
}
