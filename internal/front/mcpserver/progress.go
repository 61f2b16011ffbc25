package mcpserver

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// DefaultProgressInterval is how often a call that is still running sends
// a progress notification, when the client asked for them with a progress
// token. The MCP SDKs give up on a request after 60 s by default; a client
// that resets that timer on progress (the TypeScript SDK's
// resetTimeoutOnProgress) then waits as long as the call runs. A line of
// JSON every 10 s costs nothing.
const DefaultProgressInterval = 10 * time.Second

// minProgressInterval bounds --progress-interval from below: a client
// needs a notification within its timeout, not a stream of them.
const minProgressInterval = 100 * time.Millisecond

// progressPlan says what a tool reports while it runs.
type progressPlan struct {
	// atStart sends a first notification as soon as the call begins, for a
	// call whose purpose is to block (wait): the client learns at once that
	// it is waiting, and for how long.
	atStart bool
	// total is the call's expected length in seconds, 0 when unknown;
	// progress is the seconds elapsed.
	total float64
	// what is the activity, in a few words ("waiting for a message").
	what string
}

// reportProgress sends notifications/progress for req every interval (and
// at once with atStart) until the returned stop is called, when the
// request carries a progress token. stop returns once no notification can
// follow, so that none reaches the client after the call's result.
func reportProgress(ctx context.Context, req *mcp.CallToolRequest, interval time.Duration, plan progressPlan) (stop func()) {
	token := req.Params.GetProgressToken()
	if token == nil || req.Session == nil || interval <= 0 {
		return func() {}
	}
	start := time.Now()
	notify := func() {
		elapsed := time.Since(start)
		msg := fmt.Sprintf("%s: %s so far", plan.what, elapsed.Round(time.Second))
		if plan.total > 0 {
			msg = fmt.Sprintf("%s: %s of %s", plan.what, elapsed.Round(time.Second), time.Duration(plan.total*float64(time.Second)))
		}
		// A failed notification (the client went away) changes nothing:
		// the call's own result reports what happened.
		_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
			ProgressToken: token, Progress: elapsed.Seconds(), Total: plan.total, Message: msg})
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		if plan.atStart {
			notify()
		}
		tick := time.NewTicker(interval)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-tick.C:
				notify()
			}
		}
	})
	return func() {
		close(done)
		wg.Wait()
	}
}
