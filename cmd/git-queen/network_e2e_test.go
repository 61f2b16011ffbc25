package main

// End-to-end tests of git-queen against remotes that misbehave: a listener
// that accepts and never answers, servers that refuse or hide the ledger,
// and remotes out of reach; and of remotes given as URLs.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/testgit"
)

// hangLimit is the upper bound a hung command would hit: generous, so
// that only a hang fails the test, never a slow machine.
const hangLimit = 90 * time.Second

// runLimited runs cmd and returns what it did, failing the test when it
// is still running after hangLimit (and killing it).
func runLimited(t *testing.T, cmd *exec.Cmd) run {
	t.Helper()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(hangLimit):
		cmd.Process.Kill()
		<-done
		t.Fatalf("%s still running after %s\nstdout:\n%s\nstderr:\n%s", strings.Join(cmd.Args, " "), hangLimit, &stdout, &stderr)
	}
	return run{stdout.String(), stderr.String(), cmd.ProcessState.ExitCode()}
}

// queenEnv runs git queen in dir as droid with extra environment.
func queenEnv(t *testing.T, dir, droid string, env []string, args ...string) run {
	t.Helper()
	cmd := queenCmd(dir, droid, args...)
	cmd.Env = append(cmd.Env, env...)
	return runLimited(t, cmd)
}

// silentListener accepts connections on loopback and never answers,
// holding each one open until the test ends: a remote that hangs.
func silentListener(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		l.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	return l.Addr().String()
}

// A fetch or push that gets no answer ends with the configured timeout
// (QUEEN_TIMEOUT, or queen.timeout), a clear error and a non-zero exit:
// sync over git:// and http://, reserve (which grants nothing, and says
// --offline), init --remote, and doctor (a warning).
func TestNetworkOperationsTimeOut(t *testing.T) {
	t.Parallel()
	addr := silentListener(t)
	r := testgit.FileRemote(t)
	seedRemote(t, r)
	dir := queenClone(t, r, "ann")
	quick := []string{"QUEEN_TIMEOUT=1s"}

	for _, url := range []string{"git://" + addr + "/team.git", "http://" + addr + "/team.git"} {
		res := queenEnv(t, dir, "ann", quick, "sync", url)
		if res.code != 1 || !strings.Contains(res.stderr, "no answer within 1s") ||
			!strings.Contains(res.stderr, "git config queen.timeout") {
			t.Errorf("sync %s against a silent listener: %s", url, describeRun([]string{"sync", url}, res))
		}
	}

	// The configured remote hangs; queen.timeout bounds it this time.
	testgit.Run(t, dir, "remote", "set-url", "origin", "http://"+addr+"/team.git")
	testgit.Run(t, dir, "config", "queen.timeout", "1")
	res := queenEnv(t, dir, "ann", nil, "reserve", "src/**", "-x")
	if res.code != 1 || !strings.Contains(res.stderr, "nothing was reserved") || !strings.Contains(res.stderr, "no answer within 1s") ||
		!strings.Contains(res.stderr, "--offline") {
		t.Errorf("reserve through a silent remote: %s", describeRun([]string{"reserve"}, res))
	}
	for _, row := range allReservations(t, dir, "ann") {
		if row.Active {
			t.Errorf("a reservation is active after a reserve that timed out: %v", row)
		}
	}
	if res := queenEnv(t, dir, "ann", nil, "reserve", "src/**", "-x", "--offline"); res.code != 0 {
		t.Errorf("reserve --offline with the remote silent: %s", describeRun([]string{"reserve", "--offline"}, res))
	}
	res = queenEnv(t, dir, "ann", nil, "doctor")
	if !regexp.MustCompile(`(?m)^warn +remote-ledger +origin cannot be reached now: .*no answer within 1s`).MatchString(res.stdout) {
		t.Errorf("doctor with a silent remote: %s", describeRun([]string{"doctor"}, res))
	}
	res = queenEnv(t, dir, "ann", nil, "init", "--remote", "origin")
	if res.code != 1 || !strings.Contains(res.stderr, "the first sync with origin failed") || strings.Contains(res.stdout, "synced with") {
		t.Errorf("init --remote with a silent remote: %s", describeRun([]string{"init"}, res))
	}
	testgit.Run(t, dir, "config", "queen.timeout", "nonsense")
	if res := queenEnv(t, dir, "ann", nil, "sync"); res.code == 0 || !strings.Contains(res.stderr, "queen.timeout") {
		t.Errorf("sync with queen.timeout=nonsense: %s", describeRun([]string{"sync"}, res))
	}
	if res := queenEnv(t, dir, "ann", []string{"QUEEN_TIMEOUT=0"}, "sync"); res.code == 0 || !strings.Contains(res.stderr, "QUEEN_TIMEOUT") {
		t.Errorf("sync with QUEEN_TIMEOUT=0: %s", describeRun([]string{"sync"}, res))
	}
}

