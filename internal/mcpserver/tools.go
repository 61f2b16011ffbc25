package mcpserver

import (
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/git-queen/git-queen/internal/commands"
)

// The MCP tools: each input is what an agent fills in, described for the
// agent (the descriptions teach the tool), and each maps to the git-queen
// command line that does it. Positional arguments go after "--", so a value
// an agent passes that starts with "-" is never read as a flag.

type reserveIn struct {
	Patterns []string `json:"patterns" jsonschema:"path globs relative to the top of the repository, e.g. src/api/** or docs/ (a directory means everything under it)"`
	TTL      string   `json:"ttl,omitempty" jsonschema:"how long the reservation lasts, e.g. 30m or 4h (default 2h, at most 168h); renew it before it ends"`
	Shared   bool     `json:"shared,omitempty" jsonschema:"make a shared reservation (others may work there too, and the pre-commit hook does not enforce it); the default is exclusive"`
	Reason   string   `json:"reason,omitempty" jsonschema:"why you need the paths, shown to whoever runs into the reservation"`
	Issue    string   `json:"issue,omitempty" jsonschema:"the beads issue id you are working on"`
	Force    bool     `json:"force,omitempty" jsonschema:"reserve despite conflicts, only with the holders' agreement: the grant is marked forced and each holder gets a message from you"`
	Notify   bool     `json:"notify,omitempty" jsonschema:"on a conflict, send each holder a message asking for the paths"`
}

type patternsIn struct {
	Patterns []string `json:"patterns,omitempty" jsonschema:"the patterns to act on (each covers the reservations whose paths it includes); empty with all=true for every reservation you hold"`
	All      bool     `json:"all,omitempty" jsonschema:"every reservation you hold (or that holder holds)"`
	Holder   string   `json:"holder,omitempty" jsonschema:"act on this droid's reservations instead of yours; needs force=true"`
	Force    bool     `json:"force,omitempty" jsonschema:"change another droid's reservations (with holder): the change is marked forced and the holder gets a message from you; only when the holder cannot do it and the team agrees"`
	Reason   string   `json:"reason,omitempty" jsonschema:"with force: why, told to the holder"`
}

// holderArgs adds the flags that act on another droid's reservations.
func holderArgs(a []string, in patternsIn) []string {
	return flagIf(boolIf(flagIf(a, "holder", in.Holder), "force", in.Force), "reason", in.Reason)
}

type renewIn struct {
	patternsIn
	TTL string `json:"ttl,omitempty" jsonschema:"the new lifetime from now, e.g. 2h (default 2h)"`
}

type checkIn struct {
	Paths []string `json:"paths" jsonschema:"file paths relative to the top of the repository; each is free, or held exclusively by another droid (a conflict error)"`
}

type reservationsIn struct {
	All   bool   `json:"all,omitempty" jsonschema:"include released and expired reservations"`
	Path  string `json:"path,omitempty" jsonschema:"only the reservations that cover this path"`
	Droid string `json:"droid,omitempty" jsonschema:"only this droid's reservations"`
}

type sendIn struct {
	To         string `json:"to" jsonschema:"the recipient droid's name, several separated by commas, or @all for every known droid"`
	Subject    string `json:"subject" jsonschema:"one line, at most 100 characters"`
	Body       string `json:"body,omitempty" jsonschema:"the message (Markdown)"`
	Issue      string `json:"issue,omitempty" jsonschema:"the beads issue id the message is about (threads by issue)"`
	ReplyTo    string `json:"reply_to,omitempty" jsonschema:"the id of the message this answers (joins its thread)"`
	Importance string `json:"importance,omitempty" jsonschema:"low, normal (default), high or urgent"`
	New        bool   `json:"new,omitempty" jsonschema:"send to droids this repository has never seen (else a name with no record by or to it is refused as a likely typo)"`
}

type inboxIn struct {
	Unread bool   `json:"unread,omitempty" jsonschema:"only unread messages"`
	Since  string `json:"since,omitempty" jsonschema:"only messages newer than this: a duration (2h, 3d) or a date (2026-11-01)"`
}

type idIn struct {
	ID string `json:"id" jsonschema:"a message id (qm-...)"`
}

type threadIn struct {
	ID string `json:"id" jsonschema:"a message id (its thread is shown) or an issue id"`
}

type replyIn struct {
	ID      string `json:"id" jsonschema:"the id of the message to answer"`
	Body    string `json:"body" jsonschema:"the answer (Markdown)"`
	Subject string `json:"subject,omitempty" jsonschema:"default: Re: and the original's subject"`
}

type waitIn struct {
	From    string `json:"from,omitempty" jsonschema:"only a message from this droid"`
	Thread  string `json:"thread,omitempty" jsonschema:"only a message in this thread (a thread id, or its first message's id)"`
	Issue   string `json:"issue,omitempty" jsonschema:"only a message about this issue"`
	ReplyTo string `json:"reply_to,omitempty" jsonschema:"only a reply to this message id"`
	Timeout string `json:"timeout,omitempty" jsonschema:"give up after this long, e.g. 30s or 10m (default 50s, below the 60s request timeout of most clients; longer needs a client that waits longer or resets its timeout on progress); a timeout is a failure error: call wait again"`
	Peek    bool   `json:"peek,omitempty" jsonschema:"leave the message unread"`
}

