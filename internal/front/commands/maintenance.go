package commands

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/git-queen/git-queen/internal/app"
)

// newCompactCmd builds `compact`; like newReserveCmd, it hands runF the
// request its argv gives.
func newCompactCmd(env *Env, runF func(call[app.CompactRequest]) error) *cli.Command {
	return &cli.Command{
		Name:      "compact",
		Usage:     "drop superseded versions from the store's logs (keeps each id's current version, by its timestamps)",
		ArgsUsage: " ",
		Description: `Compaction only deletes lines that a later line of the same id supersedes; it
never reorders and keeps lines it cannot read. It rewrites the live store's
logs (this clone's and those sync received); the ledger (refs/queen/ledger)
keeps every version, so the history is still there, and sync carries on
where it was.`,
		Action: noArgs("; it rewrites every log of the store", func(c *cli.Context) error {
			return runF(call[app.CompactRequest]{Env: env, G: readGlobals(c)})
		}),
	}
}

// newArchiveCmd builds `archive --before DATE`.
func newArchiveCmd(env *Env, runF func(call[app.ArchiveRequest]) error) *cli.Command {
	o := call[app.ArchiveRequest]{Env: env}
	return &cli.Command{
		Name:      "archive",
		Usage:     "move old records to <store>_archive.jsonl",
		ArgsUsage: " ",
		Description: `Moves every version of: messages created before DATE; assignments that ended
before DATE; reservations that stopped being active before DATE. The archive
file is written (and synced) before the store is rewritten, so a crash can
leave a record in both, never in neither; running archive again finishes.`,
		Flags: []cli.Flag{&cli.StringFlag{Name: "before", Required: true, Destination: &o.Req.Before,
			Usage: "cutoff `DATE` (2026-11-01, an RFC 3339 time, or a duration back from now such as 30d)"}},
		Action: noArgs("; give the cutoff with --before DATE", func(c *cli.Context) error {
			o.G = readGlobals(c)
			return runF(o)
		}),
	}
}

func runCompact(o call[app.CompactRequest]) error {
	return show(o.Env, o.G, app.Compact, o.Req, func(res *app.RewriteResult) error {
		for _, f := range res.Files {
			if f.LinesAfter < f.LinesBefore {
				fmt.Fprintf(o.Env.Stdout, "%s: %d lines -> %d\n", f.File, f.LinesBefore, f.LinesAfter)
			} else {
				fmt.Fprintf(o.Env.Stdout, "%s: nothing to do\n", f.File)
			}
			warnKept(o.Env, f)
		}
		return nil
	})
}

func runArchive(o call[app.ArchiveRequest]) error {
	return show(o.Env, o.G, app.Archive, o.Req, func(res *app.RewriteResult) error {
		for _, f := range res.Files {
			if moved := f.Moved + f.AlreadyArchived; moved > 0 {
				fmt.Fprintf(o.Env.Stdout, "%s: moved %d lines to %s (%d lines left)\n", f.File, moved, f.Archive, f.LinesAfter)
			} else {
				fmt.Fprintf(o.Env.Stdout, "%s: nothing to do\n", f.File)
			}
			warnKept(o.Env, f)
		}
		return nil
	})
}

// warnKept tells a person of the lines a rewrite kept as they were,
// unreadable.
func warnKept(env *Env, f app.RewrittenLog) {
	if f.Kept > 0 {
		fmt.Fprintf(env.Stderr, "git-queen: warning: %s: kept %d unreadable lines as they are; run `git queen validate`\n", f.File, f.Kept)
	}
}
