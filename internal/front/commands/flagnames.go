package commands

import "github.com/urfave/cli/v2"

// namedFlag is a flag whose names are worked out once. urfave's Names()
// runs a regular expression over every name at each call, and urfave calls
// it for every flag it passes: before each command's action it asks IsSet
// of every name of every flag, and IsSet of a flag not given walks the
// flags' Names() until it finds it; a msg send ran the expression about
// 190 times, a quarter of its 2.9M instructions.
type namedFlag struct {
	fullFlag
	names []string
}

// fullFlag is every interface urfave asks a flag for, so that a namedFlag
// answers each as the flag it wraps does (help prints the wrapped flag's
// String(), so it reads the same).
type fullFlag interface {
	cli.DocGenerationFlag
	cli.CategorizableFlag
	cli.RequiredFlag
	cli.ActionableFlag
}

// Names is the flag's names, worked out at the first call: a run builds
// every command of its group, and uses one.
func (f *namedFlag) Names() []string {
	if f.names == nil {
		f.names = f.fullFlag.Names()
	}
	return f.names
}

// nameFlags wraps flags in namedFlag, but for a hidden boolean, which
// urfave's completion recognizes as a *cli.BoolFlag.
func nameFlags(flags []cli.Flag) []cli.Flag {
	for i, f := range flags {
		full, ok := f.(fullFlag)
		if b, isBool := f.(*cli.BoolFlag); ok && (!isBool || !b.Hidden) {
			flags[i] = &namedFlag{fullFlag: full}
		}
	}
	return flags
}

// urfave adds its help flag to every command and its version flag to the
// application, from these globals; they are named here, before any run
// (the MCP server runs commands concurrently), with their names worked out.
func init() {
	for _, f := range []*cli.Flag{&cli.HelpFlag, &cli.VersionFlag} {
		*f = nameFlags([]cli.Flag{*f})[0]
		(*f).Names()
	}
}