// A timed-out fetch takes the processes git started with it: an ssh that
// never answers is gone when the command ends.
func TestTimeoutKillsTheSSHChild(t *testing.T) {
	t.Parallel()
	r := testgit.FileRemote(t)
	seedRemote(t, r)
	dir := queenClone(t, r, "ann")
	pidFile := filepath.Join(t.TempDir(), "ssh.pid")
	fake := testgit.Write(t, t.TempDir(), "fake-ssh", "#!/bin/sh\necho $$ > "+pidFile+"\nexec sleep 600\n")
	if err := os.Chmod(fake, 0o755); err != nil {
		t.Fatal(err)
	}
	res := queenEnv(t, dir, "ann", []string{"QUEEN_TIMEOUT=1s", "GIT_SSH_COMMAND=" + fake}, "sync", "ssh://git@example.invalid/team.git")
	if res.code != 1 || !strings.Contains(res.stderr, "no answer within 1s") {
		t.Fatalf("sync through an ssh that never answers: %s", describeRun([]string{"sync"}, res))
	}
	data, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatalf("the fake ssh never ran: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		t.Fatal(err)
	}
	// Killed with its group: gone, or a zombie waiting for init to reap it.
	deadline := time.Now().Add(hangLimit)
	for {
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil || strings.Contains(string(stat), ") Z ") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the ssh child %d still runs after the command ended: %s", pid, stat)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// init --remote exits 1 with one line naming the cause when its first sync
// cannot happen (a missing repository, a refused connection, failed
// authentication), instead of reporting "nothing new either way"; run
// again once the remote works, it succeeds.
func TestInitRemoteFailsWithoutItsFirstSync(t *testing.T) {
	t.Parallel()
	r := testgit.FileRemote(t)
	seedRemote(t, r)
	l, err := net.Listen("tcp", "127.0.0.1:0") // a port that was free a moment ago: "connection refused"
	if err != nil {
		t.Fatal(err)
	}
	refused := l.Addr().String()
	l.Close()
	auth := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("WWW-Authenticate", `Basic realm="team"`)
		http.Error(w, "authentication required", http.StatusUnauthorized)
	}))
	t.Cleanup(auth.Close)
	for name, url := range map[string]string{
		"missing repository": filepath.Join(t.TempDir(), "gone.git"),
		"refused connection": "http://" + refused + "/team.git",
		"failed auth":        auth.URL + "/team.git",
	} {
		t.Run(name, func(t *testing.T) {
			dir := testgit.Clone(t, r)
			testgit.Run(t, dir, "remote", "set-url", "origin", url)
			res := queenEnv(t, dir, "ann", nil, "init", "--droid", "ann", "--remote", "origin")
			if res.code != 1 || !strings.Contains(res.stderr, "git-queen: set up, but the first sync with origin failed, so nothing is shared yet") ||
				strings.Contains(res.stdout, "synced with") || strings.Count(strings.TrimSpace(res.stderr), "\n") > 1 {
				t.Errorf("init --remote: %s", describeRun([]string{"init"}, res))
			}
			testgit.Run(t, dir, "remote", "set-url", "origin", r.URL)
			if res := queenEnv(t, dir, "ann", nil, "init", "--droid", "ann", "--remote", "origin"); res.code != 0 ||
				!strings.Contains(res.stdout, "synced with origin") {
				t.Errorf("init --remote again with the remote back: %s", describeRun([]string{"init"}, res))
			}
		})
	}
}

// trackingRefs lists refs/queen/remotes/ in dir.
func trackingRefs(t *testing.T, dir string) []string {
	t.Helper()
	return strings.Fields(testgit.Run(t, dir, "for-each-ref", "--format=%(refname)", "refs/queen/remotes/"))
}

