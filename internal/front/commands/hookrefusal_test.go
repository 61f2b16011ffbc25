package commands

import (
	"strings"
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/team/precommit"
)

// A hook's refusal lists every refused path, and its "ways out" line asks
// each holder once, in the order the paths name them: the commit, the
// merge and the push refusals alike.
func TestRefusalsAskEachHolderOnce(t *testing.T) {
	now := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	held := func(droid, pattern string) records.Reservation {
		return records.Reservation{ID: "qr-" + droid, Droid: droid, Pattern: pattern, Exclusive: true, Status: records.ReservationActive,
			CreatedAt: now, ExpiresAt: now.Add(time.Hour)}
	}
	bob, cat := held("bob", "src/**"), held("cat", "docs/**")
	refusals := []precommit.Refusal{{Path: "src/a.go", Reservation: bob}, {Path: "docs/x.md", Reservation: cat}, {Path: "src/b.go", Reservation: bob}}
	pushRefusals := []precommit.PushRefusal{{Commit: "c1", Path: "src/a.go", Reservation: bob}, {Commit: "c2", Path: "docs/x.md", Reservation: cat},
		{Commit: "c3", Path: "src/b.go", Reservation: bob}}
	tests := []struct {
		name  string
		print func(*strings.Builder)
	}{
		{"commit", func(w *strings.Builder) {
			printRefusal(w, &precommit.Result{Me: "ann", Refusals: refusals, Now: now}, "ann")
		}},
		{"merge", func(w *strings.Builder) {
			printRefusal(w, &precommit.Result{Me: "ann", Refusals: refusals, Now: now, Merge: &precommit.Merge{}}, "ann")
		}},
		{"push", func(w *strings.Builder) {
			printPushRefusal(w, &precommit.PushResult{Me: "ann", Refusals: pushRefusals, Now: now})
		}},
	}
	for _, tt := range tests {
		var out strings.Builder
		tt.print(&out)
		if got := out.String(); !strings.Contains(got, "git queen msg send --to bob,cat --subject") ||
			!strings.Contains(got, "src/a.go") || !strings.Contains(got, "docs/x.md") || !strings.Contains(got, "src/b.go") {
			t.Errorf("%s refusal:\n%s\nwant every path, and the holders asked once each: --to bob,cat", tt.name, got)
		}
	}
}
