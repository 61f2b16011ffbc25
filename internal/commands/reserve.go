package commands

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/git-queen/git-queen/internal/globs"
	"github.com/git-queen/git-queen/internal/ledgersync"
	"github.com/git-queen/git-queen/internal/records"
	"github.com/git-queen/git-queen/internal/reservations"
	"github.com/git-queen/git-queen/internal/store"
)

const patternHelp = `Patterns are doublestar globs (*, **, ?, [a-z], {a,b}) relative to the top of
the repository, wherever you run the command. A pattern ending in / means
everything under it, and a pattern that names an existing directory is
stored as DIR/** (the command says so).`

func reserveCommands(env *Env) []*cli.Command {
	return []*cli.Command{
		{
			Name:      "reserve",
			Usage:     "reserve the paths some patterns match, exclusively unless --shared (exit 5 on a conflict)",
			ArgsUsage: "PATTERN...",
			Description: `Reservations tell other droids, and the pre-commit hook, which paths you are
working on. A reservation is exclusive unless you say --shared: nobody else
may reserve the paths, and the pre-commit hook refuses other droids' commits
that touch them. An exclusive reservation conflicts with any other droid's
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
				&cli.StringFlag{Name: "ttl", Value: "2h", Usage: "how long it lasts: `DUR` such as 30m, 4h or 1d (from 1s to 7d)"},
				&cli.BoolFlag{Name: "shared", Usage: "a shared reservation: others may reserve shared too, and the hook does not refuse their commits"},
				&cli.BoolFlag{Name: "exclusive", Aliases: []string{"x"}, Usage: "nobody else may reserve or commit these paths (the default)"},
				&cli.StringFlag{Name: "reason", Usage: "why, for whoever finds the conflict (`TEXT`)"},
				&cli.StringFlag{Name: "issue", Aliases: []string{"i"}, Usage: "the beads issue `ID` you work on"},
				&cli.BoolFlag{Name: "force", Usage: "reserve despite conflicts"},
				&cli.BoolFlag{Name: "notify", Usage: "send each conflicting holder a message"},
				&cli.BoolFlag{Name: "offline", Usage: "with a remote configured, grant an exclusive reservation on this machine without publishing it (the next sync publishes it, or withdraws it if another clone's got there first)"},
			},
			Action: func(c *cli.Context) error {
				if c.Bool("shared") && c.Bool("exclusive") {
					return &UsageError{Command: "reserve", Msg: "--shared and --exclusive contradict each other; reservations are exclusive unless --shared"}
				}
				ttl, err := parseTTL("reserve", c.String("ttl"))
				if err != nil {
					return err
				}
				return runReserve(reserveOptions{Env: env, G: readGlobals(c), Patterns: c.Args().Slice(),
					TTL: ttl, Exclusive: !c.Bool("shared"), Reason: c.String("reason"),
					Issue: c.String("issue"), Force: c.Bool("force"), Notify: c.Bool("notify"), Offline: c.Bool("offline")})
			},
		},
		{
			Name:      "release",
			Aliases:   []string{"unreserve"},
			Usage:     "release your reservations: the patterns named (and any they cover), or --all; release ISSUE ends your assignment, as in QueenBee",
			ArgsUsage: "[PATTERN...|ISSUE]",
			Description: `Releases the reservations each PATTERN covers. As in QueenBee, an argument
that is an issue id you are assigned (release qb-12) ends that assignment
instead (git queen unassign qb-12); when it is both an assignment of yours
and one of your reservation patterns, release says so and does neither.`,
			Flags: []cli.Flag{&cli.BoolFlag{Name: "all", Usage: "release every reservation you hold"}},
			Action: func(c *cli.Context) error {
				return runRelease(releaseOptions{Env: env, G: readGlobals(c), Patterns: c.Args().Slice(), All: c.Bool("all")})
			},
		},
		{
			Name:      "renew",
			Usage:     "extend your reservations: the patterns named (and any they cover), or --all",
			ArgsUsage: "[PATTERN...]",
			Flags: []cli.Flag{
				&cli.BoolFlag{Name: "all", Usage: "renew every reservation you hold"},
				&cli.StringFlag{Name: "ttl", Value: "2h", Usage: "new lifetime from now: `DUR` such as 30m, 4h or 1d (from 1s to 7d)"},
			},
			Action: func(c *cli.Context) error {
				ttl, err := parseTTL("renew", c.String("ttl"))
				if err != nil {
					return err
				}
				return runRelease(releaseOptions{Env: env, G: readGlobals(c), Patterns: c.Args().Slice(), All: c.Bool("all"),
					Renew: true, TTL: ttl})
			},
		},
		{
			Name:    "reservations",
			Aliases: []string{"reserved"},
			Usage:   "list active reservations: every worktree's, and every clone's that sync or fetch brought in",
			Flags: []cli.Flag{
				&cli.BoolFlag{Name: "all", Usage: "include released and expired ones"},
				&cli.StringFlag{Name: "path", Usage: "only those that cover `PATH`"},
				&cli.StringFlag{Name: "droid", Aliases: []string{"agent"}, Usage: "only this droid's (`NAME`)"},
				limitFlag(0),
			},
			Action: func(c *cli.Context) error {
				if c.Args().Present() {
					return &UsageError{Command: "reservations", Msg: "reservations takes no arguments; filter with --path, --droid or --all"}
				}
				return runReservations(reservationsOptions{Env: env, G: readGlobals(c), Limit: c.Int("limit"), Filter: reservations.Filter{
					All: c.Bool("all"), Path: c.String("path"), Droid: c.String("droid")}})
			},
		},
		{
			Name:      "check",
			Usage:     "say whether paths are free (exit 0) or held exclusively by another droid (exit 5)",
			ArgsUsage: "PATH...",
			Description: `With --hook claude, check is a Claude Code PreToolUse hook: it reads the tool
call on stdin (the file_path of Edit, MultiEdit and Write, the notebook_path
of NotebookEdit), says nothing and exits 0 when the paths are free, and when
another droid holds one exclusively exits 2 (which refuses the edit) with a
message for the agent on stderr: who holds it, until when, and how to ask.
An error also refuses, saying why. In .claude/settings.json:

  {"hooks": {"PreToolUse": [{"matcher": "Edit|MultiEdit|Write|NotebookEdit",
    "hooks": [{"type": "command", "command": "git queen check --hook claude"}]}]}}`,
			Flags: []cli.Flag{
				&cli.StringFlag{Name: "hook", Usage: "read the paths from an agent runtime's pre-tool hook input on stdin and answer in its convention (`FORMAT`: claude)"},
			},
			Action: func(c *cli.Context) error {
				return runCheck(checkOptions{Env: env, G: readGlobals(c), Paths: c.Args().Slice(), Hook: c.String("hook")})
			},
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
	return sy.Reserve(remote, req)
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

// normalizePatterns applies the two normalisations every pattern gets
// before it is stored: a trailing / means /**, and a pattern naming an
// existing directory of the worktree means everything under it.
func normalizePatterns(e *Env, s *store.Store, patterns []string) ([]string, []string, error) {
	var isDir globs.DirFunc
	if s.WS.Repo != nil {
		isDir = globs.DirFS(os.DirFS(s.WS.Repo.TopLevel))
	}
	prefix := e.topPrefix(s)
	var out, notes []string
	for _, given := range patterns {
		p := patternFromTop(prefix, given)
		n, err := reservations.Normalize(p, isDir)
		if err != nil {
			return nil, nil, err
		}
		if n != p && !strings.HasSuffix(p, "/") {
			notes = append(notes, fmt.Sprintf("%s is a directory: reserving %s", p, n))
		} else if p != given && !strings.HasPrefix(given, ":/") {
			notes = append(notes, fmt.Sprintf("%s, from %s: %s", given, strings.TrimSuffix(prefix, "/"), n))
		}
		out = append(out, n)
	}
	return out, notes, nil
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

type reservationsOptions struct {
	Env    *Env
	G      globals
	Filter reservations.Filter
	Limit  int // at most this many, the most recent; 0 for all
}

func runReservations(o reservationsOptions) error {
	s, err := o.Env.openStore(o.G)
	if err != nil {
		return err
	}
	if o.Filter.Path != "" {
		if o.Filter.Path, err = repoPath(o.Env, s, o.Filter.Path); err != nil {
			return err
		}
	}
	list, problems, err := (&reservations.Store{S: s}).List(o.Filter)
	if err != nil {
		return err
	}
	list, more := lastN(list, o.Limit)
	now := o.Env.Now()
	// With a remote, a reservation whose latest version this clone wrote
	// after its last sync is not on the remote yet: other clones do not
	// see it (an --offline grant, a release or renewal not synced).
	remote := configuredRemote(s)
	unpublished := func(reservations.Live) bool { return false }
	if remote != "" {
		local, since := s.Log(records.ReservationsFile).Path, ledgersync.PublishedOffset(s.WS, remote, records.ReservationsFile)
		unpublished = func(l reservations.Live) bool { return l.WrittenSince(local, since) }
	}
	if o.G.JSON {
		type row struct {
			records.Reservation
			Active    bool  `json:"active"`
			Published *bool `json:"published,omitempty"`
		}
		rows := make([]row, 0, len(list))
		for _, l := range list {
			r := row{Reservation: l.Reservation, Active: l.ActiveAt(now)}
			if remote != "" {
				published := !unpublished(l)
				r.Published = &published
			}
			rows = append(rows, r)
		}
		return printJSON(o.Env.Stdout, map[string]any{"reservations": rows, "problems": problemsJSON(problems)})
	}
	warnProblems(o.Env.Stderr, problems)
	if len(list) == 0 {
		fmt.Fprintln(o.Env.Stdout, "no reservations")
		return nil
	}
	t := newTable(o.Env.Stdout, "PATTERN", "DROID", "KIND", "EXPIRES", "ISSUE", "REASON", "ID")
	for _, l := range list {
		kind := "shared"
		if l.Exclusive {
			kind = "exclusive"
		}
		if unpublished(l) {
			kind += ", unpublished"
		}
		expires := relTime(now, l.Expiry())
		switch {
		case l.Status == records.ReservationReleased:
			expires = "released"
		case !l.ActiveAt(now):
			expires = "expired " + relTime(now, l.Expiry())
		}
		t.row(l.Pattern, l.Droid, kind, expires, l.IssueID, truncate(l.Reason, 40), l.ID)
	}
	if err := t.flush(); err != nil {
		return err
	}
	moreLine(o.Env.Stdout, more)
	return nil
}

type checkOptions struct {
	Env   *Env
	G     globals
	Paths []string
	// Hook names the pre-tool hook format whose input gives the paths.
	Hook string
}

// pathStatus is one path in `check --json`.
type pathStatus struct {
	Path   string                `json:"path"`
	Free   bool                  `json:"free"`
	HeldBy []records.Reservation `json:"held_by"`
}

func runCheck(o checkOptions) error {
	if o.Hook != "" {
		return runCheckHook(o)
	}
	if len(o.Paths) == 0 {
		return &UsageError{Command: "check", Msg: "name at least one PATH to check"}
	}
	s, err := o.Env.openStore(o.G)
	if err != nil {
		return err
	}
	var paths []string // each once, however it was spelled (a.go, ./a.go)
	for _, p := range o.Paths {
		rp, err := repoPath(o.Env, s, p)
		if err != nil {
			return err
		}
		if !slices.Contains(paths, rp) {
			paths = append(paths, rp)
		}
	}
	me := o.Env.identity(o.G)
	holds, err := (&reservations.Store{S: s}).Check(me, paths)
	if err != nil {
		return err
	}
	status := make([]pathStatus, len(paths))
	for i, p := range paths {
		status[i] = pathStatus{Path: p, Free: true, HeldBy: []records.Reservation{}}
		for _, h := range holds {
			if h.Path == p {
				status[i].Free = false
				status[i].HeldBy = append(status[i].HeldBy, h.Reservation)
			}
		}
	}
	if o.G.JSON {
		if err := printJSON(o.Env.Stdout, map[string]any{"droid": me, "paths": status}); err != nil {
			return err
		}
	} else {
		now := o.Env.Now()
		for _, st := range status {
			if st.Free {
				fmt.Fprintf(o.Env.Stdout, "%s: free\n", st.Path)
				continue
			}
			for _, r := range st.HeldBy {
				fmt.Fprintf(o.Env.Stdout, "%s: held exclusively by %s (pattern %s%s, expires %s)\n",
					st.Path, r.Droid, r.Pattern, forIssue(r.IssueID), relTime(now, r.Expiry()))
			}
		}
		if me == "" && len(holds) > 0 {
			fmt.Fprintln(o.Env.Stderr, "git-queen: no droid identity, so every exclusive reservation counts; "+errNoIdentity.Msg)
		}
	}
	if len(holds) > 0 {
		return &SilentError{Code: ExitConflict}
	}
	return nil
}

// repoPath turns a path given on the command line into a repository path:
// relative to the top level, with / separators. Absolute paths inside the
// repository are accepted; paths outside it are not.
func repoPath(e *Env, s *store.Store, p string) (string, error) {
	p = fromTop(e.topPrefix(s), p)
	if s.WS.Repo == nil || s.WS.Repo.TopLevel == "" || !filepath.IsAbs(p) {
		clean := filepath.ToSlash(filepath.Clean(p))
		if clean == ".." || strings.HasPrefix(clean, "../") || strings.HasPrefix(clean, "/") {
			return "", records.Invalidf("path %s is outside the repository", p)
		}
		return clean, nil
	}
	rel, err := filepath.Rel(s.WS.Repo.TopLevel, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", records.Invalidf("path %s is outside the repository %s", p, s.WS.Repo.TopLevel)
	}
	return filepath.ToSlash(rel), nil
}

// runCheckHook is check --hook: the paths from a tool call, the answer in
// the runtime's convention. Any failure refuses the edit (exit 2) with its
// cause: a guard that cannot check must not let the change through.
func runCheckHook(o checkOptions) error {
	if len(o.Paths) > 0 {
		return &UsageError{Command: "check", Msg: "with --hook the paths come from the tool call on stdin; give no PATH"}
	}
	holds, me, err := hookHolds(o)
	if err != nil {
		var usage *UsageError
		if errors.As(err, &usage) {
			return err
		}
		fmt.Fprintf(o.Env.Stderr, "git-queen: could not check the edit against reservations: %v\n"+
			"Fix the cause, or run the edit without the hook if you are sure no other droid holds the file.\n", err)
		return &SilentError{Code: hookBlock}
	}
	if len(holds) == 0 {
		return nil
	}
	return blockEdit(o.Env.Stderr, o, me, holds)
}

func hookHolds(o checkOptions) ([]reservations.Hold, string, error) {
	paths, err := hookPaths(o.Hook, o.Env.Stdin)
	if err != nil || len(paths) == 0 {
		return nil, "", err
	}
	s, err := o.Env.openStore(o.G)
	if err != nil {
		return nil, "", err
	}
	top := ""
	if s.WS.Repo != nil {
		top = s.WS.Repo.TopLevel
	}
	var rel []string
	for _, p := range paths {
		r, err := repoPath(o.Env, s, p)
		var outside *records.InvalidError
		if errors.As(err, &outside) && top != "" && filepath.IsAbs(p) {
			continue // the tool call edits a file outside the repository: none of ours
		}
		if err != nil {
			return nil, "", err
		}
		rel = append(rel, r)
	}
	if len(rel) == 0 {
		return nil, "", nil
	}
	me := o.Env.identity(o.G)
	holds, err := (&reservations.Store{S: s}).Check(me, rel)
	return holds, me, err
}
