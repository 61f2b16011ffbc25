package commands

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/domain/reservations"
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
			printPushRefusal(w, &precommit.PushResult{Me: "ann", Refusals: pushRefusals, Now: now}, "")
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

// The commands a refusal tells the agent to run name the holder and the
// path as one shell word each, whatever characters they hold: a droid
// named $(...) by whoever can push to the ledger, or a path with quotes
// and dollars, is passed to git queen as written, never run by the shell
// that runs the command as the agent copied it.
func TestEditRefusalCommandsAreShellWords(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh here")
	}
	now := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	mark := filepath.Join(t.TempDir(), "ran")
	droid := "$(touch${IFS}" + mark + ")`touch${IFS}" + mark + "`'x"
	path := `src/$(touch ` + mark + `)"it's".go`
	r := records.Reservation{ID: "qr-1", Droid: droid, Pattern: "src/**", Exclusive: true, Status: records.ReservationActive,
		CreatedAt: now, ExpiresAt: now.Add(time.Hour)}
	reason := heldRefusal(now, false, []reservations.Hold{{Path: path, Reservation: r}}).Reason
	send := regexp.MustCompile(`git queen msg send (.*) --body WHY`).FindStringSubmatch(reason)
	wait := regexp.MustCompile(`git queen msg wait (--from .*); or`).FindStringSubmatch(reason)
	if send == nil || wait == nil {
		t.Fatalf("the refusal names no msg send and msg wait to run:\n%s", reason)
	}
	out, err := exec.Command(sh, "-c", `printf '%s\n' `+send[1]+` `+wait[1]).Output()
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Join([]string{"--to", droid, "--subject", "may I edit " + path + "?", "--from", droid}, "\n") + "\n"
	if string(out) != want {
		t.Errorf("the shell reads the suggested arguments as\n%s\nwant\n%s", out, want)
	}
	if _, err := os.Stat(mark); err == nil {
		t.Error("the shell ran a command the holder's name or the path carried")
	}
}
