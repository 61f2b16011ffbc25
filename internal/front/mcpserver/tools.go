package mcpserver

import (
	"cmp"
	"fmt"
	"os"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/git-queen/git-queen/internal/app"
	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/front/commands"
)

// The MCP tools: each is a use case of internal/app, called with the
// request type the command line fills from its flags. A request's fields
// and their jsonschema descriptions are the tool's input schema (fields
// the command line alone sets are left out of it), and its result is the
// tool's structured content.

// newServer is the server with every tool, run by r.
func newServer(r *runner) *mcp.Server {
	who := "droid " + cmp.Or(r.droid, "(none set: writes fail until this worktree's queen.droid is set, "+
		"which the next call reads: git queen init --droid NAME; or the server is started with --droid or QUEEN_DROID)")
	if err := r.checkDroid(); err != nil {
		who = "no droid (" + err.Error() + "; every call fails until the server is started with another --droid)"
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "git-queen", Version: commands.Version()}, &mcp.ServerOptions{
		Instructions: "git-queen coordinates droids (coding agents) sharing a git repository. Reserve the paths you " +
			"are about to edit (exclusive by default; a conflict error names the holder: ask them with send, or " +
			"wait); check a path before editing one you did not reserve; release when done. Messages: send, inbox, " +
			"read, reply, thread, and wait to block until an answer arrives. Issues: ready (ready with claim=true takes the first), claim, assign, unassign, " +
			"assignments. You act as " + who + ".",
	})
	addTool(s, r, reserveTool())
	addTool(s, r, useCase("release", "Release your reservations: the patterns given (and any they cover), or all=true. "+
		"Another droid's only with holder and force=true: it is marked forced, shown in reservations and conflicts, and the holder is told.",
		app.Release))
	addTool(s, r, useCase("renew", "Extend your reservations before they expire: the patterns given, or all=true. "+
		"Another droid's only with holder and force=true (marked forced; the holder is told).",
		app.Renew))
	addTool(s, r, useCase("check", "Check paths before editing them: free, or held exclusively by another droid (a conflict error whose result says who holds each path and until when).",
		app.Check))
	addTool(s, r, limited(useCase("reservations", "List active reservations of every droid, worktree and synced clone: the 50 most recent unless given a limit (more says how many were left out).",
		app.Reservations), func(in *app.ReservationsRequest) *int { return &in.Limit }))
	send := useCase("send", "Send a message to a droid, to several (comma-separated), or to @all. A name this repository has never seen is refused with the near matches, unless new=true. "+
		"The result lists the copies sent, no more than 1 MiB of them (more counts the rest, which were sent too).",
		app.Send)
	send.finish = func(res *app.SendResult) { keepWithinBytes(&res.Sent, &res.More, false) }
	addTool(s, r, send)
	inbox := limited(useCase("inbox", "List the messages sent to you, newest first: the 50 newest unless given a limit, and no more than 1 MiB of them (more says how many older ones were left out).",
		app.Inbox), func(in *app.InboxRequest) *int { return &in.Limit })
	inbox.finish = func(res *app.InboxResult) { keepWithinBytes(&res.Messages, &res.More, false) }
	addTool(s, r, inbox)
	addTool(s, r, useCase("read", "Show a message and mark it read if it was sent to you.", app.Read))
	addTool(s, r, useCase("reply", "Answer a message, in its thread.", app.Reply))
	thread := limited(useCase("thread", "Show a thread oldest first: of a message id, or of an issue id; its 50 newest messages unless given a limit, and no more than 1 MiB of them (more says how many older ones were left out).",
		app.Thread), func(in *app.ThreadRequest) *int { return &in.Limit })
	thread.finish = func(res *app.ThreadResult) { keepWithinBytes(&res.Thread, &res.More, true) }
	addTool(s, r, thread)
	wait := useCase("wait", "Block until a message to you arrives that matches every filter given (one already waiting counts), then return it, marked read unless peek. "+
		"Use it after asking another droid a question instead of polling the inbox. It gives up after 50s by default, within the 60s most clients wait for a call; "+
		"while it waits it sends progress notifications when the call asks for them, so a longer timeout suits a client that resets its timeout on progress.",
		app.Wait)
	wait.prepare = func(in *app.WaitRequest) { in.Timeout = waitTimeout(*in) }
	wait.progress = waitProgress
	wait.undo = func(e *app.Env, in app.WaitRequest, msg *records.Message) {
		if in.Peek || msg == nil {
			return
		}
		if err := app.Unread(e, msg.ID); err != nil {
			fmt.Fprintf(os.Stderr, "git-queen-mcp: the wait's answer was dropped (the call was cancelled), and message %s stays read: %v\n", msg.ID, err)
		}
	}
	addTool(s, r, wait)
	addTool(s, r, useCase("assign", "Assign a beads issue to a droid. An issue has one active assignment across every clone: with a remote configured, the assignment is published before it is reported. A conflict error (code 5) names who holds the issue (droid and assignment id); force=true reassigns it, and they are told.",
		app.Assign))
	addTool(s, r, useCase("claim", "Assign a beads issue to yourself before working on it. An issue has one active assignment across every clone: with a remote configured, the claim is published before it is reported. A conflict error (code 5) names who holds the issue (droid and assignment id): pick another issue, or ask them; force=true takes it over, and they are told.",
		app.Claim))
	addTool(s, r, useCase("unassign", "End an assignment: released, or completed with done=true.", app.Unassign))
	addTool(s, r, limited(useCase("assignments", "List active assignments (all=true: ended ones too): the 50 most recent unless given a limit (more says how many were left out).",
		app.Assignments), func(in *app.AssignmentsRequest) *int { return &in.Limit }))
	addTool(s, r, limited(useCase("ready", "List the work ready to take (beads issues and st items that are open, unblocked, unassigned and not reserved by another droid), first first: "+
		"priority 0 to 4, then oldest; the 50 first unless given a limit. claim=true claims the first, as claim does (published through the remote before it is reported); "+
		"if another clone took it first the next is tried, and a conflict error (code 5) names the winner when none is left. counts says why open work is left out.",
		app.Ready), func(in *app.ReadyRequest) *int { return &in.Limit }))
	addTool(s, r, useCase("steal", "Recover paths (patterns) or an issue (claim) from a droid that died holding them: allowed only when the holder has been silent for longer than the team's threshold (see droids), else a conflict error saying when it will be. The holder's reservations are released (marked stolen) or its assignment reassigned, and it gets a message.",
		app.Steal))
	addTool(s, r, limited(useCase("droids", "List the droids of this repository: when each first wrote and was last seen, where, and which are silent (silent=true: only those, whose reservations and claims may be stolen): "+
		"the 50 seen last unless given a limit (more says how many were left out).",
		app.Droids), func(in *app.DroidsRequest) *int { return &in.Limit }))
	addTool(s, r, useCase("sync", "Exchange the store with the remote: publish your records, bring in other clones'.", app.Sync))
	addTool(s, r, useCase("validate", "Validate files of every seed format (QueenBee stores, beads issues, st plans, VerMAS, autopilot).",
		app.Validate))
	return s
}

