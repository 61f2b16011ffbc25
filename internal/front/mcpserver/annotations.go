package mcpserver

import "github.com/modelcontextprotocol/go-sdk/mcp"

// hints are a tool's annotations as MCP defines them, which clients use to
// decide what to run without asking (a read-only tool) and what to confirm
// first (a destructive one). Each is chosen for what the command does,
// not for how it would be convenient to present it.
type hints struct {
	title string
	// readOnly: the tool changes nothing. The others matter only when it
	// is false.
	readOnly bool
	// destructive: it may end or replace something (a reservation, an
	// assignment, another droid's record with force); false when it only
	// adds.
	destructive bool
	// idempotent: the same call again changes nothing more.
	idempotent bool
	// openWorld: it reaches beyond this repository (a remote).
	openWorld bool
}

// toolHints are the annotations of every tool, by name; a test checks that
// every tool the server lists has them.
var toolHints = map[string]hints{
	// With a remote configured, an exclusive reserve fetches the remote's
	// ledger and pushes the grant. Reserving again extends the grant.
	"reserve": {title: "Reserve paths", openWorld: true},
	"release": {title: "Release reservations", destructive: true, idempotent: true},
	// Renewing again moves the expiry later each time.
	"renew":        {title: "Renew reservations"},
	"check":        {title: "Check paths against reservations", readOnly: true},
	"reservations": {title: "List reservations", readOnly: true},
	// Messages reach other clones only through sync.
	"send":  {title: "Send a message"},
	"inbox": {title: "List your messages", readOnly: true},
	// read marks the message read: a change, done once.
	"read":   {title: "Read a message", idempotent: true},
	"reply":  {title: "Reply to a message"},
	"thread": {title: "Show a thread", readOnly: true},
	// wait marks what it returns read (unless peek), so a second call
	// waits for the next message; with a remote configured it syncs.
	"wait": {title: "Wait for a message", openWorld: true},
	// assign and claim with force end another droid's assignment; the same
	// call again is refused (already assigned) and changes nothing. With a
	// remote configured they publish the assignment through it, by
	// compare-and-swap, before they answer.
	"assign":      {title: "Assign an issue", destructive: true, idempotent: true, openWorld: true},
	"claim":       {title: "Claim an issue", destructive: true, idempotent: true, openWorld: true},
	"unassign":    {title: "End an assignment", destructive: true, idempotent: true},
	"assignments": {title: "List assignments", readOnly: true},
	// ready only lists; with claim it adds an assignment (through the
	// remote, as claim does), and a second call claims the next item.
	"ready": {title: "List ready work", openWorld: true},
	// sync fetches and pushes the ledger. It adds the other clones'
	// records and never drops one; the one thing it withdraws is an
	// --offline grant that another clone's published grant already beat.
	"sync":     {title: "Sync with the remote", idempotent: true, openWorld: true},
	"validate": {title: "Validate files", readOnly: true},
	// droids changes nothing but the caller's own sighting.
	"droids": {title: "List the droids", readOnly: true},
	// steal ends another droid's reservations or assignment, as assign
	// and reserve with force do, and publishes as they do.
	"steal": {title: "Steal from a silent droid", destructive: true, openWorld: true},
}

// annotations are h as the protocol spells them, every hint explicit
// (the protocol's defaults assume the worst: destructive, open world).
func (h hints) annotations() *mcp.ToolAnnotations {
	return &mcp.ToolAnnotations{
		Title:           h.title,
		ReadOnlyHint:    h.readOnly,
		DestructiveHint: &h.destructive,
		IdempotentHint:  h.idempotent || h.readOnly,
		OpenWorldHint:   &h.openWorld,
	}
}