// A remote may be a name or a URL: a clone with no remote configured for
// git-queen syncs by a path relative to the current directory, a file://
// URL, a git:// or an http:// URL, and by a remote whose name holds '/';
// each tracking ref is one safe component. A name that is neither says
// which forms are accepted.
func TestSyncWithAURLOrAPath(t *testing.T) {
	t.Parallel()
	oneComponent := regexp.MustCompile(`^refs/queen/remotes/url-[0-9a-f]{16}/ledger$`)
	for _, r := range testgit.Remotes(t) {
		t.Run(r.Name, func(t *testing.T) {
			seedRemote(t, r)
			ann := queenClone(t, r, "ann")
			mustQueen(t, ann, "ann", "reserve", "src/**", "-x")
			bob := testgit.Clone(t, r)
			mustQueen(t, bob, "bob", "init", "--droid", "bob")
			sub := filepath.Join(bob, "sub")
			if err := os.Mkdir(sub, 0o755); err != nil {
				t.Fatal(err)
			}
			url := r.URL
			if r.Name == "file" {
				rel, err := filepath.Rel(sub, r.Dir)
				if err != nil {
					t.Fatal(err)
				}
				url = rel // ../../.../remote-*.git, from bob/sub
			}
			out := mustQueen(t, sub, "bob", "sync", url)
			if !strings.Contains(out, "received 1 reservation") {
				t.Errorf("sync %s: %s", url, out)
			}
			if res := gitQueen(t, bob, "bob", "check", "src/a.go"); res.code != 5 || !strings.Contains(res.stdout, "ann") {
				t.Errorf("bob's check after syncing by URL: %s", describeRun([]string{"check"}, res))
			}
			refs := trackingRefs(t, bob)
			if len(refs) != 1 || !oneComponent.MatchString(refs[0]) {
				t.Errorf("tracking refs after sync %s: %v", url, refs)
			}
			// The same remote by another spelling of its path, from the
			// top: the same tracking ref.
			if r.Name == "file" {
				mustQueen(t, bob, "bob", "sync", r.Dir)
				if again := trackingRefs(t, bob); len(again) != 1 || again[0] != refs[0] {
					t.Errorf("tracking refs after sync %s: %v, want %v", r.Dir, again, refs)
				}
			}
			mustQueen(t, bob, "bob", "msg", "send", "--new", "--to", "ann", "--subject", "by url")
			mustQueen(t, bob, "bob", "sync", r.URL)
			mustQueen(t, ann, "ann", "sync")
			if got := inbox(t, ann, "ann"); len(got) != 1 || got[0].Subject != "by url" {
				t.Errorf("ann's inbox after bob synced by URL: %v", got)
			}

			// A configured remote whose name holds '/'.
			testgit.Run(t, bob, "remote", "add", "team/alpha", r.URL)
			mustQueen(t, ann, "ann", "msg", "send", "--new", "--to", "bob", "--subject", "by name")
			mustQueen(t, ann, "ann", "sync")
			if out := mustQueen(t, bob, "bob", "sync", "team/alpha"); !strings.Contains(out, "synced with team/alpha: sent nothing; received 1 message") {
				t.Errorf("sync team/alpha: %s", out)
			}
			for _, ref := range trackingRefs(t, bob) {
				if !oneComponent.MatchString(ref) {
					t.Errorf("tracking ref %s is not one safe component", ref)
				}
			}
		})
	}
	dir := testgit.Init(t)
	mustQueen(t, dir, "ann", "init", "--droid", "ann")
	res := gitQueen(t, dir, "ann", "sync", "orign")
	if res.code != 2 || !strings.Contains(res.stderr, `cannot sync with "orign": there is no remote of that name, and no repository at`) ||
		!strings.Contains(res.stderr, "or a URL: a path, file://, http://, https://, ssh://, git:// or host:path") {
		t.Errorf("sync with a typo: %s", describeRun([]string{"sync", "orign"}, res))
	}
}

// childrenOf lists the processes whose parent is pid (Linux /proc).
func childrenOf(pid int) []int {
	entries, _ := os.ReadDir("/proc")
	var kids []int
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces, so read after ")".
		fields := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
		if len(fields) > 1 && fields[1] == strconv.Itoa(pid) {
			kids = append(kids, p)
		}
	}
	return kids
}

// alive says whether pid runs (a zombie does not).
func alive(pid int) bool {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	return err == nil && !strings.Contains(string(stat[bytes.LastIndexByte(stat, ')'):]), ") Z ")
}

