package commands

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/git-queen/git-queen/docs"
)

// ManApp is the application the man page describes, for the generator of
// docs/git-queen.1 (see package docs): the binary itself never renders the
// page, so that it does not link urfave/cli's markdown renderer. Build it
// with -tags urfave_cli_no_docs to leave the renderer out altogether.
func ManApp() *cli.App {
	return newApp(&Env{Getenv: func(string) string { return "" }, Now: time.Now, Dir: "."})
}

func manCommand(env *Env) *cli.Command {
	return &cli.Command{
		Name:  "man",
		Usage: "print or install the git-queen man page (so `git queen --help` and `git help queen` work)",
		Description: `Git answers 'git queen --help' by opening the man page git-queen(1). This
command prints that page, generated at build time from the same definitions
as -h (a test keeps the two in step).

With --install it writes the page to DIR/man1/git-queen.1, where DIR defaults
to ../share/man next to the git-queen binary. man finds pages there for every
bin directory on PATH (for 'go install', $(go env GOPATH)/share/man).`,
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "install", Usage: "write the page where man finds it instead of printing it"},
			&cli.StringFlag{Name: "dir", Usage: "install under man directory `DIR` (it gets a man1/ subdirectory)"},
		},
		Action: noArgs("; give the directory with --dir DIR", func(c *cli.Context) error {
			return runMan(env, c.Bool("install"), c.String("dir"))
		}),
	}
}

// runMan prints the man page, or with install writes it under dir (by
// default the share/man beside the binary's bin directory).
func runMan(env *Env, install bool, dir string) error {
	page := docs.ManPage
	if !install {
		_, err := fmt.Fprint(env.Stdout, page)
		return err
	}
	if dir == "" {
		exe, err := os.Executable()
		if err == nil {
			exe, err = filepath.EvalSymlinks(exe)
		}
		if err != nil {
			return fmt.Errorf("find the git-queen binary: %w; pass --dir", err)
		}
		dir = filepath.Join(filepath.Dir(filepath.Dir(exe)), "share", "man")
	}
	target := filepath.Join(dir, "man1", "git-queen.1")
	if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
		return fmt.Errorf("create %s: %w", filepath.Dir(target), err)
	}
	if err := os.WriteFile(target, []byte(page), 0o644); err != nil {
		return fmt.Errorf("write the man page: %w", err)
	}
	fmt.Fprintf(env.Stdout, "installed %s\n", target)
	return nil
}
