package commands

import (
	"strings"

	"github.com/urfave/cli/v2"
)

// refuseEmpty refuses the flag name given empty or blank (an unset shell
// variable: --reply-to "$ID"), which would read as the flag left out and
// act on what the caller did not name: a wait that takes any message, a
// send that starts a thread instead of answering, a release of one's own
// reservations. what names the value to give; otherwise says what leaving
// the flag out does.
func refuseEmpty(c *cli.Context, command, name, what, otherwise string) error {
	if c.IsSet(name) && strings.TrimSpace(c.String(name)) == "" {
		return &UsageError{Command: command, Msg: "--" + name + " is empty: give the " + what + ", or leave the flag out to " + otherwise}
	}
	return nil
}

// refuseEmptyFilters refuses any of a listing's filter flags names given
// empty (--droid "$D" with D unset): the listing would show every row, as
// if the filter were left out, and a script read them as the filter's.
func refuseEmptyFilters(c *cli.Context, names ...string) error {
	for _, name := range names {
		if err := refuseEmpty(c, commandPath(c), name, "value to filter by", "list them all"); err != nil {
			return err
		}
	}
	return nil
}
