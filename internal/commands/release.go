package commands

import (
	"fmt"
	"time"

	"github.com/git-queen/git-queen/internal/records"
	"github.com/git-queen/git-queen/internal/reservations"
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
and one of your reservation patterns, release says so and does neither.`,
		Flags: []cli.Flag{&cli.BoolFlag{Name: "all", Destination: &o.All, Usage: "release every reservation you hold"}},
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
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "all", Destination: &o.All, Usage: "renew every reservation you hold"},
			&cli.StringFlag{Name: "ttl", Value: "2h", Destination: &ttl, Usage: "new lifetime from now: `DUR` such as 30m, 4h or 1d (from 1s to 7d)"},
		},
		Action: func(c *cli.Context) error {
			var err error
			if o.TTL, err = parseTTL("renew", ttl); err != nil {
				return err
			}
			o.G, o.Patterns = readGlobals(c), c.Args().Slice()
			return runF(o)
		},
	}
}

type releaseOptions struct {
	Env        *Env
	G          globals
	Patterns   []string
	All, Renew bool
	TTL        time.Duration
}

func runRelease(o releaseOptions) error {
	verb := "release"
	if o.Renew {
		verb = "renew"
	}
	if o.All && len(o.Patterns) > 0 {
		return &UsageError{Command: verb, Msg: "give PATTERNs or --all, not both"}
	}
	if !o.All && len(o.Patterns) == 0 {
		return &UsageError{Command: verb, Msg: fmt.Sprintf("name the PATTERNs to %s, or use --all", verb)}
	}
	if o.Renew {
		if err := checkTTL(verb, o.TTL); err != nil {
			return err
		}
	}
	me, s, err := o.Env.openAs(o.G)
	if err != nil {
		return err
	}
	args := o.Patterns
	var ended []records.Assignment
	if !o.Renew && !o.All {
		var issues []string
		if issues, args, err = releasedIssues(s, me, args); err != nil {
			return err
		}
		if ended, err = releaseIssues(o, s, me, issues); err != nil {
			return err
		}
	}
	patterns, _, err := normalizePatterns(o.Env, s, args)
	if err != nil {
		return err
	}
	rs := &reservations.Store{S: s}
	changed := []records.Reservation{}
	switch {
	case len(patterns) == 0 && !o.All:
		// Only issues were named.
	case o.Renew:
		changed, err = rs.Renew(me, patterns, o.All, o.TTL)
	default:
		changed, err = rs.Release(me, patterns, o.All)
	}
	if err != nil {
		return err
	}
	if o.G.JSON {
		key := "released"
		if o.Renew {
			key = "renewed"
		}
		out := map[string]any{key: changed}
		if len(ended) > 0 {
			out["unassigned"] = ended
		}
		return printJSON(o.Env.Stdout, out)
	}
	now := o.Env.Now()
	for _, r := range changed {
		if o.Renew {
			fmt.Fprintf(o.Env.Stdout, "renewed %s (expires %s)\n", r.Pattern, relTime(now, r.Expiry()))
		} else {
			fmt.Fprintf(o.Env.Stdout, "released %s\n", r.Pattern)
		}
	}
	return nil
}
