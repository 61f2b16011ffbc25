package main

import (
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/git-queen/git-queen/internal/front/commands"
	"github.com/git-queen/git-queen/internal/front/mcpserver"
	"github.com/git-queen/git-queen/internal/testgit"
)

var update = flag.Bool("update", false, "update the expected output inside testdata/script/*.txtar")

// TestMain lets the test binary act as git-queen, so scripts run the real
// command (through git, as `git queen`) without a separate build.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"git-queen":     func() { os.Exit(commands.Main(os.Args)) },
		"git-queen-mcp": func() { os.Exit(mcpserver.Main(os.Args)) },
	})
}

// TestScripts runs the end-to-end scripts in testdata/script: real git,
// real repositories, the real binary. Each script gets a private HOME and no
// global or system git configuration.
func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:           filepath.Join("testdata", "script"),
		UpdateScripts: *update,
		Setup: func(env *testscript.Env) error {
			home := filepath.Join(env.WorkDir, ".home")
			for k, v := range testgit.IsolatedEnv(home) {
				env.Setenv(k, v)
			}
			// One clock for every process a script starts: what they print
			// must not depend on how fast the machine runs them.
			env.Setenv("QUEEN_NOW", scriptNow)
			return os.MkdirAll(home, 0o755)
		},
	})
}

// scriptNow is the clock of the end-to-end scripts' processes.
var scriptNow = time.Now().UTC().Truncate(time.Second).Format(time.RFC3339)
