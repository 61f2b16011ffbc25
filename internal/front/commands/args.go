package commands

import (
	"slices"
	"strings"

	"github.com/urfave/cli/v2"
)

// reorderArgs lets flags follow positional arguments, as people and agents
// write them (`git queen reserve 'src/**' --exclusive --json`). urfave/cli v2
// stops reading flags at the first positional argument and would take
// "--exclusive" for a pattern. This pass walks the command path, moves every
// flag the command defines in front of its positional arguments, and moves
// global flags (--json, --droid, --beads-dir) up to the application, where
// they are defined. A "--" ends flag handling as usual.
func reorderArgs(app *cli.App, args []string) []string {
	if len(args) == 0 {
		return args
	}
	out := []string{args[0]}
	var global []string
	rest := args[1:]

	// Application-level flags before the command name.
	var before []string
	for len(rest) > 0 && strings.HasPrefix(rest[0], "-") && rest[0] != "--" && rest[0] != "-" {
		n := flagWidth(app.Flags, rest)
		before = append(before, rest[:n]...)
		rest = rest[n:]
	}
	var path []string
	commands := app.Commands
	var cmd *cli.Command
	for len(rest) > 0 {
		next := findCommand(commands, rest[0])
		if next == nil {
			break
		}
		cmd = next
		path = append(path, rest[0])
		rest = rest[1:]
		if len(cmd.Subcommands) == 0 {
			break
		}
		// Flags of an intermediate command (rare) stay where they are.
		commands = cmd.Subcommands
	}
	if cmd == nil || cmd.SkipFlagParsing || len(cmd.Subcommands) > 0 {
		return append(append(append(out, before...), path...), rest...)
	}
	var flags, positional []string
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		if a == "--" {
			positional = append(positional, rest[i+1:]...)
			break
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			positional = append(positional, a)
			continue
		}
		if n := flagWidth(app.Flags, rest[i:]); n > 0 && isDefined(app.Flags, a) && !isDefined(cmd.Flags, a) {
			global = append(global, rest[i:i+n]...)
			i += n - 1
			continue
		}
		n := flagWidth(cmd.Flags, rest[i:])
		flags = append(flags, rest[i:i+n]...)
		i += n - 1
	}
	out = append(out, before...)
	out = append(out, global...)
	out = append(out, path...)
	out = append(out, flags...)
	if len(positional) > 0 {
		out = append(out, "--")
		out = append(out, positional...)
	}
	return out
}

func findCommand(cmds []*cli.Command, name string) *cli.Command {
	for _, c := range cmds {
		if c.Name == name || slices.Contains(c.Aliases, name) {
			return c
		}
	}
	return nil
}

// flagName strips dashes and any "=value" from a flag argument.
func flagName(arg string) string {
	name := strings.TrimLeft(arg, "-")
	name, _, _ = strings.Cut(name, "=")
	return name
}

func lookupFlag(flags []cli.Flag, arg string) cli.Flag {
	name := flagName(arg)
	for _, f := range flags {
		if slices.Contains(f.Names(), name) {
			return f
		}
	}
	return nil
}

func isDefined(flags []cli.Flag, arg string) bool { return lookupFlag(flags, arg) != nil }

// flagWidth is how many arguments the flag at args[0] uses: 1 for a boolean
// or "--name=value", 2 for "--name value". Unknown flags count 1 and are left
// for the parser to reject.
func flagWidth(flags []cli.Flag, args []string) int {
	if strings.Contains(args[0], "=") {
		return 1
	}
	f := lookupFlag(flags, args[0])
	if f == nil {
		return 1
	}
	if dv, ok := f.(cli.DocGenerationFlag); ok && !dv.TakesValue() {
		return 1
	}
	if len(args) < 2 {
		return 1
	}
	return 2
}