// sigintIgnored says whether this test binary started with SIGINT
// ignored (go tool test2json starts it so): git-queen, its child, then
// rightly keeps ignoring it. Read before any test can change it.
var sigintIgnored = signal.Ignored(syscall.SIGINT)

// git-queen interrupted (SIGTERM, SIGINT) while git waits on a silent
// remote takes git with it, and ends as the signal ends a process.
func TestInterruptedSyncTakesGitWithIt(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("needs /proc to find the git child")
	}
	t.Parallel()
	addr := silentListener(t)
	dir := testgit.Init(t)
	mustQueen(t, dir, "ann", "init", "--droid", "ann")
	prog, err := exec.LookPath("git-queen")
	if err != nil {
		t.Fatalf("git-queen is not on PATH: %v", err)
	}
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		if sig == syscall.SIGINT && sigintIgnored {
			t.Skip("SIGTERM checked; SIGINT is not: this test binary started with SIGINT ignored (as go tool test2json starts it), " +
				"so git-queen ignores it too, as a program started so should")
		}
		cmd := exec.Command(prog, "sync", "git://"+addr+"/team.git")
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "QUEEN_DROID=ann", "QUEEN_TIMEOUT=10m")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(hangLimit)
		var kids []int
		for kids = childrenOf(cmd.Process.Pid); len(kids) == 0; kids = childrenOf(cmd.Process.Pid) {
			if time.Now().After(deadline) {
				cmd.Process.Kill()
				t.Fatalf("git-queen started no git within %s", hangLimit)
			}
			time.Sleep(10 * time.Millisecond)
		}
		cmd.Process.Signal(sig)
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(hangLimit):
			cmd.Process.Kill()
			t.Fatalf("git-queen still runs %s after %v", hangLimit, sig)
		}
		if ws, _ := cmd.ProcessState.Sys().(syscall.WaitStatus); !ws.Signaled() || ws.Signal() != sig {
			t.Errorf("git-queen after %v: %v, want ended by the signal", sig, cmd.ProcessState)
		}
		for _, kid := range kids {
			for alive(kid) {
				if time.Now().After(deadline) {
					t.Fatalf("git (pid %d) still runs after git-queen was interrupted", kid)
				}
				time.Sleep(10 * time.Millisecond)
			}
		}
	}
}

// A clone shared through a remote whose name holds '/': init sets it up
// (its refspec fetches to a one-component tracking ref), reserve publishes
// through it, and reservations tells published from unpublished.
func TestRemoteNamedWithASlash(t *testing.T) {
	t.Parallel()
	r := testgit.FileRemote(t)
	seedRemote(t, r)
	dir := testgit.Clone(t, r)
	testgit.Run(t, dir, "remote", "add", "team/alpha", r.URL)
	mustQueen(t, dir, "ann", "init", "--droid", "ann", "--remote", "team/alpha")
	fetch := testgit.Run(t, dir, "config", "--get-all", "remote.team/alpha.fetch")
	if !regexp.MustCompile(`(?m)^\+refs/queen/ledger\*:refs/queen/remotes/url-[0-9a-f]{16}/ledger\*$`).MatchString(fetch) {
		t.Errorf("remote.team/alpha.fetch: %s", fetch)
	}
	mustQueen(t, dir, "ann", "reserve", "src/**", "-x")
	mustQueen(t, dir, "ann", "reserve", "docs/**", "-x", "--offline")
	published := func() map[string]bool {
		var got struct {
			Reservations []struct {
				Pattern   string `json:"pattern"`
				Published *bool  `json:"published"`
			} `json:"reservations"`
		}
		out := mustQueen(t, dir, "ann", "reservations", "--json")
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatalf("reservations --json: %v\n%s", err, out)
		}
		m := map[string]bool{}
		for _, row := range got.Reservations {
			m[row.Pattern] = row.Published != nil && *row.Published
		}
		return m
	}
	if got := published(); !got["src/**"] || got["docs/**"] {
		t.Errorf("published before the sync: %v", got)
	}
	mustQueen(t, dir, "ann", "sync")
	if got := published(); !got["src/**"] || !got["docs/**"] {
		t.Errorf("published after the sync: %v", got)
	}
	if out := mustQueen(t, dir, "ann", "doctor"); !regexp.MustCompile(`(?m)^ok +remote-ledger +team/alpha serves the ledger`).MatchString(out) {
		t.Errorf("doctor:\n%s", out)
	}
}
