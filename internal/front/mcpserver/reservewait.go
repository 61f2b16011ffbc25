package mcpserver

import (
	"time"

	"github.com/git-queen/git-queen/internal/app"
)

// reserveTool is reserve, with the queue: wait=true queues for held paths
// instead of failing, bounded by a timeout (defaultWait unless given), as
// the wait tool is, so the agent gets the tool's own answer before its
// client gives up on the call.
func reserveTool() toolSpec[app.ReserveWaitRequest, *app.ReserveWaitResult] {
	t := useCase("reserve", "Reserve paths before editing them, so other droids and their commits keep off. Exclusive unless shared=true. "+
		"A conflict error (code 5) names who holds what and until when. With wait=true, held paths are queued for instead "+
		"(first come first served across clones; reservations lists who waits) and granted when the holders release or expire; "+
		"it gives up after 50s by default (wait_timeout), leaving the queue, with a conflict error naming what still stands ahead: call again to queue again. "+
		"While it waits it sends progress notifications when the call asks for them.",
		app.ReserveQueued)
	t.prepare = func(in *app.ReserveWaitRequest) {
		if in.Wait && in.Timeout == "" {
			in.Timeout = defaultWait
		}
		in.MaxWait = maxReserveWait
	}
	t.progress = func(in app.ReserveWaitRequest) progressPlan {
		if !in.Wait {
			return progressPlan{what: "reserve is running"}
		}
		plan := progressPlan{atStart: true, what: "waiting in the queue for the paths"}
		if d, err := app.ParseDuration(in.Timeout); err == nil && d > 0 {
			plan.total = d.Seconds()
		}
		return plan
	}
	return t
}

// maxReserveWait is the longest a reserve call may wait in the queue: an
// agent that needs longer calls again, and a place never outlives the
// call that holds it by more than the place's lease.
const maxReserveWait = time.Hour
