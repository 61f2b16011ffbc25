// Package work decides which work is ready to take: the beads issues
// (.beads/issues.jsonl, seed 002) and the st plan items (seed 000) that are
// open, unblocked, unassigned and unreserved, in the seeds' priority order.
// It reads the files and takes the assigned and reserved issue ids as
// given, so that the application layer can ask the stores once and a test
// can state the whole situation in a table.
package work

import "fmt"

// Sources of an Item.
const (
	SourceBeads = "beads"
	SourceST    = "st"
)

// DefaultPriority is the priority of work that names none: seed 004's
// default (P2, medium), which beads uses too. st items have no priority
// field, so they all rank as P2. A beads issue without one is P0, as bd
// reads it: bd merge wrote priority 0 with omitempty (beads issue #671).
const DefaultPriority = 2

// Item is one piece of work that could be ready: a beads issue or an st
// item, with what ordering and listing it needs.
type Item struct {
	ID        string `json:"id"`
	Title     string `json:"title"`
	Source    string `json:"source"`
	File      string `json:"file"`
	Priority  int    `json:"priority"`
	Status    string `json:"status"`
	IssueType string `json:"issue_type,omitempty"`
	CreatedAt string `json:"created_at,omitempty"`
	// Assignee is a beads issue's own assignee field: an issue assigned
	// in beads is taken as surely as one assigned here.
	Assignee string `json:"assignee,omitempty"`
	// Line is the item's line in a beads file, or its position in an st
	// stream's show order (from 1).
	Line int `json:"line"`
	// WaitingOn are the open blockers of an item that is not ready.
	WaitingOn []string `json:"waiting_on,omitempty"`
}

// Taken says who holds an issue id by other means than its own file: an
// active assignment, or a reservation that names it.
type Taken struct {
	// Assigned maps an issue id to the droid it is assigned to.
	Assigned map[string]string
	// Reserved maps an issue id to a droid other than the caller that
	// holds an active reservation naming it (reserve --issue).
	Reserved map[string]string
}

// Counts say why open work is not ready, for a person wondering why the
// list is short.
type Counts struct {
	// Open is the work whose own status says it is to do.
	Open int `json:"open"`
	// Blocked waits on another item (beads "blocks" dependencies, st deps
	// of type blocks) or is marked blocked.
	Blocked  int `json:"blocked"`
	Assigned int `json:"assigned"`
	Reserved int `json:"reserved"`
	Ready    int `json:"ready"`
}

// blockedStatus is the status beads and st both give work marked blocked
// by hand.
const blockedStatus = "blocked"

// Summary says in a few words how the open work divides.
func (c Counts) Summary() string {
	return fmt.Sprintf("%d open: %d blocked, %d assigned, %d reserved by others, %d ready", c.Open, c.Blocked, c.Assigned, c.Reserved, c.Ready)
}
