package commands

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/git-queen/git-queen/internal/gitrepo"
	"github.com/git-queen/git-queen/internal/globs"
	"github.com/git-queen/git-queen/internal/ledgersync"
	"github.com/git-queen/git-queen/internal/records"
	"github.com/git-queen/git-queen/internal/reservations"
	"github.com/git-queen/git-queen/internal/store"
)

const patternHelp = `Patterns are doublestar globs (*, **, ?, [a-z], {a,b}) relative to the top of
the repository, wherever you run the command. A pattern ending in / means
everything under it. A path without wildcards means what it names in HEAD,
the index or the worktree: a file is that file alone (README.md conflicts
with **/*.md, not with **/*.go); a directory or a submodule is stored as
DIR/**, the path and everything beneath it; so is a path that does not exist
yet (create a new file first to reserve only it). The command says what it
stored.`

// reserveCommands are the reservation commands, each running its real
// run function.
func reserveCommands(env *Env) []*cli.Command {
	return []*cli.Command{
		newReserveCmd(env, runReserve),
		newReleaseCmd(env, runRelease),
		newRenewCmd(env, runRelease),
		newReservationsCmd(env, runReservations),
		newCheckCmd(env, runCheck),
	}
}

// newReserveCmd builds `reserve`: its flags fill an options value that
// runF receives. Tests pass a runF that keeps the options, so argv ->
// options is a table test without a repository (the seam gh's NewCmdX
// constructors have).
func newReserveCmd(env *Env, runF func(reserveOptions) error) *cli.Command {
	o := reserveOptions{Env: env}
	var ttl string
	var shared, exclusive bool
	return &cli.Command{
		Name:      "reserve",
		Usage:     "reserve the paths some patterns match, exclusively unless --shared (exit 5 on a conflict)",
		ArgsUsage: "PATTERN...",
		Description: `Reservations tell other droids, and git-queen's hooks, which paths you are
working on. A reservation is exclusive unless you say --shared: nobody else
may reserve the paths, and the hooks refuse other droids' commits, merges
and pushes that touch them. An exclusive reservation conflicts with any other droid's
active reservation that could match a common path; a shared one (--shared:
"I am working here too", which the hook does not enforce) only with exclusive
ones. An exclusive request with conflicts reserves nothing and exits 5,
unless --force; a shared one is granted and lists the conflicts as warnings.
Every worktree of the repository shares one store, so a reservation binds
the others at once.

With a remote configured (git queen init --remote NAME), an exclusive
reservation holds across machines: reserve fetches the remote's ledger,
checks against every clone's reservations, and reports the grant only once
a compare-and-swap push has published it, so clones racing for overlapping
patterns get one grant. When the remote cannot be reached it fails and
grants nothing; --offline grants on this machine alone, and the next
git queen sync publishes the grant or withdraws it (exit 5, naming who won).

` + patternHelp,
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "ttl", Value: "2h", Destination: &ttl, Usage: "how long it lasts: `DUR` such as 30m, 4h or 1d (from 1s to 7d)"},
			&cli.BoolFlag{Name: "shared", Destination: &shared, Usage: "a shared reservation: others may reserve shared too, and the hook does not refuse their commits"},
			&cli.BoolFlag{Name: "exclusive", Aliases: []string{"x"}, Destination: &exclusive, Usage: "nobody else may reserve or commit these paths (the default)"},
			&cli.StringFlag{Name: "reason", Destination: &o.Reason, Usage: "why, for whoever finds the conflict (`TEXT`)"},
			&cli.StringFlag{Name: "issue", Aliases: []string{"i"}, Destination: &o.Issue, Usage: "the beads issue `ID` you work on"},
			&cli.BoolFlag{Name: "force", Destination: &o.Force, Usage: "reserve despite conflicts"},
			&cli.BoolFlag{Name: "notify", Destination: &o.Notify, Usage: "send each conflicting holder a message"},
			&cli.BoolFlag{Name: "offline", Destination: &o.Offline, Usage: "with a remote configured, grant an exclusive reservation on this machine without publishing it (the next sync publishes it, or withdraws it if another clone's got there first)"},
		},
		Action: func(c *cli.Context) error {
			if shared && exclusive {
				return &UsageError{Command: "reserve", Msg: "--shared and --exclusive contradict each other; reservations are exclusive unless --shared"}
			}
			var err error
			if o.TTL, err = parseTTL("reserve", ttl); err != nil {
				return err
			}
			o.G, o.Patterns, o.Exclusive = readGlobals(c), c.Args().Slice(), !shared
			return runF(o)
		},
	}
}