type assignIn struct {
	Issue  string `json:"issue" jsonschema:"the beads issue id"`
	Droid  string `json:"droid" jsonschema:"the droid to assign it to"`
	Reason string `json:"reason,omitempty" jsonschema:"why, in a few words"`
	Force  bool   `json:"force,omitempty" jsonschema:"reassign an issue another droid holds"`
}

type claimIn struct {
	Issue  string `json:"issue" jsonschema:"the beads issue id to take on yourself"`
	Reason string `json:"reason,omitempty" jsonschema:"why, in a few words"`
	Force  bool   `json:"force,omitempty" jsonschema:"take over an issue another droid holds"`
}

type unassignIn struct {
	Issue  string `json:"issue" jsonschema:"the beads issue id"`
	Done   bool   `json:"done,omitempty" jsonschema:"mark the work completed rather than released"`
	Force  bool   `json:"force,omitempty" jsonschema:"end another droid's assignment"`
	Reason string `json:"reason,omitempty" jsonschema:"why, in a few words"`
}

type assignmentsIn struct {
	All   bool   `json:"all,omitempty" jsonschema:"include ended assignments"`
	Droid string `json:"droid,omitempty" jsonschema:"only this droid's"`
	Issue string `json:"issue,omitempty" jsonschema:"only this issue's"`
}

type syncIn struct {
	Remote string `json:"remote,omitempty" jsonschema:"the remote to sync with: a remote's name or a URL (default: the one git queen init --remote configured)"`
}

type validateIn struct {
	Paths []string `json:"paths,omitempty" jsonschema:"files to validate; default: every file of a known format in the repository"`
}

// flagIf adds a flag when its value is set.
func flagIf(args []string, name, value string) []string {
	if value != "" {
		return append(args, "--"+name, value)
	}
	return args
}

func boolIf(args []string, name string, on bool) []string {
	if on {
		return append(args, "--"+name)
	}
	return args
}

// positional ends the flags, so that an argument starting with "-" is
// never read as one.
func positional(args []string, values ...string) []string {
	return append(append(args, "--"), values...)
}

// New is the server with every tool, acting as droid ("" when none is
// set: writes then fail with the CLI's "no droid identity" error), on the
// plain directory store beadsDir when it is set.
func New(env *commands.Env, droid, beadsDir string) *mcp.Server {
	return newServer(&runner{env: env, droid: droid, beadsDir: beadsDir})
}

