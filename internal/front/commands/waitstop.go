package commands

import (
	"cmp"
	"context"
	"os"
	"os/signal"
	"syscall"
	"time"
)

// parentPoll is how often a wait looks whether the process that started
// it is still there.
const parentPoll = 500 * time.Millisecond

// stoppableWait is the context a wait of the command line (reserve
// --wait, msg wait) runs in: it ends as ctx does, on Ctrl-C, SIGTERM or
// a hang-up, when the process that started this one dies, and when
// nobody reads its standard output any more (outputGone). git runs
// git-queen as a child and passes on the signals it can catch, but not
// SIGKILL: a runtime that kills the git it started (a tool call's
// timeout) would leave the wait running with nobody to read its answer,
// a waiter keeping its place and then taking paths for a droid that has
// stopped waiting. A process already adopted when it starts (its parent
// is init) is not watched for its parent. stop must be called.
func stoppableWait(ctx context.Context) (_ context.Context, stop context.CancelFunc) {
	ctx, stopSignals := signal.NotifyContext(cmp.Or(ctx, context.Background()), syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	ctx, cancel := context.WithCancel(ctx)
	parent := os.Getppid()
	if outputGone() {
		cancel() // before the wait looks: it takes nothing for nobody
	}
	go func() {
		tick := time.NewTicker(parentPoll)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
				if parent > 1 && os.Getppid() != parent || outputGone() {
					cancel()
					return
				}
			}
		}
	}()
	return ctx, func() { cancel(); stopSignals() }
}
