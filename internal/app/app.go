// Package app is git-queen's application layer: the use cases a droid runs
// (reserve, send, wait, sync, validate, ...) as typed requests and results,
// called alike by the command line (internal/front/commands) and the MCP server
// (internal/front/mcpserver), so that both front ends decide nothing of their
// own. A use case opens what it needs and calls the domain packages; it
// knows nothing of flags, tool schemas or printing. Its result is what
// --json prints and what an MCP tool returns.
package app

import (
	"context"
	"io"
	"time"

	"github.com/git-queen/git-queen/internal/base/wording"
	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/storage/workspace"
	"github.com/git-queen/git-queen/internal/team/ledgersync"
)

// Env is where a use case runs: the directory, the environment, the clock,
// and the droid and store the caller named. A front end makes one per
// invocation (per tool call for the MCP server).
type Env struct {
	// Dir is the working directory paths are resolved against.
	Dir string
	// PathsFromTop reads the paths and patterns a request gives from the
	// top of the repository whatever Dir is, as an MCP tool's schema says
	// they are: the server's directory is not the agent's, and the
	// results name paths from the top. The command line reads them from
	// its directory, as git reads a pathspec.
	PathsFromTop bool
	// Getenv reads the environment (QUEEN_DROID, BEADS_DIR, QUEEN_TIMEOUT).
	Getenv func(string) string
	// Now is the clock.
	Now func() time.Time
	// Warn receives warnings for a person (a torn tail repaired, an
	// autosync that failed, QUEEN_TRACE's timings); io.Discard for none.
	Warn io.Writer
	// Ctx, when set, ends a use case that waits (wait) when it is done.
	Ctx context.Context
	// Droid and BeadsDir are what the caller named (--droid, --beads-dir);
	// "" for the defaults.
	Droid, BeadsDir string
	// Unseen says the use case notes no sighting of the droid it acts as:
	// reservations --droid NAME acts as NAME (QueenBee's --agent) to list
	// what NAME holds, which is no sign that NAME is alive.
	Unseen bool
	// Withdrawn, when set, is told of an autosync that withdrew this
	// clone's grants (the command line prints it; the write succeeded).
	Withdrawn func(*ledgersync.Result)

	// identityNote says why a configured identity was not used (it was
	// set for another worktree), for the error that asks for one.
	identityNote wording.Text
	// found remembers the workspace found, so that what runs after the
	// use case (autosync) does not search again.
	found map[workspace.Options]*workspace.Workspace
	// identity is Identity's answer, once identityDone: the droid a
	// presence record names after the use case.
	identity     string
	identityDone bool
	// identityFrom is where identity was found, for identityNote: "--droid",
	// "QUEEN_DROID", "QUEEN_AGENT" or "git config queen.droid".
	identityFrom string
	// started is when the use case began: a record created since is its own.
	started time.Time
}

// UseCase declares one use case: its command's name, whether it publishes
// what it writes, and what it does. Both front ends call Run.
type UseCase[Req, Res any] struct {
	// Name is the command's name ("msg send"), which a usage error names.
	Name string
	// Publishes says that queen.autosync publishes the records it writes
	// as soon as it succeeds (reserve, assign and claim publish by
	// themselves, through the remote).
	Publishes bool
	run       func(*Env, Req) (Res, error)
}

// Run runs the use case in e with req. On failure the result, when not
// nil, is what the refusal ran into (a reservation's conflicts, check's
// holders), for the caller to show beside the error.
func (u UseCase[Req, Res]) Run(e *Env, req Req) (Res, error) {
	e.started = records.Now(e.Now)
	res, err := u.run(e, req)
	e.notePresence()
	if err == nil && u.Publishes {
		e.Autosync()
	}
	return res, err
}

// UsageError is a mistake in how a use case was called (exit 2 on the
// command line, kind "usage" for an MCP tool). Command names the command
// whose help explains it. Msg says the parameters it names as the request
// does ("ttl"); Text lets a front end say them in its own words ("--ttl"),
// so that an MCP client is never told of a flag it cannot pass.
type UsageError struct {
	Command string
	Msg     string
	text    wording.Text // Msg before spelling (usagef)
}

func (e *UsageError) Error() string { return e.Msg }

// Text is the message, its parameters for a front end to spell.
func (e *UsageError) Text() wording.Text {
	if e.text.IsZero() {
		return wording.Textf("%s", e.Msg)
	}
	return e.text
}

// usagef is a usage error of command whose message is format with args
// (Sprintf's); the wording.Params among the args are the parameters it
// names.
func usagef(command, format string, args ...any) *UsageError {
	text := wording.Textf(format, args...)
	return &UsageError{Command: command, Msg: text.String(), text: text}
}

// ErrNoIdentity says how to set an identity, for use cases that need one:
// on the command line with --droid, QUEEN_DROID or the worktree's config;
// through the MCP server, whose agent cannot pass a flag, with the config
// (read at every call) or by starting the server again with one.
var ErrNoIdentity = usagef("", "no droid identity: %v%v",
	wording.CommandLineOnly(wording.Textf("pass --droid NAME, set QUEEN_DROID, "+
		"or run `git config --worktree queen.droid NAME` (git queen init --droid NAME does this)")),
	wording.ToolsOnly(wording.Textf("run `git config --worktree queen.droid NAME` in the worktree the server runs in "+
		"(git queen init --droid NAME does this), or start the server again with --droid NAME or QUEEN_DROID set")))

// ConflictError is an outcome its result describes that the caller should
// report as a conflict (exit 5): paths held by another droid (check), or
// grants a sync withdrew. Its message is the error it reports.
type ConflictError struct{ error }

// Unwrap is the error the conflict reports.
func (e *ConflictError) Unwrap() error { return e.error }

// conflict reports err as a conflict, keeping it for errors.As (and its
// wording for the front ends).
func conflict(err error) *ConflictError { return &ConflictError{err} }

// FailedError is an outcome its result describes that the caller should
// report as a failure (exit 1): files that are not valid. Its message is
// the error it reports.
type FailedError struct{ error }

// Unwrap is the error the failure reports.
func (e *FailedError) Unwrap() error { return e.error }

// failed reports err as a failure, keeping it for errors.As (and its
// wording for the front ends).
func failed(err error) *FailedError { return &FailedError{err} }

// pointerTo is a result's address, or nil with the error that stopped it.
func pointerTo[T any](v T, err error) (*T, error) {
	if err != nil {
		return nil, err
	}
	return &v, nil
}
