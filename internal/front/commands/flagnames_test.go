package commands

import (
	"testing"

	"github.com/urfave/cli/v2"
)

// Every flag urfave walks answers Names() with the names it worked out
// once. Before, each call ran urfave's regular expression over every name
// and made a new slice: urfave's IsSet of a flag not given calls it for
// the flags before it, about 260 runs and 0.4M instructions per msg send.
func TestFlagNamesAreWorkedOutOnce(t *testing.T) {
	app := newApp(&Env{Getenv: func(string) string { return "" }})
	flags := append([]cli.Flag{cli.HelpFlag, cli.VersionFlag}, app.Flags...)
	var walk func([]*cli.Command)
	walk = func(cmds []*cli.Command) {
		for _, c := range cmds {
			flags = append(flags, c.Flags...)
			walk(c.Subcommands)
		}
	}
	walk(app.Commands)
	for _, f := range flags {
		if first, again := f.Names(), f.Names(); &first[0] != &again[0] {
			t.Errorf("--%s: Names() worked out anew at each call", first[0])
		}
	}
}