type reserveOptions struct {
	Env                               *Env
	G                                 globals
	Patterns                          []string
	TTL                               time.Duration
	Exclusive, Force, Notify, Offline bool
	Reason, Issue                     string
}

// reserveJSON is reserve's --json output: the grants and conflicts, and
// where the grant stands with the remote.
type reserveJSON struct {
	reservations.Result
	// Remote is the remote the grant was published to ("" without one);
	// Published is false for a grant only this clone knows of.
	Remote    string             `json:"remote,omitempty"`
	Published bool               `json:"published"`
	Sync      *ledgersync.Result `json:"sync,omitempty"`
}

func runReserve(o reserveOptions) error {
	if len(o.Patterns) == 0 {
		return &UsageError{Command: "reserve", Msg: "name at least one PATTERN to reserve"}
	}
	if err := checkTTL("reserve", o.TTL); err != nil {
		return err
	}
	me, s, err := o.Env.openAs(o.G)
	if err != nil {
		return err
	}
	patterns, notes, err := normalizePatterns(o.Env, s, o.Patterns)
	if err != nil {
		return err
	}
	req := reservations.Request{Patterns: patterns, Droid: me, TTL: o.TTL,
		Exclusive: o.Exclusive, Reason: o.Reason, IssueID: o.Issue, Force: o.Force, Notify: o.Notify}
	out := reserveJSON{Remote: configuredRemote(s)}
	var err2 error
	if out.Remote != "" && o.Exclusive && !o.Offline {
		var rr *ledgersync.ReserveResult
		rr, err2 = reservePublished(o, s, out.Remote, req)
		if rr != nil {
			out.Result, out.Sync = rr.Result, rr.Sync
		}
		out.Published = err2 == nil
	} else if err2 = ledgersync.ClockCheck(s.WS, s.Now()); err2 != nil && o.Exclusive {
		return err2
	} else {
		out.Result, err2 = (&reservations.Store{S: s}).Reserve(req)
		out.Published = out.Remote == ""
	}
	var conflict *reservations.ConflictError
	if errors.As(err2, &conflict) && o.G.JSON {
		out.Result = reservations.Result{Granted: []records.Reservation{}, Conflicts: conflict.Conflicts, Notified: conflict.Notified}
		out.Published = false
		if jerr := printJSON(o.Env.Stdout, out); jerr != nil {
			return jerr
		}
	}
	if err2 != nil {
		return err2
	}
	res := out.Result
	if o.G.JSON {
		out.Conflicts = nonNil(out.Conflicts)
		if err := printJSON(o.Env.Stdout, out); err != nil {
			return err
		}
		if !out.Published && out.Remote != "" && !o.Offline {
			o.Env.autosync(o.G)
		}
		return nil
	}
	for _, n := range notes {
		fmt.Fprintln(o.Env.Stdout, n)
	}
	now := o.Env.Now()
	for _, r := range res.Granted {
		kind := "shared"
		if r.Exclusive {
			kind = "exclusive"
		}
		fmt.Fprintf(o.Env.Stdout, "reserved %s (%s, expires %s) %s\n", r.Pattern, kind, relTime(now, r.Expiry()), r.ID)
	}
	for _, c := range res.Conflicts {
		fmt.Fprintf(o.Env.Stderr, "git-queen: warning: %s overlaps %s held %s by %s%s (expires %s; %s)\n",
			c.Requested, c.Held.Pattern, kindOf(c.Held), c.Held.Droid, forIssue(c.Held.IssueID), relTime(now, c.Held.Expiry()), c.Example())
	}
	for _, m := range res.Notified {
		fmt.Fprintf(o.Env.Stdout, "notified %s (%s)\n", m.To, m.ID)
	}
	switch {
	case out.Remote == "":
	case out.Published:
		fmt.Fprintf(o.Env.Stdout, "published to %s\n", out.Remote)
	case o.Offline || !o.Exclusive:
		fmt.Fprintf(o.Env.Stdout, "not published yet: the next git queen sync publishes it to %s\n", out.Remote)
		if !o.Offline {
			o.Env.autosync(o.G)
		}
	}
	return nil
}

// reservePublished grants an exclusive reservation through the remote.
func reservePublished(o reserveOptions, s *store.Store, remote string, req reservations.Request) (*ledgersync.ReserveResult, error) {
	sy, err := o.Env.openSyncer(s, req.Droid)
	if err != nil {
		return nil, err
	}
	defer sy.Close()
	rr, err := sy.Reserve(remote, req)
	if rr != nil && rr.Sync != nil && !o.G.JSON {
		printSyncNotes(o.Env, rr.Sync)
	}
	return rr, err
}

