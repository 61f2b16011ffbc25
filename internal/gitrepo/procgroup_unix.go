//go:build unix

package gitrepo

import (
	"context"
	"os"
	"os/exec"
	"os/signal"
	"sync"
	"syscall"
	"time"
)

// reraiseGrace is how long a re-raised signal has to end the process
// before the interrupted command returns its error.
const reraiseGrace = time.Second

// ownProcessGroup starts cmd in a process group of its own, so that
// cancelling it kills git and every helper it started (ssh,
// git-remote-http, a credential helper): killing git alone would leave an
// ssh that never gets an answer running, and holding the output pipes.
// A command in its own group cannot read the terminal, which suits
// git-queen: it never prompts (GIT_TERMINAL_PROMPT=0), and an ssh that
// waits for a passphrase runs into the timeout. Outside the group, a kill
// of git-queen's own group would no longer reach git: where the system
// allows it, git dies with git-queen instead (dieWithParent).
func ownProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	dieWithParent(cmd.SysProcAttr)
	cmd.Cancel = func() error {
		// A negative pid names the whole group.
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}

// cancelOnInterrupt cancels the command when this process is interrupted
// (SIGINT from the terminal reaches only the foreground group, which the
// command left) and returns what to call once the command is gone: it
// stops listening and re-raises the signal, so that the process ends as
// the signal would have ended it.
func cancelOnInterrupt(cancel context.CancelCauseFunc) (done func()) {
	sigs := make(chan os.Signal, 1)
	for _, sig := range []os.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP} {
		if !signal.Ignored(sig) { // one the parent chose to ignore stays ignored
			signal.Notify(sigs, sig)
		}
	}
	stop := make(chan struct{})
	var got os.Signal
	var wg sync.WaitGroup
	wg.Go(func() {
		select {
		case got = <-sigs:
			cancel(&InterruptedError{Signal: got})
		case <-stop:
		}
	})
	return func() {
		signal.Stop(sigs)
		close(stop)
		wg.Wait()
		if got == nil {
			select {
			case got = <-sigs:
			default:
			}
		}
		if sig, ok := got.(syscall.Signal); ok {
			// Delivered at once, and fatal unless this process handles the
			// signal itself (the MCP server does): give it a moment to
			// land, then let the command fail as interrupted.
			_ = syscall.Kill(os.Getpid(), sig)
			time.Sleep(reraiseGrace)
		}
	}
}
