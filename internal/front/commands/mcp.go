package commands

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/urfave/cli/v2"
)

// mcpProgram is the MCP server's own executable. It is a program of its
// own so that git-queen, which git starts for every hook and merge, does
// not pay the MCP SDK's size and start-up (a 19 MB binary that starts 1.5
// times slower).
const mcpProgram = "git-queen-mcp"

func mcpCommand(env *Env) *cli.Command {
	return &cli.Command{
		Name:  "mcp",
		Usage: "serve git-queen to an agent runtime as Model Context Protocol tools, over stdio",
		Description: `Runs an MCP server (the program git-queen-mcp, installed beside git-queen) on
standard input and output, with one tool for each thing a droid does:
reserve, release, renew, check, reservations, send, inbox, read, reply,
thread, wait, assign, claim, unassign, assignments, ready, steal, droids,
sync, validate. Each tool does what the git-queen command of that name
does, in the repository of the server's working directory, and returns its
--json output as structured content and as text. Paths and patterns are
read from the top of the repository, as the tools' schemas say, even when
the server runs in a subdirectory. The listings (inbox, thread,
reservations, assignments, ready, droids) return the first 50 rows unless
the call gives a limit (at most 1000), inbox and thread no more than 1 MiB
of messages, and say in "more" how many they left out; a result lists at
most 20 of the lines its store could not read ("problems_more" counts the
rest).
A failure is a tool error whose structured content is {"error":{"code",
"kind","message"}} (with the command's output as "result" when it printed
one, such as check's holders), and whose text is the message followed by
that JSON. Arguments that do not fit a tool's input schema (missing,
unknown, of the wrong type) are a usage error of the same shape. The
schemas use plain JSON types, and every tool carries annotations
(readOnlyHint, destructiveHint, idempotentHint, openWorldHint).

wait gives up after 50s unless given a timeout: MCP clients give up on a
call after 60s by default. While it waits it sends progress notifications
when the call asks for them, so a client that resets its timeout on
progress can pass a longer timeout.

The droid the tools act as is the server's: --droid, else $QUEEN_DROID,
else git config queen.droid. No tool takes it as an argument, so an agent
cannot act as another droid. Never commit an identity (QUEEN_DROID in a
committed .mcp.json makes every checkout that one droid): give each
worktree its own with git queen init --droid NAME, and commit a server
entry without one.

Each message is one line of JSON (MCP's stdio framing), at most 4 MiB: a
line that is not a JSON-RPC request gets a JSON-RPC error reply (parse error
or invalid request), a longer one is refused as soon as it passes the bound,
and the server goes on serving either way.

Register it with an agent runtime, started in the worktree:

  # a committed .mcp.json (Claude Code); each worktree's own identity
  {"mcpServers": {"git-queen": {"type": "stdio", "command": "git", "args": ["queen", "mcp"]}}}
  # yours only, not committed (Claude Code's local scope)
  claude mcp add git-queen -- git queen --droid ann mcp
  # .vscode/mcp.json, and any client that does not start servers in the worktree
  {"servers": {"git-queen": {"type": "stdio", "command": "git",
                             "args": ["-C", "${workspaceFolder}", "queen", "mcp"]}}}`,
		Action: noArgs("", func(c *cli.Context) error {
			return runMCP(env, readGlobals(c))
		}),
	}
}

// runMCP replaces this process with git-queen-mcp, which inherits the
// standard streams, the directory and the environment.
func runMCP(env *Env, g globals) error {
	prog, err := findMCPProgram()
	if err != nil {
		return err
	}
	args := []string{mcpProgram}
	if g.Droid != "" {
		args = append(args, "--droid", g.Droid)
	}
	if g.BeadsDir != "" {
		args = append(args, "--beads-dir", g.BeadsDir)
	}
	if err := os.Chdir(env.Dir); err != nil {
		return err
	}
	return execMCP(prog, args)
}

// findMCPProgram looks beside this executable first (go install puts both
// in one directory), then on PATH.
func findMCPProgram() (string, error) {
	if self, err := os.Executable(); err == nil {
		p := filepath.Join(filepath.Dir(self), mcpProgram)
		if info, err := os.Stat(p); err == nil && !info.IsDir() {
			return p, nil
		}
	}
	p, err := exec.LookPath(mcpProgram)
	if err != nil {
		return "", errors.New("git queen mcp needs the program git-queen-mcp, which is neither beside git-queen nor on PATH; " +
			"install it with `go install -tags urfave_cli_no_docs github.com/git-queen/git-queen/cmd/git-queen-mcp@latest`")
	}
	return p, nil
}
