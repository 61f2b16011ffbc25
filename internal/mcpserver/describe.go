package mcpserver

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/git-queen/git-queen/internal/records"
)

// checkResult is what `check --json` prints: each path, free or held.
type checkResult struct {
	Droid string `json:"droid"`
	Paths []struct {
		Path   string                `json:"path"`
		Free   bool                  `json:"free"`
		HeldBy []records.Reservation `json:"held_by"`
	} `json:"paths"`
}

// describeHolds says in words what check's result says when a path is
// held by another droid (check prints no message of its own with --json,
// only the result): each path, who holds it, by which pattern, until when
// and why; the free ones; and what to do. It is "" for any other result.
func describeHolds(result json.RawMessage) string {
	var c checkResult
	if json.Unmarshal(result, &c) != nil || len(c.Paths) == 0 {
		return ""
	}
	var held, free []string
	for _, p := range c.Paths {
		if p.Free {
			free = append(free, p.Path)
			continue
		}
		for _, r := range p.HeldBy {
			line := fmt.Sprintf("%s: %s holds it until %s (pattern %s", p.Path, r.Droid,
				r.Expiry().UTC().Format(time.RFC3339), r.Pattern)
			if r.IssueID != "" {
				line += ", issue " + r.IssueID
			}
			if r.Reason != "" {
				line += ", reason: " + r.Reason
			}
			held = append(held, line+")")
		}
	}
	if len(held) == 0 {
		return ""
	}
	msg := "held exclusively by another droid:\n  " + strings.Join(held, "\n  ")
	if len(free) > 0 {
		msg += "\nfree: " + strings.Join(free, ", ")
	}
	return msg + "\nask the holder (send), wait for the reservation to end, or work on other paths"
}
