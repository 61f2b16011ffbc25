package commands

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/git-queen/git-queen/internal/app"
	"github.com/git-queen/git-queen/internal/domain/roster"
)

// droidsCommand is `droids` (alias who): the roster, so that a droid
// knows who is on the team, who has gone silent, and whom --to reaches.
func droidsCommand(env *Env) *cli.Command {
	var req app.DroidsRequest
	return &cli.Command{
		Name:    "droids",
		Aliases: []string{"who"},
		Usage:   "list the droids of this repository: when each first wrote, when it was last seen, and where",
		Description: `A droid is known once a version of a record names it (it wrote a message, a
reservation or an assignment, was sent or assigned one, even if the record
has changed since), or is listed under [droids] names in .beads/queen.toml.
Any command a droid runs, and every sync, counts as being seen; a sighting
moves at most every ` + roster.Interval.String() + `, and travels to other clones with sync. LAST
SEEN is the latest of the droid's sightings and of the versions it wrote
(one another droid has superseded since counts too), in any clone the store
has heard from.

A droid not seen for longer than the team's threshold is SILENT: doctor
lists it, and its reservations and claims may be taken with reserve --steal
and claim --steal. Set the threshold in .beads/queen.toml (default ` + app.DefaultSilentAfter.String() + `):

    [roster]
    silent_after = "2h"

--json gives {"droids": [{"droid", "first_seen", "last_seen", "places":
[{"id", "droid", "clone", "worktree", "first_seen", "last_seen"}]}],
"silent_after", "silent": [names], "now"}.

  git queen droids                  # everyone: last and first seen, and where
  git queen droids --silent         # whose reservations and claims may be stolen
  git queen who --json | jq -r '.silent[]'

Exits 0 whoever is silent (doctor warns of them); 2 on a usage error.`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "silent", Destination: &req.Silent, Usage: "only the droids silent for longer than the team's threshold"},
		},
		Action: noArgs("; use --silent for the silent ones only", func(c *cli.Context) error {
			return show(env, readGlobals(c), app.Droids, req, func(res *app.DroidsResult) error { return printDroids(env, res) })
		}),
	}
}

func printDroids(env *Env, res *app.DroidsResult) error {
	if len(res.Droids) == 0 {
		fmt.Fprintln(env.Stdout, "no droids")
		return nil
	}
	isSilent := map[string]bool{}
	for _, n := range res.Silent {
		isSilent[n] = true
	}
	t := newTable(env.Stdout, "DROID", "LAST SEEN", "FIRST SEEN", "STATE", "WHERE")
	for _, d := range res.Droids {
		last, first, state := "never", "-", "never seen"
		if d.Last != nil {
			last, state = relTime(res.Now, *d.Last), "active"
		}
		if d.First != nil {
			first = relTime(res.Now, *d.First)
		}
		if isSilent[d.Name] {
			state = "silent"
		}
		var where []string
		for _, p := range d.Places {
			where = append(where, p.Worktree)
		}
		t.row(d.Name, last, first, state, truncate(strings.Join(where, ", "), 80))
	}
	if err := t.flush(); err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "silent after %s (.beads/queen.toml [roster] silent_after)\n", res.SilentAfter)
	return nil
}
