package commands

import (
	"fmt"
	"strings"

	"github.com/git-queen/git-queen/internal/app"
	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/urfave/cli/v2"
)

// newReleaseCmd builds `release` (alias unreserve); runF receives the
// request its flags fill (see newReserveCmd).
func newReleaseCmd(env *Env, runF func(call[app.ReleaseRequest]) error) *cli.Command {
	o := call[app.ReleaseRequest]{Env: env}
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
		Flags: append([]cli.Flag{&cli.BoolFlag{Name: "all", Aliases: allShort, Destination: &o.Req.All, Usage: "release every reservation you hold (or that --holder holds)"}},
			holderFlags(&o.Req, ", or for an assignment release ISSUE ends")...),
		Action: func(c *cli.Context) error {
			if err := checkHolderFlag(c, "release"); err != nil {
				return err
			}
			o.G, o.Req.Patterns = readGlobals(c), c.Args().Slice()
			return runF(o)
		},
	}
}

// newRenewCmd builds `renew`, which is release that extends instead.
func newRenewCmd(env *Env, runF func(call[app.RenewRequest]) error) *cli.Command {
	o := call[app.RenewRequest]{Env: env}
	var ttl string
	return &cli.Command{
		Name:      "renew",
		Usage:     "extend your reservations: the patterns named (and any they cover), or --all",
		ArgsUsage: "[PATTERN...]",
		Description: `Moves the expiry of each reservation a PATTERN covers to --ttl from now.

` + throughLinkHelp + holderHelp,
		Flags: append([]cli.Flag{
			&cli.BoolFlag{Name: "all", Destination: &o.Req.All, Usage: "renew every reservation you hold (or that --holder holds)"},
			&cli.StringFlag{Name: "ttl", Value: "2h", Destination: &ttl, Usage: "new lifetime from now: `DUR` such as 30m, 4h or 1d (from 1s to 7d)"},
		}, holderFlags(&o.Req.ReleaseRequest, "")...),
		Action: func(c *cli.Context) error {
			if err := checkHolderFlag(c, "renew"); err != nil {
				return err
			}
			d, err := app.ParseTTL("renew", ttl)
			if err != nil {
				return err
			}
			o.G, o.Req.Patterns, o.Req.TTL = readGlobals(c), c.Args().Slice(), d.String()
			return runF(o)
		},
	}
}

// throughLinkHelp says how release and renew find a reservation that
// reserve wrote where a symlinked directory leads.
const throughLinkHelp = `A PATTERN through a symlinked directory that covers none of your reservations
as typed selects where the link leads, as reserve stores it (with lnk -> src,
lnk/a.go selects src/a.go); the command says so.

`

const holderHelp = `Another droid's reservations (--holder NAME) change only with --force: each
new version is marked forced and names you, reservations and conflicts show
it, and the holder gets a message saying what you did (with --reason).`

// holderFlags are release's and renew's flags for acting on another
// droid's reservations; reasonToo says what else --reason is for.
func holderFlags(o *app.ReleaseRequest, reasonToo string) []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "holder", Destination: &o.Holder, Usage: "act on the reservations of droid `NAME` (needs --force)"},
		&cli.BoolFlag{Name: "force", Destination: &o.Force, Usage: "change another droid's reservations; they are told"},
		&cli.StringFlag{Name: "reason", Aliases: reasonShort, Destination: &o.Reason, Usage: "why, for the holder of a forced change" + reasonToo + " (`TEXT`)"},
	}
}

// checkHolderFlag refuses --holder given empty, which read as no --holder:
// release --holder "" --force --all released every reservation of the
// caller's own.
func checkHolderFlag(c *cli.Context, command string) error {
	return refuseEmpty(c, command, "holder", "droid whose reservations to "+command, command+" your own")
}

func runRelease(o call[app.ReleaseRequest]) error {
	res, err := app.Release.Run(o.Env.session(o.G), o.Req)
	return printChange(o.Env, o.G, false, res, err)
}

func runRenew(o call[app.RenewRequest]) error {
	res, err := app.Renew.Run(o.Env.session(o.G), o.Req)
	return printChange(o.Env, o.G, true, res, err)
}

// printChange prints what release (or, with renew, renew) changed.
func printChange(env *Env, g globals, renew bool, res *app.ChangeResult, err error) error {
	if g.JSON || res == nil {
		if err != nil {
			return err
		}
		return printJSON(env.Stdout, res)
	}
	for _, a := range res.Unassigned {
		fmt.Fprintf(env.Stdout, "%s: %s's assignment %s (release of an issue is unassign)\n", a.IssueID, a.Droid, a.Status)
		printNotified(env, a.Notified)
	}
	if err != nil {
		return err
	}
	for _, n := range res.Notes {
		fmt.Fprintln(env.Stdout, n)
	}
	me := env.session(g).Identity()
	now := env.Now()
	verbed := "released"
	if renew {
		verbed = "renewed"
	}
	for _, r := range res.Changed {
		whose, note := r.Pattern, ""
		if r.Droid != me {
			whose, note = r.Droid+"'s "+r.Pattern, "forced"
		}
		if renew {
			note = strings.TrimPrefix(note+"; expires "+relTime(now, r.Expiry()), "; ")
		}
		if note != "" {
			note = " (" + note + ")"
		}
		fmt.Fprintf(env.Stdout, "%s %s%s\n", verbed, whose, note)
	}
	printNotified(env, res.Notified)
	return nil
}

// printNotified says whom a forced change told, and with which message.
func printNotified(env *Env, sent []records.Message) {
	for _, m := range sent {
		fmt.Fprintf(env.Stdout, "told %s (%s)\n", m.To, m.ID)
	}
}
