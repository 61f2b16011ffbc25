package commands

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/git-queen/git-queen/internal/app"
	"github.com/git-queen/git-queen/internal/format/records"
)

// show runs the use case uc with req for a command run with g and prints
// its result: as JSON with --json, else by text.
func show[Req, Res any](env *Env, g globals, uc app.UseCase[Req, Res], req Req, text func(Res) error) error {
	res, err := uc.Run(env.session(g), req)
	if err != nil {
		return err
	}
	if g.JSON {
		return printJSON(env.Stdout, res)
	}
	return text(res)
}

// showRefusal is show for a use case whose refusal, an error of type E,
// its result describes (paths held, files invalid): the result is printed
// either way, and the refusal is then only an exit code.
func showRefusal[E error, Req, Res any](env *Env, g globals, uc app.UseCase[Req, Res], req Req, text func(Res) error) error {
	res, err := uc.Run(env.session(g), req)
	if err != nil && !errors.As(err, new(E)) {
		return err
	}
	return printVerdict(env, g, res, err != nil, exitCode(err), func() error { return text(res) })
}

// printVerdict prints the outcome of a command that judges (a check, a
// hook): out as JSON with --json, else by text; then, when the verdict
// failed, the exit code is code, and the outcome has said why.
func printVerdict(env *Env, g globals, out any, failed bool, code int, text func() error) error {
	if g.JSON {
		if err := printJSON(env.Stdout, out); err != nil {
			return err
		}
	} else if err := text(); err != nil {
		return err
	}
	if failed {
		return &SilentError{Code: code}
	}
	return nil
}

// maxProblemsShown bounds the warnings a command prints about bad lines.
const maxProblemsShown = 5

// warnProblems tells a person about lines a command could not read. They
// are never skipped in silence, but they do not stop the command: the rest
// of the store is still good.
func warnProblems(w io.Writer, problems []app.Problem) {
	warnEach(w, problems, "skipped ", " unreadable lines")
}

// warnEach warns of the first few problems, each after verb, and counts
// the rest (what names them).
func warnEach(w io.Writer, problems []app.Problem, verb, what string) {
	for i, p := range problems {
		if i == maxProblemsShown {
			fmt.Fprintf(w, "git-queen: warning: ... and %d more%s; run `git queen validate`\n", len(problems)-i, what)
			return
		}
		fmt.Fprintf(w, "git-queen: warning: %s%s\n", verb, p)
	}
}

// printOutcome is a --json command's output when a refusal of type E
// (or none) leaves a result that says what it ran into: res on stdout
// unless ok is false, and err, the refusal, for stderr and the exit code.
func printOutcome[E error](env *Env, res any, ok bool, err error) error {
	if ok && (err == nil || errors.As(err, new(E))) {
		if jerr := printJSON(env.Stdout, res); jerr != nil {
			return jerr
		}
	}
	return err
}

// printPublished says where a grant stands with the remote ("" for none):
// published, or what the next sync does with it (pending follows the
// remote's name).
func printPublished(env *Env, remote string, published bool, pending string) {
	switch {
	case remote == "":
	case published:
		fmt.Fprintf(env.Stdout, "published to %s\n", remote)
	default:
		fmt.Fprintf(env.Stdout, "not published yet: the next git queen sync publishes it to %s%s\n", remote, pending)
	}
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

// flushMore flushes the table, then tells a person on w that a limit cut
// more rows.
func (t *table) flushMore(w io.Writer, more int) error {
	if err := t.flush(); err != nil || more <= 0 {
		return err
	}
	fmt.Fprintf(w, "... and %d more (--limit 0 shows all)\n", more)
	return nil
}

// truncate shortens s to n characters for a table cell.
func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// limitFlag is --limit/-n, QueenBee's spelling for "at most N rows".
// def is the default (0: all).
func limitFlag(def int) cli.Flag {
	usage := "at most `N` rows, the most recent (0: all)"
	if def > 0 {
		usage = fmt.Sprintf("at most `N` rows, the most recent (default %d in a table, all with --json; 0: all)", def)
	}
	return &cli.IntFlag{Name: "limit", Aliases: []string{"n"}, Value: def, Usage: usage}
}

// tableLimit is the limit a listing applies: an explicit --limit, else
// def for a table and none for --json (a program wants everything unless
// it says otherwise).
func tableLimit(c *cli.Context, def int) int {
	if c.IsSet("limit") {
		return c.Int("limit")
	}
	if c.Bool("json") {
		return 0
	}
	return def
}
