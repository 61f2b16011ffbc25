package commands

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/git-queen/git-queen/internal/app"
	"github.com/git-queen/git-queen/internal/base/globs"
	"github.com/git-queen/git-queen/internal/base/wording"
	"github.com/git-queen/git-queen/internal/domain/assignments"
	"github.com/git-queen/git-queen/internal/domain/reservations"
	"github.com/git-queen/git-queen/internal/format/records"
)

// The exit codes of the command-line contract (DESIGN.md).
const (
	ExitOK       = 0
	ExitFailure  = 1
	ExitUsage    = 2
	ExitConflict = 5
)

// exitCoder is implemented by errors that choose their own exit code, such
// as a reservation conflict (5).
type exitCoder interface {
	ExitCode() int
}

// UsageError is a mistake in how the command was called: exit 2, and a
// pointer to the command's help.
type UsageError = app.UsageError

func usageErrorf(format string, args ...any) error {
	return &UsageError{Msg: fmt.Sprintf(format, args...)}
}

// SilentError carries an exit code for a command that has already printed
// what went wrong (a failed check, a refused commit).
type SilentError struct{ Code int }

func (e *SilentError) Error() string { return fmt.Sprintf("exit status %d", e.Code) }

// ExitCode returns the code the command chose.
func (e *SilentError) ExitCode() int { return e.Code }

// exitCode is the one place that maps an error to the process exit code.
func exitCode(err error) int {
	if err == nil {
		return ExitOK
	}
	var ec exitCoder
	switch {
	case errors.As(err, &ec) && !isProcessExit(ec):
		return ec.ExitCode()
	case errors.As(err, new(*UsageError)):
		return ExitUsage
	case errors.As(err, new(*app.ConflictError)):
		return ExitConflict
	case errors.As(err, new(*records.InvalidError)), errors.As(err, new(*globs.PatternError)):
		return ExitUsage
	case errors.As(err, new(*reservations.ConflictError)), errors.As(err, new(*assignments.AlreadyAssignedError)),
		errors.As(err, new(*records.ForceNeededError)): // another droid's, as a conflict's; --force overrides both
		return ExitConflict
	}
	return ExitFailure
}

// isProcessExit says whether ec is a child process's exit (a git command
// that failed), whose code is the child's: git config exits 5, or 255, and
// git-queen's 5 means a reservation conflict. It is a failure (1).
func isProcessExit(ec exitCoder) bool {
	_, ok := ec.(*exec.ExitError)
	return ok
}

// reportError prints err for a person: "git-queen: " and the message, plus a
// hint to the help for usage errors. Silent errors print nothing.
func reportError(w io.Writer, err error) {
	if errors.As(err, new(*SilentError)) {
		return
	}
	fmt.Fprintf(w, "git-queen: %s\n", message(err))
	if usage, ok := errors.AsType[*UsageError](err); ok {
		help := "git queen --help"
		if usage.Command != "" {
			help = "git queen " + usage.Command + " --help"
		}
		fmt.Fprintf(w, "Run '%s' for usage.\n", help)
	}
}

// ErrorJSON is the one object a failure prints on stderr under --json, so
// a calling program reads the outcome instead of scraping a sentence, and
// the error of a failed MCP tool call.
type ErrorJSON struct {
	Code int `json:"code"`
	// Kind names the exit code's meaning: conflict (5), usage (2), failure.
	Kind    string `json:"kind"`
	Message string `json:"message"`
	// Command is the command whose help explains a usage error.
	Command string `json:"command,omitempty"`
	// Conflicts are the reservations a refused reservation overlapped.
	Conflicts []reservations.Conflict `json:"conflicts,omitempty"`
}

// ErrorKind is the name of an exit code's meaning in --json errors and
// MCP tool errors: conflict (5), usage (2), failure (anything else).
func ErrorKind(code int) string {
	switch code {
	case ExitConflict:
		return "conflict"
	case ExitUsage:
		return "usage"
	}
	return "failure"
}

