package gitrepo

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"
)

// Git runs git in dir and returns its standard output. The error carries
// git's own message.
func Git(dir string, args ...string) (string, error) { return Command{Dir: dir, Args: args}.Run() }

// GitInput is Git with input on the command's standard input ("" for
// none).
func GitInput(dir, input string, args ...string) (string, error) {
	return Command{Dir: dir, Args: args, Input: input}.Run()
}

// gitDo runs git in dir for what it does: only its error matters.
func gitDo(dir string, args ...string) error {
	_, err := Git(dir, args...)
	return err
}

// gitLine runs git in dir for the one line it prints (an id, a path),
// its spaces and newline trimmed.
func gitLine(dir string, args ...string) (string, error) {
	out, err := Git(dir, args...)
	return strings.TrimSpace(out), err
}

// Command is one run of the git command. Every package that starts git
// goes through it, so that each failure reads the same way (a
// *CommandError with git's own message) and there is one place to look
// for what git-queen asks of git.
//
// An argument that comes from a person, an agent or a remote (a remote's
// name or URL, a revision, a path) goes after "--" or "--end-of-options",
// or is refused by RefuseOption first, so that git never reads it as an
// option (--upload-pack=... runs a program). A test in this package scans
// every invocation in the module for it.
type Command struct {
	// Dir is where git runs ("" is the current directory).
	Dir  string
	Args []string
	// Input is the command's standard input ("" for none).
	Input string
	// Env is added to the process's environment.
	Env []string
	// Timeout, when set, bounds the command: git runs in a process group
	// of its own (with the ssh or http helper it starts), and the whole
	// group is killed when the time is up, or when this process is
	// interrupted. Every command that talks to a remote sets it.
	Timeout time.Duration
}

// waitDelay is how long a killed or finished command's output pipes may
// stay open, held by a process that left the group (an ssh ControlPersist
// master), before they are closed.
const waitDelay = 2 * time.Second

// Run runs the command and returns its standard output, also when it
// fails (some commands report per-ref outcomes there).
func (c Command) Run() (string, error) {
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	cmd := exec.CommandContext(ctx, "git", c.Args...)
	cmd.Dir = c.Dir
	if c.Input != "" {
		cmd.Stdin = strings.NewReader(c.Input)
	}
	cmd.Env = append(gitEnviron(), c.Env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	var interrupted func()
	if c.Timeout > 0 {
		ownProcessGroup(cmd)
		cmd.WaitDelay = waitDelay
		timer := time.AfterFunc(c.Timeout, func() { cancel(&TimeoutError{After: c.Timeout}) })
		defer timer.Stop()
		interrupted = cancelOnInterrupt(cancel)
	}
	out, err := cmd.Output()
	if interrupted != nil {
		defer interrupted() // after the process is gone: re-raise a signal it took
	}
	if cause := context.Cause(ctx); cause != nil && err != nil {
		err = cause
	} else if errors.Is(err, exec.ErrWaitDelay) && cmd.ProcessState != nil && cmd.ProcessState.Success() {
		err = nil // git succeeded; a helper it left behind held the pipes
	}
	if err != nil {
		return string(out), &CommandError{Args: c.Args, Stderr: strings.TrimSpace(stderr.String()), Err: err}
	}
	return string(out), nil
}

// gitEnviron is the environment git runs in: this process's, with replace
// refs (git replace) ignored, since git commits and pushes the objects
// named, and one replaced would show the hooks another commit's changes.
func gitEnviron() []string { return append(os.Environ(), "GIT_NO_REPLACE_OBJECTS=1") }

// TimeoutError is a command that did not finish in its time and was
// killed, with every process it started.
type TimeoutError struct {
	After time.Duration
}

func (e *TimeoutError) Error() string { return fmt.Sprintf("no answer within %s; stopped it", e.After) }

// InterruptedError is a command killed because this process was
// interrupted while it ran.
type InterruptedError struct {
	Signal os.Signal
}

func (e *InterruptedError) Error() string { return fmt.Sprintf("interrupted (%v)", e.Signal) }

// IsTimeout reports whether err is a command that ran out of time.
func IsTimeout(err error) bool {
	_, ok := errors.AsType[*TimeoutError](err)
	return ok
}

// CommandError is a git command that failed: its message is git's own
// (what a person can act on), and errors.As still finds the
// *exec.ExitError for callers that branch on the exit status.
type CommandError struct {
	Args   []string
	Stderr string
	Err    error
}

func (e *CommandError) Error() string {
	msg := e.Stderr
	if msg == "" || IsTimeout(e.Err) {
		msg = e.Err.Error()
	}
	return fmt.Sprintf("git %s: %s", shownArgs(e.Args), msg)
}

// shownArgs is a command line as an error shows it: whole, unless it is
// longer than a person reads (a pre-push's rev-list of 50,000 remote
// tips made a 2 MB error), then its start and how many arguments it had.
func shownArgs(args []string) string {
	const most = 400
	line := strings.Join(args, " ")
	if len(line) <= most {
		return line
	}
	cut := strings.LastIndexByte(line[:most], ' ')
	if cut < 0 {
		cut = most
	}
	return fmt.Sprintf("%s ... (%d arguments)", strings.ToValidUTF8(line[:cut], ""), len(args))
}

// Unwrap returns the *exec.ExitError, the start failure, or the
// *TimeoutError.
func (e *CommandError) Unwrap() error { return e.Err }
