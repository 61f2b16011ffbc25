package setup

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/storage/ledger"
	"github.com/git-queen/git-queen/internal/team/ledgersync"
)

// checkLedgers reads this clone's ledger and the fetched ones whole: a
// damaged local ledger (a gc that pruned what its ref names) fails, and is
// rebuilt by --fix from the live store; what a remote's ledger holds that
// syncs set aside, and refs under refs/queen/ that git-queen does not
// write, are warnings that name the commit, the reason and the fix.
func (r *Repo) checkLedgers() []Check {
	if r.StoreDir == "" {
		return nil
	}
	s := r.liveStore()
	h, err := ledgersync.Check(s.WS, time.Now())
	if errors.Is(err, ledger.ErrUnsupported) {
		return []Check{ok("ledger", "none: a SHA-256 repository keeps the live store on this machine (the ledger's objects are SHA-1)")}
	}
	if err != nil {
		return []Check{{Name: "ledger", Status: Warn, Message: "cannot read the ledgers: " + err.Error()}}
	}
	var out []Check
	switch {
	case h.LocalDamage != nil:
		out = append(out, Check{Name: "ledger", Status: Fail, Fixable: true, forInit: true,
			Message: "this clone's ledger (refs/queen/ledger) is damaged: " + h.LocalDamage.Error() +
				"; git queen sync (or doctor --fix) rebuilds it from the live store, and nothing is lost",
			fix: func() error {
				sy, err := ledgersync.New(s, "")
				if err != nil {
					return err
				}
				defer sy.Close()
				return sy.Repair()
			}})
	case h.Local == "":
		out = append(out, ok("ledger", "no ledger yet (the first git queen sync writes refs/queen/ledger)"))
	default:
		out = append(out, ok("ledger", "this clone's ledger %s reads whole", short(h.Local)))
	}
	for _, remote := range slices.Sorted(maps.Keys(h.Remotes)) {
		why, next := h.Remotes[remote], "the next git queen sync pushes this clone's ledger without it"
		if ledgersync.IsOverBound(why) || slices.ContainsFunc(h.SetAside, func(a ledgersync.SetAside) bool { return a.Remote == remote && a.Symref != "" }) {
			next = "every git queen sync stops on it, and pushes nothing over it"
		}
		out = append(out, Check{Name: "remote-ledger", Status: Warn, Message: fmt.Sprintf(
			"%s's ledger, as fetched, is set aside: %v; commands and commits go on from what this clone has, and %s",
			remote, why, next)})
	}
	if len(h.Foreign) > 0 {
		out = append(out, Check{Name: "foreign-refs", Status: Warn, Message: fmt.Sprintf(
			"%d ref(s) under refs/queen/ that git-queen does not write, pushed by someone (nothing reads them): %s; "+
				"delete each with git update-ref -d REF", len(h.Foreign), joinShown(h.Foreign[:min(len(h.Foreign), 3)], len(h.Foreign), ", ", ", "))})
	}
	for _, c := range h.Clocks {
		out = append(out, Check{Name: "clocks", Status: Warn, Message: c.String() + "; whichever is wrong, set it right (NTP)"})
	}
	if h.ClockOff != nil {
		out = append(out, Check{Name: "clock", Status: Fail, Message: "exclusive reservations are refused here: " + h.ClockOff.Reason().String()})
	}
	if recent := recentNotes(h.SetAside, time.Now().Add(-7*24*time.Hour)); len(recent) > 0 {
		latest := recent[len(recent)-1]
		out = append(out, Check{Name: "set-aside", Status: Warn, Message: fmt.Sprintf(
			"syncs set aside %s from remotes' ledgers in the last 7 days; the latest, %s: %s; %s",
			setAsideCounted(recent), records.Relative(time.Now(), latest.At), latest, latest.Fix())})
	}
	return out
}

// setAsideCounted says how many of what notes set aside, in the order
// they come: "1 tag", "2 commits, 1 group of record versions" (a note of
// versions that broke a rule is a group; any other is of the object its
// Kind names, a commit by default).
func setAsideCounted(notes []ledgersync.SetAside) string {
	counts := map[string]int{}
	var kinds []string
	for _, n := range notes {
		kind := cmp.Or(n.Kind, "commit")
		if n.Rule != "" {
			kind = "group of record versions"
		}
		if counts[kind] == 0 {
			kinds = append(kinds, kind)
		}
		counts[kind]++
	}
	counted := make([]string, len(kinds))
	for i, kind := range kinds {
		first, rest, _ := strings.Cut(kind, " ") // the plural is of the first word
		counted[i] = plural(counts[kind], kind, strings.TrimSpace(first+"s "+rest))
	}
	return strings.Join(counted, ", ")
}

func recentNotes(notes []ledgersync.SetAside, since time.Time) []ledgersync.SetAside {
	return slices.DeleteFunc(slices.Clone(notes), func(n ledgersync.SetAside) bool { return n.At.Before(since) })
}

// joinShown joins the items doctor shows of total with sep, and says how
// many it leaves out (after then: "; and 2 more").
func joinShown(shown []string, total int, sep, then string) string {
	joined := strings.Join(shown, sep)
	if total > len(shown) {
		joined += fmt.Sprintf("%sand %d more", then, total-len(shown))
	}
	return joined
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