// newServer is the server with every tool, run by r.
func newServer(r *runner) *mcp.Server {
	droid := r.droid
	s := mcp.NewServer(&mcp.Implementation{Name: "git-queen", Version: commands.Version()}, &mcp.ServerOptions{
		Instructions: "git-queen coordinates droids (coding agents) sharing a git repository. Reserve the paths you " +
			"are about to edit (exclusive by default; a conflict error names the holder: ask them with send, or " +
			"wait); check a path before editing one you did not reserve; release when done. Messages: send, inbox, " +
			"read, reply, thread, and wait to block until an answer arrives. Issues: claim, assign, unassign, " +
			"assignments. You act as droid " + droidOrNone(droid) + ".",
	})
	addCommandTool(s, r, "reserve", "Reserve paths before editing them, so other droids and their commits keep off. Exclusive unless shared=true. A conflict error (code 5) names who holds what and until when.",
		func(in reserveIn) []string {
			a := []string{"reserve"}
			a = flagIf(a, "ttl", in.TTL)
			a = boolIf(a, "shared", in.Shared)
			a = flagIf(a, "reason", in.Reason)
			a = flagIf(a, "issue", in.Issue)
			a = boolIf(a, "force", in.Force)
			a = boolIf(a, "notify", in.Notify)
			return positional(a, in.Patterns...)
		})
	addCommandTool(s, r, "release", "Release your reservations: the patterns given (and any they cover), or all=true. "+
		"Another droid's only with holder and force=true: it is marked forced, shown in reservations and conflicts, and the holder is told.",
		func(in patternsIn) []string {
			return positional(holderArgs(boolIf([]string{"release"}, "all", in.All), in), in.Patterns...)
		})
	addCommandTool(s, r, "renew", "Extend your reservations before they expire: the patterns given, or all=true. "+
		"Another droid's only with holder and force=true (marked forced; the holder is told).",
		func(in renewIn) []string {
			return positional(holderArgs(flagIf(boolIf([]string{"renew"}, "all", in.All), "ttl", in.TTL), in.patternsIn), in.Patterns...)
		})
	addCommandTool(s, r, "check", "Check paths before editing them: free, or held exclusively by another droid (a conflict error whose result says who holds each path and until when).",
		func(in checkIn) []string { return positional([]string{"check"}, in.Paths...) })
	addCommandTool(s, r, "reservations", "List active reservations of every droid, worktree and synced clone.",
		func(in reservationsIn) []string {
			return flagIf(flagIf(boolIf([]string{"reservations"}, "all", in.All), "path", in.Path), "droid", in.Droid)
		})
	addCommandTool(s, r, "send", "Send a message to a droid, to several (comma-separated), or to @all. A name this repository has never seen is refused with the near matches, unless new=true.",
		func(in sendIn) []string {
			a := boolIf([]string{"msg", "send", "--to", in.To, "--subject", in.Subject, "--body", in.Body}, "new", in.New)
			a = flagIf(a, "issue", in.Issue)
			a = flagIf(a, "reply-to", in.ReplyTo)
			return flagIf(a, "importance", in.Importance)
		})
	addCommandTool(s, r, "inbox", "List the messages sent to you, newest first.",
		func(in inboxIn) []string {
			return flagIf(boolIf([]string{"msg", "inbox"}, "unread", in.Unread), "since", in.Since)
		})
	addCommandTool(s, r, "read", "Show a message and mark it read if it was sent to you.",
		func(in idIn) []string { return positional([]string{"msg", "read"}, in.ID) })
	addCommandTool(s, r, "reply", "Answer a message, in its thread.",
		func(in replyIn) []string {
			return positional(flagIf([]string{"msg", "reply", "--body", in.Body}, "subject", in.Subject), in.ID)
		})
	addCommandTool(s, r, "thread", "Show a thread oldest first: of a message id, or of an issue id.",
		func(in threadIn) []string { return positional([]string{"msg", "thread"}, in.ID) })
	addTool(s, r, toolSpec[waitIn]{name: "wait", description: "Block until a message to you arrives that matches every filter given (one already waiting counts), then return it, marked read unless peek. " +
		"Use it after asking another droid a question instead of polling the inbox. It gives up after 50s by default, within the 60s most clients wait for a call; " +
		"while it waits it sends progress notifications when the call asks for them, so a longer timeout suits a client that resets its timeout on progress.",
		args: func(in waitIn) []string {
			a := []string{"msg", "wait", "--timeout", in.timeout()}
			a = flagIf(a, "from", in.From)
			a = flagIf(a, "thread", in.Thread)
			a = flagIf(a, "issue", in.Issue)
			a = flagIf(a, "reply-to", in.ReplyTo)
			return boolIf(a, "peek", in.Peek)
		},
		progress: waitProgress,
	})
	addCommandTool(s, r, "assign", "Assign a beads issue to a droid. An issue has one active assignment across every clone: with a remote configured, the assignment is published before it is reported. A conflict error (code 5) names who holds the issue (droid and assignment id); force=true reassigns it, and they are told.",
		func(in assignIn) []string {
			return positional(boolIf(flagIf([]string{"assign"}, "reason", in.Reason), "force", in.Force), in.Issue, in.Droid)
		})
	addCommandTool(s, r, "claim", "Assign a beads issue to yourself before working on it. An issue has one active assignment across every clone: with a remote configured, the claim is published before it is reported. A conflict error (code 5) names who holds the issue (droid and assignment id): pick another issue, or ask them; force=true takes it over, and they are told.",
		func(in claimIn) []string {
			return positional(boolIf(flagIf([]string{"claim"}, "reason", in.Reason), "force", in.Force), in.Issue)
		})
	addCommandTool(s, r, "unassign", "End an assignment: released, or completed with done=true.",
		func(in unassignIn) []string {
			a := boolIf(boolIf([]string{"unassign"}, "done", in.Done), "force", in.Force)
			return positional(flagIf(a, "reason", in.Reason), in.Issue)
		})
	addCommandTool(s, r, "assignments", "List active assignments (all=true: ended ones too).",
		func(in assignmentsIn) []string {
			return flagIf(flagIf(boolIf([]string{"assignments"}, "all", in.All), "droid", in.Droid), "issue", in.Issue)
		})
	addCommandTool(s, r, "sync", "Exchange the store with the remote: publish your records, bring in other clones'.",
		func(in syncIn) []string {
			if in.Remote == "" {
				return []string{"sync"}
			}
			return positional([]string{"sync"}, in.Remote)
		})
	addCommandTool(s, r, "validate", "Validate files of every seed format (QueenBee stores, beads issues, st plans, VerMAS, autopilot).",
		func(in validateIn) []string { return positional([]string{"validate"}, in.Paths...) })
	return s
}

func droidOrNone(droid string) string {
	if droid == "" {
		return "(none set: writes will fail until the server is started with --droid or QUEEN_DROID)"
	}
	return droid
}

// defaultWait is how long wait waits when the call gives no timeout: below
// the 60 s after which the MCP SDKs' clients give up on a request by
// default, so that the agent gets wait's own answer (nothing arrived: wait
// again) rather than a transport error.
const defaultWait = "50s"

func (in waitIn) timeout() string {
	if in.Timeout == "" {
		return defaultWait
	}
	return in.Timeout
}

// waitProgress is what wait reports: that it is waiting, from the start,
// and for how long at most.
func waitProgress(in waitIn) progressPlan {
	plan := progressPlan{atStart: true, what: "waiting for a message"}
	if d, err := time.ParseDuration(in.timeout()); err == nil && d > 0 {
		plan.total = d.Seconds()
	}
	return plan
}
