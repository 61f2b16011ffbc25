package commands

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/git-queen/git-queen/internal/app"
	"github.com/git-queen/git-queen/internal/domain/assignments"
	"github.com/git-queen/git-queen/internal/domain/messages"
	"github.com/git-queen/git-queen/internal/domain/reservations"
	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/storage/jsonl"
	"github.com/git-queen/git-queen/internal/storage/ledger"
	"github.com/git-queen/git-queen/internal/team/ledgersync"
)

// storeFiles are the logs compact and archive work on in a plain
// directory store (the live store adds the received ones).
var storeFiles = records.LogFiles()

func maintenanceCommands(env *Env) []*cli.Command {
	return []*cli.Command{newCompactCmd(env, runMaintenance), newArchiveCmd(env, runMaintenance)}
}

// newCompactCmd builds `compact`; like newReserveCmd, it hands runF the
// options its argv gives.
func newCompactCmd(env *Env, runF func(maintenanceOptions) error) *cli.Command {
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
			return runF(maintenanceOptions{Env: env, G: readGlobals(c)})
		}),
	}
}

// newArchiveCmd builds `archive --before DATE`.
func newArchiveCmd(env *Env, runF func(maintenanceOptions) error) *cli.Command {
	o := maintenanceOptions{Env: env, Archive: true}
	return &cli.Command{
		Name:      "archive",
		Usage:     "move old records to <store>_archive.jsonl",
		ArgsUsage: " ",
		Description: `Moves every version of: messages created before DATE; assignments that ended
before DATE; reservations that stopped being active before DATE. The archive
file is written (and synced) before the store is rewritten, so a crash can
leave a record in both, never in neither; running archive again finishes.`,
		Flags: []cli.Flag{&cli.StringFlag{Name: "before", Required: true, Destination: &o.Before,
			Usage: "cutoff `DATE` (2026-11-01, an RFC 3339 time, or a duration back from now such as 30d)"}},
		Action: noArgs("; give the cutoff with --before DATE", func(c *cli.Context) error {
			o.G = readGlobals(c)
			return runF(o)
		}),
	}
}

type maintenanceOptions struct {
	Env     *Env
	G       globals
	Archive bool
	Before  string
}

type fileStats struct {
	File string `json:"file"`
	jsonl.RewriteStats
	Archive string `json:"archive,omitempty"`
}

func runMaintenance(o maintenanceOptions) error {
	var before time.Time
	if o.Archive {
		var err error
		if before, err = app.ParseSince(o.Env.Now(), o.Before); err != nil {
			return usageErrorf("--before: %v", err)
		}
	}
	s, err := o.Env.session(o.G).OpenStore()
	if err != nil {
		return err
	}
	now := s.Now()
	old := map[string]func(jsonl.Record) bool{
		records.MessagesFile:     messages.Archivable(before),
		records.AssignmentsFile:  assignments.Archivable(before),
		records.ReservationsFile: reservations.Archivable(before, now),
	}
	rewrite := func(tx *jsonl.Tx, log *jsonl.Log, marks []int64) (jsonl.RewriteStats, []int64, error) {
		if o.Archive {
			return tx.Archive(log, old[filepath.Base(log.Path)], marks)
		}
		return tx.Compact(log, marks)
	}
	var done []ledgersync.Rewritten
	sy, err := o.Env.session(o.G).OpenSyncer(s, o.Env.identity(o.G))
	switch {
	case err == nil:
		defer sy.Close()
		if done, err = sy.Rewrite(rewrite); err != nil {
			return err
		}
	case s.WS.Live && !errors.Is(err, ledger.ErrUnsupported):
		return err
	default: // a plain directory store, or a repository without a ledger (SHA-256)
		err := s.Update(func(tx *jsonl.Tx) error {
			for _, name := range storeFiles {
				for _, log := range s.Logs(name) {
					st, _, err := rewrite(tx, log, nil)
					if err != nil {
						return err
					}
					done = append(done, ledgersync.Rewritten{Log: log, Stats: st})
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	var stats []fileStats
	for _, d := range done {
		if _, err := os.Stat(d.Log.Path); err != nil && d.Stats.LinesBefore == 0 {
			continue // a log that was never written
		}
		fs := fileStats{File: d.Log.Path, RewriteStats: d.Stats}
		if o.Archive {
			fs.Archive = jsonl.ArchivePath(d.Log.Path)
		}
		stats = append(stats, fs)
	}
	if o.G.JSON {
		return printJSON(o.Env.Stdout, map[string]any{"files": stats})
	}
	for _, st := range stats {
		switch {
		case o.Archive && st.Moved+st.AlreadyArchived > 0:
			fmt.Fprintf(o.Env.Stdout, "%s: moved %d lines to %s (%d lines left)\n", st.File, st.Moved+st.AlreadyArchived, st.Archive, st.LinesAfter)
		case !o.Archive && st.LinesAfter < st.LinesBefore:
			fmt.Fprintf(o.Env.Stdout, "%s: %d lines -> %d\n", st.File, st.LinesBefore, st.LinesAfter)
		default:
			fmt.Fprintf(o.Env.Stdout, "%s: nothing to do\n", st.File)
		}
		if st.Kept > 0 {
			fmt.Fprintf(o.Env.Stderr, "git-queen: warning: %s: kept %d unreadable lines as they are; run `git queen validate`\n", st.File, st.Kept)
		}
	}
	return nil
}
