// Command git-queen is the `git queen` subcommand. Git runs it when a user
// types `git queen ...` and the binary is on PATH as git-queen.
package main

import (
	"os"

	"github.com/git-queen/git-queen/internal/front/commands"
)

func main() {
	os.Exit(commands.Main(os.Args))
}
