package commands

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/urfave/cli/v2"

	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/format/schema"
)

func schemaCommand(env *Env) *cli.Command {
	return &cli.Command{
		Name:  "schema",
		Usage: "list and print the JSON Schemas of every seed format",
		Description: `git-queen validates against JSON Schema (2020-12) files, one per record
type, built into the binary. Other tools can use the same files:
'git queen schema show NAME > NAME.schema.json'. Rules a schema cannot state
(stream order, cycles, the st replay contract) are listed with the formats.`,
		Subcommands: []*cli.Command{
			{
				Name:  "list",
				Usage: "list the schemas, the formats and where they apply, and git-queen's own rules",
				Action: noArgs("; print one with git queen schema show NAME", func(c *cli.Context) error {
					return runSchemaList(env, readGlobals(c))
				}),
			},
			{
				Name:      "show",
				Usage:     "print one schema",
				ArgsUsage: "NAME",
				Action: func(c *cli.Context) error {
					if c.NArg() != 1 {
						return &UsageError{Command: "schema show", Msg: "name one schema (git queen schema list shows them)"}
					}
					return runSchemaShow(env, c.Args().First())
				},
			},
		},
	}
}

type schemaEntry struct {
	Name  string `json:"name"`
	Title string `json:"title"`
}

type formatEntry struct {
	*schema.Format
	Paths []string `json:"paths"`
}

type schemaList struct {
	Schemas []schemaEntry     `json:"schemas"`
	Formats []formatEntry     `json:"formats"`
	Rules   map[string]string `json:"rules"`
}

func runSchemaList(env *Env, g globals) error {
	var l schemaList
	for _, n := range schema.Names() {
		l.Schemas = append(l.Schemas, schemaEntry{n, schema.Title(n)})
	}
	for _, f := range schema.Formats() {
		e := formatEntry{Format: f, Paths: []string{}}
		for _, r := range schema.DefaultRules {
			if r.Format == f.Name {
				e.Paths = append(e.Paths, r.Path)
			}
		}
		switch {
		case f.Name == "st":
			e.Paths = append(e.Paths, `any *.jsonl whose first line is a v3 record ("v":3, a lane)`)
		case slices.ContainsFunc(records.Kinds, func(k records.Kind) bool { return k.Format == f.Name }):
			e.Paths = append(e.Paths, "any other *.jsonl in a .beads/ directory whose first record's id has the prefix")
		}
		l.Formats = append(l.Formats, e)
	}
	l.Rules = schema.Rules
	if g.JSON {
		return printJSON(env.Stdout, l)
	}
	tw := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SCHEMA\tTITLE")
	for _, s := range l.Schemas {
		fmt.Fprintf(tw, "%s\t%s\n", s.Name, s.Title)
	}
	fmt.Fprintln(tw, "\nFORMAT\tSCHEMA\tSEED\tFILES")
	for _, f := range l.Formats {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", f.Name, dash(f.Schema), f.Seed, strings.Join(f.Paths, ", "))
	}
	fmt.Fprintln(tw, "\nRULE\tCHECKED BY GIT-QUEEN BEYOND THE SCHEMAS")
	for _, n := range slices.Sorted(maps.Keys(l.Rules)) {
		fmt.Fprintf(tw, "%s\t%s\n", n, l.Rules[n])
	}
	return tw.Flush()
}

// dash is s, or "-" for an empty table cell.
func dash(s string) string { return cmp.Or(s, "-") }

func runSchemaShow(env *Env, name string) error {
	src, err := schema.Source(name)
	if err != nil {
		return &UsageError{Command: "schema show", Msg: err.Error()}
	}
	_, err = env.Stdout.Write(src)
	return err
}