// parseTTL reads --ttl in the one duration syntax (parseDuration: 90s,
// 30m, 4h, 1d, 1d12h) and holds it to what a reservation may last.
func parseTTL(verb, s string) (time.Duration, error) {
	d, err := parseDuration(s)
	if err != nil {
		return 0, &UsageError{Command: verb, Msg: fmt.Sprintf("--ttl %q: give a duration such as 30m, 4h or 1d", s)}
	}
	if d < time.Second || d > reservations.MaxTTL {
		return 0, &UsageError{Command: verb, Msg: fmt.Sprintf("--ttl %s is out of range: reservations last from a second to 7d (renew to keep one longer)", s)}
	}
	return d, nil
}

// checkTTL refuses a --ttl that is not positive. (The store treats zero as
// "the default", so an explicit 0s must stop here.)
func checkTTL(verb string, ttl time.Duration) error {
	if ttl <= 0 {
		return &UsageError{Command: verb, Msg: fmt.Sprintf("--ttl %s: a reservation must last a positive time", ttl)}
	}
	return nil
}

func kindOf(r records.Reservation) string {
	if r.Exclusive {
		return "exclusively"
	}
	return "shared"
}

func forIssue(id string) string {
	if id == "" {
		return ""
	}
	return " for " + id
}

// normalizePatterns applies the normalisations every pattern gets before
// it is stored (globs.NormalizeIn): a trailing / means /**, and what the
// repository (HEAD, the index and the worktree) says a literal path names
// is written into the pattern, once, so that every clone compares the same
// stored patterns the same way whatever it has checked out: a file stays
// itself, a directory, a submodule or a path that does not exist yet
// becomes DIR/**. The notes say what a pattern became, and why.
func normalizePatterns(e *Env, s *store.Store, patterns []string) ([]string, []string, error) {
	prefix := e.topPrefix(s)
	var out, notes []string
	for _, given := range patterns {
		p := patternFromTop(prefix, given)
		var asked string
		var found globs.PathKind
		var kind globs.KindFunc
		if s.WS.Repo != nil {
			kind = func(path string) (globs.PathKind, error) {
				k, err := repoKind(s.WS.Repo, path)
				asked, found = path, k
				return k, err
			}
		}
		n, err := reservations.Normalize(p, kind)
		if err != nil {
			return nil, nil, err
		}
		switch {
		case n == p || strings.HasSuffix(p, "/") && n == p+"**":
			if p != given && !strings.HasPrefix(given, ":/") {
				notes = append(notes, fmt.Sprintf("%s, from %s: %s", given, strings.TrimSuffix(prefix, "/"), n))
			}
		case found == globs.Dir:
			notes = append(notes, fmt.Sprintf("%s is a directory: reserving %s", asked, n))
		case found == globs.File:
			notes = append(notes, fmt.Sprintf("%s is a file: reserving %s", asked, n))
		default:
			notes = append(notes, fmt.Sprintf("%s does not exist yet: reserving %s, the path and anything created beneath it "+
				"(to reserve only a new file, create it first)", asked, n))
		}
		out = append(out, n)
	}
	return out, notes, nil
}

// selectingPatterns normalises the patterns release and renew select
// reservations with: a literal path selects the reservations of the path
// and of what is beneath it, whether it was reserved as a file or, before
// it existed, as DIR/**.
func selectingPatterns(e *Env, s *store.Store, patterns []string) ([]string, error) {
	prefix := e.topPrefix(s)
	out := make([]string, 0, len(patterns))
	for _, given := range patterns {
		n, err := reservations.Normalize(patternFromTop(prefix, given), func(string) (globs.PathKind, error) { return globs.Dir, nil })
		if err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return out, nil
}

// repoKind is what the repository's HEAD, index and worktree say path
// names, in globs' terms.
func repoKind(repo *gitrepo.Repo, path string) (globs.PathKind, error) {
	k, err := repo.PathKinds([]string{path})
	if err != nil {
		return globs.Absent, fmt.Errorf("look up %s in the repository: %w", path, err)
	}
	return globKinds[k[0]], nil
}

// globKinds translates gitrepo's kinds of path into globs'.
var globKinds = map[gitrepo.PathKind]globs.PathKind{
	gitrepo.PathAbsent: globs.Absent, gitrepo.PathFile: globs.File,
	gitrepo.PathDir: globs.Dir, gitrepo.PathBeneathFile: globs.BeneathFile,
}
