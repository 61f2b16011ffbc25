package commands

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/git-queen/git-queen/internal/app"
	"github.com/git-queen/git-queen/internal/format/records"
)

// statsRows is how many droids msg stats lists in a table (--json lists
// every one): a log may name thousands.
const statsRows = 20

// newMsgStatsCmd builds `msg stats`, QueenBee's count of every droid's
// messages.
func newMsgStatsCmd(env *Env) *cli.Command {
	var req app.MsgStatsRequest
	return &cli.Command{
		Name:  "stats",
		Usage: "count every droid's messages: unread, per droid, per importance",
		Description: `Counts the messages of the store (every droid's, deleted ones left out) as
QueenBee's msg stats does: how many and how many are unread, how many each
droid received and sent, and how many of each importance; with --since, how
many of them are newer, and unread. --json prints QueenBee's fields (total,
unread, by_agent per recipient, by_sender, by_importance, since_total,
since_unread), plus since and problems.

  git queen msg stats
  git queen msg stats --since 1d --json`,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "since", Destination: &req.Since, Usage: "also count the messages newer than `DUR` (2h, 3d) or TIME (2026-11-01)"},
		},
		Action: noArgs("", func(c *cli.Context) error {
			if err := refuseEmptyFilters(c, "since"); err != nil {
				return err
			}
			return show(env, readGlobals(c), app.MsgStats, req, func(res *app.MsgStatsResult) error {
				warnProblems(env.Stderr, res.Problems)
				return printMsgStats(env, res)
			})
		}),
	}
}

func printMsgStats(env *Env, res *app.MsgStatsResult) error {
	w := env.Stdout
	fmt.Fprintf(w, "%d message%s, %d unread\n", res.Total, plural(res.Total, "", "s"), res.Unread)
	if res.Since != nil {
		fmt.Fprintf(w, "since %s: %d new, %d unread\n", res.Since.UTC().Format("2006-01-02 15:04 MST"), res.SinceTotal, res.SinceUnread)
	}
	if res.Total == 0 {
		return nil
	}
	// Importance from the most pressing down; a value no importance
	// names (a hand-written record) after them.
	var parts []string
	order := slices.Clone(records.Importances)
	slices.Reverse(order)
	for _, k := range slices.Sorted(maps.Keys(res.ByImportance)) {
		if !slices.Contains(order, k) {
			order = append(order, k)
		}
	}
	for _, k := range order {
		if n := res.ByImportance[k]; n > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", cmp.Or(k, `""`), n))
		}
	}
	fmt.Fprintf(w, "by importance: %s\n\n", strings.Join(parts, ", "))

	droids := slices.Collect(maps.Keys(res.ByRecipient))
	for d := range res.BySender {
		if _, ok := res.ByRecipient[d]; !ok {
			droids = append(droids, d)
		}
	}
	slices.SortFunc(droids, func(a, b string) int {
		return cmp.Or(cmp.Compare(res.ByRecipient[b]+res.BySender[b], res.ByRecipient[a]+res.BySender[a]), strings.Compare(a, b))
	})
	t := newTable(w, "DROID", "RECEIVED", "SENT")
	for _, d := range droids[:min(len(droids), statsRows)] {
		t.row(d, strconv.Itoa(res.ByRecipient[d]), strconv.Itoa(res.BySender[d]))
	}
	if err := t.flush(); err != nil {
		return err
	}
	if more := len(droids) - statsRows; more > 0 {
		fmt.Fprintf(w, "... and %d more droids (--json lists all)\n", more)
	}
	return nil
}
