package commands

import (
	"fmt"
	"io"

	"github.com/urfave/cli/v2"
)

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

// moreLine tells a person that a table was cut.
func moreLine(w io.Writer, more int) {
	if more > 0 {
		fmt.Fprintf(w, "... and %d more (--limit 0 shows all)\n", more)
	}
}