// defaultListLimit and maxListLimit bound what a listing tool returns, so
// that a call costs what it returns: an inbox of a million messages
// answers 50 of them, and says how many more there are.
const (
	defaultListLimit = 50
	maxListLimit     = 1000
)

// limited is the listing tool spec with listLimit applied to the limit
// of each call's request.
func limited[In, Out any](spec toolSpec[In, Out], limit func(*In) *int) toolSpec[In, Out] {
	spec.prepare = func(in *In) { *limit(in) = listLimit(*limit(in)) }
	return spec
}

// listLimit is the limit a listing tool applies: the one given, within
// maxListLimit, else defaultListLimit.
func listLimit(given int) int {
	if given <= 0 {
		return defaultListLimit
	}
	return min(given, maxListLimit)
}

// defaultWait is how long wait waits when the call gives no timeout: below
// the 60 s after which the MCP SDKs' clients give up on a request by
// default, so that the agent gets wait's own answer (nothing arrived: wait
// again) rather than a transport error.
const defaultWait = "50s"

// waitTimeout is the timeout of a wait call: the one given, else
// defaultWait.
func waitTimeout(in app.WaitRequest) string { return cmp.Or(in.Timeout, defaultWait) }

// waitProgress is what wait reports: that it is waiting, from the start,
// and for how long at most.
func waitProgress(in app.WaitRequest) progressPlan {
	return waitingPlan("waiting for a message", waitTimeout(in))
}

// waitingPlan is what a call that blocks reports: what it waits for, from
// the start, and for how long at most (the timeout, when it reads as one).
func waitingPlan(what, timeout string) progressPlan {
	plan := progressPlan{atStart: true, what: what}
	if d, err := app.ParseDuration(timeout); err == nil && d > 0 {
		plan.total = d.Seconds()
	}
	return plan
}

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
		return waitingPlan("waiting in the queue for the paths", in.Timeout)
	}
	return t
}

// maxReserveWait is the longest a reserve call may wait in the queue: an
// agent that needs longer calls again, and a place never outlives the
// call that holds it by more than the place's lease.
const maxReserveWait = time.Hour
