package cli

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/git-queen/git-queen/internal/globs"
	"github.com/git-queen/git-queen/internal/records"
	"github.com/git-queen/git-queen/internal/reservations"
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
type UsageError struct {
	Command string
	Msg     string
}

func (e *UsageError) Error() string { return e.Msg }

// ExitCode makes a usage error exit with 2.
func (e *UsageError) ExitCode() int { return ExitUsage }

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
	if errors.As(err, &ec) {
		return ec.ExitCode()
	}
	var invalid *records.InvalidError
	if errors.As(err, &invalid) {
		return ExitUsage
	}
	var badPattern *globs.PatternError
	if errors.As(err, &badPattern) {
		return ExitUsage
	}
	var conflict *reservations.ConflictError
	if errors.As(err, &conflict) {
		return ExitConflict
	}
	return ExitFailure
}

// reportError prints err for a person: "git-queen: " and the message, plus a
// hint to the help for usage errors. Silent errors print nothing.
func reportError(w io.Writer, err error) {
	var silent *SilentError
	if errors.As(err, &silent) {
		return
	}
	msg := strings.TrimRight(err.Error(), "\n")
	fmt.Fprintf(w, "git-queen: %s\n", msg)
	var usage *UsageError
	if errors.As(err, &usage) {
		help := "git queen --help"
		if usage.Command != "" {
			help = "git queen " + usage.Command + " --help"
		}
		fmt.Fprintf(w, "Run '%s' for usage.\n", help)
	}
}
