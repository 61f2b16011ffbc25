package commands

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/git-queen/git-queen/internal/app"
	"github.com/git-queen/git-queen/internal/team/ledgersync"
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
	// sessions are the application's environments of this run, by the
	// globals that choose the droid and the store (session).
	sessions map[globals]*app.Env
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

// call is what a command line hands its run function: the Env, the
// global flags, and the app's request its flags filled (the request type
// the MCP server fills too), so a command is flags -> request -> print.
type call[R any] struct {
	Env *Env
	G   globals
	Req R
}

func readGlobals(c *cli.Context) globals {
	return globals{
		Droid:    globalDroid(c),
		BeadsDir: c.String("beads-dir"),
		JSON:     c.Bool("json"),
	}
}

// globalDroid is the droid the command acts as: its own --droid when it
// has one and it was given (reservations --agent bob, QueenBee's way),
// else the global one. c.String alone reads the flag set nearest the
// command that defines the flag, so a command's own --droid filter, unset,
// hid a global --droid given before the command, and the command acted as
// the configured droid (who was seen, and whose reservations ended early).
func globalDroid(c *cli.Context) string {
	for _, ctx := range c.Lineage() {
		if droid := ctx.String("droid"); droid != "" {
			return droid
		}
	}
	return ""
}

// session is the application's environment for a command run with g:
// one per --droid and --beads-dir, so that what runs after a use case
// (autosync) finds the workspace it found.
func (e *Env) session(g globals) *app.Env {
	key := globals{Droid: g.Droid, BeadsDir: g.BeadsDir}
	if a, ok := e.sessions[key]; ok {
		return a
	}
	a := &app.Env{Dir: e.Dir, Getenv: e.Getenv, Now: e.Now, Warn: e.Stderr, Ctx: e.Ctx, Droid: g.Droid, BeadsDir: g.BeadsDir,
		Withdrawn: func(res *ledgersync.Result) { printSync(&Env{Stdout: e.Stderr, Stderr: e.Stderr, Now: e.Now}, res) }}
	if e.sessions == nil {
		e.sessions = map[globals]*app.Env{}
	}
	e.sessions[key] = a
	return a
}

// printJSON writes v as indented JSON, the --json output of every command,
// unescaped by safeWriter: JSON escapes what it must, and safeWriter's \x7f
// is no JSON escape (st show --format json runs without --json).
func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(rawWriter(w))
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("write JSON output: %w", err)
	}
	return nil
}

// Identity is the droid a command run with --droid droid would act as:
// droid, else $QUEEN_DROID, else git config queen.droid; "" when none is
// set, or not valid (a call that needs one then says why). The MCP server
// resolves it once, at start.
func (e *Env) Identity(droid string) string { return e.session(globals{Droid: droid}).Identity() }
