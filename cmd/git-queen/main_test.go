package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/git-queen/git-queen/internal/front/commands"
	"github.com/git-queen/git-queen/internal/front/mcpserver"
	"github.com/git-queen/git-queen/internal/gitrepo"
	"github.com/git-queen/git-queen/internal/testgit"
)

var update = flag.Bool("update", false, "update the expected output inside testdata/script/*.txtar")

// TestMain puts git-queen and git-queen-mcp on PATH for the scripts and
// the tests that run them as processes (through git, as `git queen`). They
// are the binaries README.md builds (see builtBinaries); where they cannot
// be built, the test binary stands in for them, as testscript.Main makes
// it able to.
func TestMain(m *testing.M) {
	testscript.Main(builtBinaries{m}, map[string]func(){
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
		Condition: gitCondition,
	})
}

// gitCondition is the scripts' condition [git:X.Y] (or X.Y.Z): the git on
// PATH is that version or newer. A script of something an older git does
// otherwise (Ubuntu 22.04 has 2.34) says what it does there.
func gitCondition(cond string) (bool, error) {
	want, ok := strings.CutPrefix(cond, "git:")
	if !ok {
		return false, fmt.Errorf("unknown condition %q", cond)
	}
	need, err := gitrepo.ParseGitVersion(want)
	if err != nil {
		return false, fmt.Errorf("condition %q: %w", cond, err)
	}
	have, err := gitrepo.InstalledGit()
	if err != nil {
		return false, err
	}
	return have.AtLeast(need), nil
}

// scriptNow is the clock of the end-to-end scripts' processes.
var scriptNow = time.Now().UTC().Truncate(time.Second).Format(time.RFC3339)

// builtBinaries runs the tests with the commands built as README.md builds
// them on PATH, ahead of the copies of the test binary testscript.Main put
// there. Thousands of processes start in these tests, and the test binary
// (twice the size, linking the MCP SDK's client, testscript and the man
// page renderer) took 7.0 ms to print its version where the built
// git-queen took 3.4 ms.
type builtBinaries struct{ m *testing.M }

func (b builtBinaries) Run() int {
	dir, err := os.MkdirTemp("", "git-queen-e2e-bin")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	args := []string{"build", "-tags", "urfave_cli_no_docs", "-o", dir + string(filepath.Separator)}
	if raceDetecting() { // go test -race: the commands look for data races too
		args = append(args, "-race")
	}
	build := exec.Command("go", append(args,
		"github.com/git-queen/git-queen/cmd/git-queen", "github.com/git-queen/git-queen/cmd/git-queen-mcp")...)
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "cannot build the commands, the test binary runs as them: %v\n%s", err, out)
	} else {
		os.Setenv("PATH", dir+string(filepath.ListSeparator)+os.Getenv("PATH"))
	}
	// The tests that run in parallel cannot isolate git with t.Setenv
	// (testgit.Isolate): they share an empty HOME, set once the commands
	// are built (go build needs the real one, for its caches), which must
	// stay empty.
	home := filepath.Join(dir, "home")
	if err := testgit.IsolateProcess(home); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	// Each test is a chain of processes that keeps well under one core
	// busy: unless -parallel says otherwise, twice as many as there are
	// cores run at once (go test -count=1 ./cmd/git-queen on a quiet
	// 2-core machine: 146 s with 2 at once, 104 s with 4, at the same CPU).
	flag.Parse()
	parallel := false
	flag.Visit(func(f *flag.Flag) { parallel = parallel || f.Name == "test.parallel" })
	if !parallel {
		flag.Set("test.parallel", strconv.Itoa(2*runtime.GOMAXPROCS(0)))
	}
	code := b.m.Run()
	if written, _ := os.ReadDir(home); len(written) > 0 && code == 0 {
		fmt.Fprintf(os.Stderr, "FAIL: a test wrote %s in the HOME the parallel tests share: it must call testgit.Isolate and not run in parallel\n", written[0].Name())
		return 1
	}
	return code
}

// raceDetecting reports whether this test binary was built with -race.
func raceDetecting() bool {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return false
	}
	for _, s := range info.Settings {
		if s.Key == "-race" {
			return s.Value == "true"
		}
	}
	return false
}