// reportErrorJSON prints err as {"error": {...}} on w. A silent error's
// command has already printed its outcome (on stdout, as JSON).
func reportErrorJSON(w io.Writer, err error) {
	if errors.As(err, new(*SilentError)) {
		return
	}
	e := ErrorOf(err)
	e.Message = message(err)
	b, merr := json.Marshal(map[string]ErrorJSON{"error": e})
	if merr != nil {
		reportError(w, err)
		return
	}
	fmt.Fprintf(w, "%s\n", b)
}

// message is err's message in the command line's words: the parameters
// and calls it names (a wording.Error) are said as the flags that set them
// (--ttl) and the commands to run (git queen msg send).
func message(err error) string {
	msg := err.Error()
	if worded, ok := errors.AsType[wording.Error](err); ok {
		msg = strings.Replace(msg, worded.Error(), worded.Text().In(commandLine), 1)
	}
	return clipLines(strings.TrimRight(msg, "\n"))
}

// maxLineShown bounds a line of an error message: an argument of 100 KB
// quoted back whole (an unknown command, a --since that is no time) buried
// what the message says under it.
const maxLineShown = 2000

// clipLines cuts the middle out of each line of msg longer than
// maxLineShown bytes, saying how much it left out: the line's end says
// why the argument is refused, which a cut of its tail lost.
func clipLines(msg string) string {
	lines := strings.Split(msg, "\n")
	for i, line := range lines {
		if len(line) > maxLineShown {
			cut, keep := maxLineShown/2, len(line)-maxLineShown/2
			for n := 1; n < utf8.UTFMax && !utf8.RuneStart(line[cut]); n++ {
				cut--
			}
			for n := 1; n < utf8.UTFMax && !utf8.RuneStart(line[keep]); n++ {
				keep++
			}
			lines[i] = fmt.Sprintf("%s ... (%d bytes left out) ... %s", line[:cut], keep-cut, line[keep:])
		}
	}
	return strings.Join(lines, "\n")
}

// commandLine are the command line's words for what a message names.
var commandLine = wording.CommandLine(flagOf)

// flagOf is the flag that sets the request's parameter p: --p with dashes
// for underscores, but for those the command line names otherwise.
func flagOf(p wording.Param) string {
	if flag, ok := flagsNamedOtherwise[p]; ok {
		return flag
	}
	return "--" + strings.ReplaceAll(string(p), "_", "-")
}

// flagsNamedOtherwise are the flags whose names are not their parameters'.
var flagsNamedOtherwise = map[wording.Param]string{"wait_timeout": "--timeout", "streams": "--stream", "subject": "--subject (-s)",
	"patterns": "PATTERNs", "paths": "PATHs", "id": "ID"} // arguments, not flags

// ErrorOf is err as ErrorJSON: its exit code, the code's kind, its
// message (parameters named as a request names them: an MCP tool's
// arguments), and the command and conflicts it names.
func ErrorOf(err error) ErrorJSON {
	code := exitCode(err)
	e := ErrorJSON{Code: code, Kind: ErrorKind(code), Message: clipLines(strings.TrimRight(err.Error(), "\n"))}
	if usage, ok := errors.AsType[*UsageError](err); ok {
		e.Command = usage.Command
	}
	if conflict, ok := errors.AsType[*reservations.ConflictError](err); ok {
		e.Conflicts = conflict.Conflicts
	}
	return e
}

// wantsJSON reports whether the command line asked for --json (before any
// "--"), which decides how a failure is reported even when the failure is
// in parsing the rest of the line. The flag is a boolean like any other
// (--json=1, --json=t); the last one counts, as the parser reads them.
func wantsJSON(args []string) bool {
	want := false
	for _, a := range args {
		if a == "--" {
			break
		}
		flag, ok := strings.CutPrefix(a, "-")
		flag = strings.TrimPrefix(flag, "-")
		name, value, valued := strings.Cut(flag, "=")
		if ok && name == "json" {
			want = true
			if valued {
				want, _ = strconv.ParseBool(value)
			}
		}
	}
	return want
}
