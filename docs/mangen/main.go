//go:build !urfave_cli_no_docs

// Command mangen writes git-queen(1) from the command definitions, the same
// ones -h prints, with urfave/cli's roff renderer. It runs at build time
// (`go generate ./docs`), so that the git-queen binary embeds the result
// instead of linking the renderer.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/git-queen/git-queen/internal/front/commands"
)

func main() {
	out := flag.String("o", "git-queen.1", "write the man page to `FILE`")
	flag.Parse()
	page, err := commands.ManApp().ToManWithSection(1)
	if err == nil {
		err = os.WriteFile(*out, []byte(page), 0o644)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "mangen: %v\n", err)
		os.Exit(1)
	}
}
