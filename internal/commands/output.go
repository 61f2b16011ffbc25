package commands

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/git-queen/git-queen/internal/jsonl"
	"github.com/git-queen/git-queen/internal/ledgersync"
	"github.com/git-queen/git-queen/internal/records"
	"github.com/git-queen/git-queen/internal/reservations"
	"github.com/git-queen/git-queen/internal/store"
)

// openStore finds the store directory and opens it with this Env's clock,
// reporting torn-tail repairs on stderr as they happen.
func (e *Env) openStore(g globals) (*store.Store, error) {
	ws, err := e.workspace(g)
	if err != nil {
		return nil, err
	}
	s := &store.Store{
		WS:    ws,
		Clock: e.Now,
		OnRepair: func(r jsonl.Repair) {
			fmt.Fprintf(e.Stderr, "git-queen: warning: %s\n", r)
		},
	}
	if ws.Live {
		s.Fetched = ledgersync.Fetched(ws, s.Now)
	}
	if ws.Repo != nil {
		// A case-insensitive file system: SRC/a.go is src/a.go.
		v, _ := ws.Repo.LocalConfig("core.ignorecase")
		reservations.IgnoreCase(strings.EqualFold(strings.TrimSpace(v), "true"))
	}
	return s, nil
}

// openAs is what a command that writes as a droid starts with: the droid's
// identity (an error without one) and the store.
func (e *Env) openAs(g globals) (string, *store.Store, error) {
	me, err := e.requireIdentity(g)
	if err != nil {
		return "", nil, err
	}
	s, err := e.openStore(g)
	return me, s, err
}

// maxProblemsShown bounds the warnings a command prints about bad lines.
const maxProblemsShown = 5

// warnProblems tells a person about lines a command could not read. They
// are never skipped in silence, but they do not stop the command: the rest
// of the store is still good.
func warnProblems(w io.Writer, problems []jsonl.Problem) {
	for i, p := range problems {
		if i == maxProblemsShown {
			fmt.Fprintf(w, "git-queen: warning: ... and %d more unreadable lines; run `git queen validate`\n", len(problems)-i)
			return
		}
		fmt.Fprintf(w, "git-queen: warning: skipped %s\n", p.Error())
	}
}

// problemsJSON is how --json output lists unreadable lines.
type problemJSON struct {
	File string `json:"file"`
	Line int    `json:"line"`
	Msg  string `json:"message"`
}

func problemsJSON(problems []jsonl.Problem) []problemJSON {
	out := make([]problemJSON, 0, len(problems))
	for _, p := range problems {
		out = append(out, problemJSON{p.File, p.Line, p.Msg})
	}
	return out
}

// relTime says when t is relative to now, for tables: "in 1h12m".
func relTime(now, t time.Time) string { return records.Relative(now, t) }

// table writes aligned columns for people.
type table struct {
	tw *tabwriter.Writer
}

func newTable(w io.Writer, header ...string) *table {
	t := &table{tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)}
	t.row(header...)
	return t
}

func (t *table) row(cells ...string) {
	for i, c := range cells {
		cells[i] = strings.ReplaceAll(strings.ReplaceAll(c, "\t", " "), "\n", " ")
	}
	fmt.Fprintln(t.tw, strings.Join(cells, "\t"))
}

func (t *table) flush() error { return t.tw.Flush() }

// truncate shortens s to n characters for a table cell.
func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// parseSince reads --since: a duration back from now ("2h", "3d") or a time
// (RFC 3339, or a date YYYY-MM-DD in UTC).
func parseSince(now time.Time, s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	if d, err := parseDuration(s); err == nil {
		return now.Add(-d), nil
	}
	return parseDate(s)
}

// parseDuration is the one duration syntax of every flag: Go's (90s, 30m,
// 1h30m) with a leading count of days (1d, 3d, 1d12h).
func parseDuration(s string) (time.Duration, error) {
	if days, rest, ok := strings.Cut(s, "d"); ok {
		n, err := strconv.Atoi(days)
		if err != nil || n < 0 || strconv.Itoa(n) != days || n > 100000 {
			return 0, fmt.Errorf("invalid duration %q", s)
		}
		d := time.Duration(n) * 24 * time.Hour
		if rest == "" {
			return d, nil
		}
		more, err := time.ParseDuration(rest)
		if err != nil || more < 0 {
			return 0, fmt.Errorf("invalid duration %q", s)
		}
		return d + more, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, err
	}
	if d < 0 {
		return 0, fmt.Errorf("negative duration %s", s)
	}
	return d, nil
}

// parseDate reads a time as RFC 3339 or a date (midnight UTC).
func parseDate(s string) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t.UTC(), nil
	}
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		return t, nil
	}
	return time.Time{}, fmt.Errorf("%q is neither a duration (2h, 3d) nor a time (2026-11-01 or 2026-11-01T12:00:00Z)", s)
}
