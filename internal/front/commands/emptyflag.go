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
