package commands

import (
	"fmt"
	"strings"
	"time"

	"github.com/git-queen/git-queen/internal/app"
	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/urfave/cli/v2"
)

// newReleaseCmd builds `release` (alias unreserve); runF receives the
// options its flags fill (see newReserveCmd).
func newReleaseCmd(env *Env, runF func(releaseOptions) error) *cli.Command {
	o := releaseOptions{Env: env}
	return &cli.Command{
		Name:      "release",
		Aliases:   []string{"unreserve"},
		Usage:     "release your reservations: the patterns named (and any they cover), or --all; release ISSUE ends your assignment, as in QueenBee",
		ArgsUsage: "[PATTERN...|ISSUE]",
		Description: `Releases the reservations each PATTERN covers. As in QueenBee, an argument
that is an issue id you are assigned (release qb-12) ends that assignment
instead (git queen unassign qb-12); when it is both an assignment of yours
and one of your reservation patterns, release says so and does neither.

` + throughLinkHelp + holderHelp,
		Flags: append([]cli.Flag{&cli.BoolFlag{Name: "all", Aliases: allShort, Destination: &o.All, Usage: "release every reservation you hold (or that --holder holds)"}},
			holderFlags(&o)...),
		Action: func(c *cli.Context) error {
			o.G, o.Patterns = readGlobals(c), c.Args().Slice()
			return runF(o)
		},
	}
}

// newRenewCmd builds `renew`, which is release that extends instead.
func newRenewCmd(env *Env, runF func(releaseOptions) error) *cli.Command {
	o := releaseOptions{Env: env, Renew: true}
	var ttl string
	return &cli.Command{
		Name:      "renew",
		Usage:     "extend your reservations: the patterns named (and any they cover), or --all",
		ArgsUsage: "[PATTERN...]",
		Description: `Moves the expiry of each reservation a PATTERN covers to --ttl from now.

` + throughLinkHelp + holderHelp,
		Flags: append([]cli.Flag{
			&cli.BoolFlag{Name: "all", Destination: &o.All, Usage: "renew every reservation you hold (or that --holder holds)"},
			&cli.StringFlag{Name: "ttl", Value: "2h", Destination: &ttl, Usage: "new lifetime from now: `DUR` such as 30m, 4h or 1d (from 1s to 7d)"},
		}, holderFlags(&o)...),
		Action: func(c *cli.Context) error {
			var err error
			if o.TTL, err = app.ParseTTL("renew", ttl); err != nil {
				return err
			}
			o.G, o.Patterns = readGlobals(c), c.Args().Slice()
			return runF(o)
		},
	}
}

// throughLinkHelp says how release and renew find a reservation that
// reserve wrote where a symlinked directory leads.
const throughLinkHelp = `A PATTERN through a symlinked directory that covers none of your reservations
as typed selects where the link leads, as reserve stores it (with lnk -> src,
release lnk/a.go releases src/a.go); the command says so.

`

const holderHelp = `Another droid's reservations (--holder NAME) change only with --force: each
new version is marked forced and names you, reservations and conflicts show
it, and the holder gets a message saying what you did (with --reason).`

// holderFlags are release's and renew's flags for acting on another
// droid's reservations.
func holderFlags(o *releaseOptions) []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "holder", Destination: &o.Holder, Usage: "act on the reservations of droid `NAME` (needs --force)"},
		&cli.BoolFlag{Name: "force", Destination: &o.Force, Usage: "change another droid's reservations; they are told"},
		&cli.StringFlag{Name: "reason", Aliases: reasonShort, Destination: &o.Reason, Usage: "why, for the holder of a forced change, or for an assignment release ISSUE ends (`TEXT`)"},
	}
}

type releaseOptions struct {
	Env               *Env
	G                 globals
	Patterns          []string
	All, Renew, Force bool
	TTL               time.Duration
	Holder, Reason    string
}

func runRelease(o releaseOptions) error {
	req := app.ReleaseRequest{Patterns: o.Patterns, All: o.All, Holder: o.Holder, Force: o.Force, Reason: o.Reason}
	var res *app.ChangeResult
	var err error
	if o.Renew {
		res, err = app.Renew.Run(o.Env.session(o.G), app.RenewRequest{ReleaseRequest: req, TTL: o.TTL.String()})
	} else {
		res, err = app.Release.Run(o.Env.session(o.G), req)
	}
	if o.G.JSON || res == nil {
		if err != nil {
			return err
		}
		return printJSON(o.Env.Stdout, res)
	}
	for _, a := range res.Unassigned {
		fmt.Fprintf(o.Env.Stdout, "%s: %s's assignment %s (release of an issue is unassign)\n", a.IssueID, a.Droid, a.Status)
		printNotified(o.Env, a.Notified)
	}
	if err != nil {
		return err
	}
	for _, n := range res.Notes {
		fmt.Fprintln(o.Env.Stdout, n)
	}
	me := o.Env.identity(o.G)
	now := o.Env.Now()
	verbed := "released"
	if o.Renew {
		verbed = "renewed"
	}
	for _, r := range res.Changed {
		whose, note := r.Pattern, ""
		if r.Droid != me {
			whose, note = r.Droid+"'s "+r.Pattern, "forced"
		}
		if o.Renew {
			note = strings.TrimPrefix(note+"; expires "+relTime(now, r.Expiry()), "; ")
		}
		if note != "" {
			note = " (" + note + ")"
		}
		fmt.Fprintf(o.Env.Stdout, "%s %s%s\n", verbed, whose, note)
	}
	printNotified(o.Env, res.Notified)
	return nil
}

// printNotified says whom a forced change told, and with which message.
func printNotified(env *Env, sent []records.Message) {
	for _, m := range sent {
		fmt.Fprintf(env.Stdout, "told %s (%s)\n", m.To, m.ID)
	}
}
