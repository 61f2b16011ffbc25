package testgit

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/cgi"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// Remote is a bare repository reachable through one of git's transports, so
// that code which pushes and fetches is tested against the protocol it will
// meet in production rather than against a shortcut.
//
// The servers behind remotes are real git processes that take the test's
// environment when they start, so callers must call Isolate before creating
// a remote: the daemon and the HTTP backend then share the isolated HOME and
// configuration of the test's own git commands.
type Remote struct {
	Name string // transport: "file", "daemon" or "http"
	URL  string // what git clone and git remote add take
	Dir  string // the bare repository on disk, for inspecting its refs
}

// Bare creates an empty bare repository with main as its default branch and
// returns its path, so a test has somewhere to push to. The repository is a
// uniquely named subdirectory of a fresh temporary directory (with symlinks
// resolved, as git reports paths), which lets the parent serve as a base path
// for a daemon without two daemons ever sharing a repository name.
func Bare(t testing.TB) string {
	t.Helper()
	dir, err := os.MkdirTemp(TempDir(t), "remote-*.git")
	if err != nil {
		t.Fatal(err)
	}
	Run(t, dir, "init", "-q", "--bare", "-b", "main")
	return dir
}

// FileRemote is a bare repository reached by a file:// URL, which makes git
// use the same pack protocol as a network remote instead of copying files.
func FileRemote(t testing.TB) Remote {
	t.Helper()
	dir := Bare(t)
	return Remote{Name: "file", URL: "file://" + dir, Dir: dir}
}

// DaemonRemote is a bare repository served read-write by a real git daemon
// on a loopback port, for testing the git:// protocol. The daemon is stopped
// when the test ends; its log is shown only if the test failed.
func DaemonRemote(t testing.TB) Remote {
	t.Helper()
	daemon := program(t, "git-daemon")
	dir := Bare(t)
	var err error
	for range 5 {
		var r Remote
		if r, err = startDaemon(t, daemon, dir); err == nil {
			return r
		}
	}
	t.Fatalf("git daemon did not start after 5 attempts; last: %v", err)
	return Remote{}
}

// startDaemon starts git daemon for dir on a free port and waits until it
// serves dir. It fails, with the daemon's log, if the daemon exited first,
// which happens when another process took the port after freePort released
// it.
func startDaemon(t testing.TB, daemon, dir string) (Remote, error) {
	t.Helper()
	base, name := filepath.Split(dir)
	port := freePort(t)
	logFile, err := os.CreateTemp(t.TempDir(), "daemon-*.log")
	if err != nil {
		t.Fatal(err)
	}
	defer logFile.Close()
	cmd := daemonCommand(daemon, base, port)
	// A file rather than a pipe, so that waiting for the daemon never waits
	// for a connection's child process still holding its stderr.
	cmd.Stderr = logFile
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var waitErr error
	exited := make(chan struct{}) // closed once the daemon has exited
	go func() {
		waitErr = cmd.Wait()
		close(exited)
	}()
	url := fmt.Sprintf("git://127.0.0.1:%d/%s", port, name)
	if err := awaitDaemon(url, exited); err != nil {
		cmd.Process.Kill()
		<-exited
		return Remote{}, fmt.Errorf("%v (daemon: %v)\ngit daemon log:\n%s", err, waitErr, readLog(logFile.Name()))
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-exited
		if t.Failed() {
			t.Logf("git daemon log:\n%s", readLog(logFile.Name()))
		}
	})
	return Remote{Name: "daemon", URL: url, Dir: dir}, nil
}

// daemonCommand serves every repository under base, for push as well as
// fetch, on a loopback port. The dashed program is run directly because
// "git daemon" would make it a grandchild that killing the git wrapper does
// not stop.
func daemonCommand(daemon, base string, port int) *exec.Cmd {
	return exec.Command(daemon, "--reuseaddr", "--base-path="+base, "--export-all",
		"--enable=receive-pack", "--listen=127.0.0.1", fmt.Sprintf("--port=%d", port),
		"--informative-errors", base)
}

// awaitDaemon polls the daemon with git ls-remote until it answers for the
// repository at url, or returns why it will not. A real request rather than
// a bare connection tells that the daemon serves the repository, and leaves
// no "remote end hung up" noise in its log. Each request is abandoned as
// soon as the daemon exits, since a silent process that won the port would
// otherwise keep it waiting.
func awaitDaemon(url string, exited <-chan struct{}) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for {
		type result struct {
			out []byte
			err error
		}
		done := make(chan result, 1)
		go func() {
			out, err := exec.CommandContext(ctx, "git", "ls-remote", "--", url).CombinedOutput()
			done <- result{out, err}
		}()
		select {
		case <-exited:
			return fmt.Errorf("git daemon exited before serving %s", url)
		case r := <-done:
			// The repository name is unique, so an answer for it comes
			// from our daemon and not from another one that won the port.
			if r.err == nil {
				return nil
			}
			if ctx.Err() != nil {
				return fmt.Errorf("git ls-remote %s: %v after 10s\n%s", url, r.err, r.out)
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// readLog returns a server's log, or why it cannot.
func readLog(path string) string {
	out, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	return string(out)
}

// freePort returns a loopback TCP port that was free a moment ago.
func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// HTTPRemote is a bare repository served read-write over smart HTTP by
// git http-backend on a loopback server, for testing the http:// protocol.
// The server is closed when the test ends; the backend's stderr is shown
// only if the test failed.
func HTTPRemote(t testing.TB) Remote {
	t.Helper()
	backend := program(t, "git-http-backend")
	dir := Bare(t)
	// http-backend refuses anonymous pushes unless the repository allows them.
	Run(t, dir, "config", "http.receivepack", "true")
	base, name := filepath.Split(dir)
	logs := &LockedBuffer{}
	handler := &cgi.Handler{
		Path:   backend,
		Env:    append(backendEnv(), "GIT_PROJECT_ROOT="+base, "GIT_HTTP_EXPORT_ALL=1"),
		Stderr: logs,
		Logger: log.New(logs, "cgi: ", 0),
	}
	server := httptest.NewServer(unchunk(handler))
	t.Cleanup(func() {
		server.Close()
		if t.Failed() {
			t.Logf("git http-backend log:\n%s", logs.String())
		}
	})
	return Remote{Name: "http", URL: server.URL + "/" + name, Dir: dir}
}

// backendEnv is the part of the test's environment http-backend needs. The
// CGI handler starts the backend with a bare environment, and the values are
// taken now rather than per request so the backend keeps the test's
// isolation even if the environment changes later.
func backendEnv() []string {
	var env []string
	for _, k := range []string{"PATH", "HOME", "XDG_CONFIG_HOME", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_NOSYSTEM"} {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	return env
}

// unchunk reads a chunked request body into memory before h sees it. Git
// sends packs larger than http.postBuffer chunked, and Go's CGI handler
// refuses chunked bodies because CGI needs a CONTENT_LENGTH.
func unchunk(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ContentLength < 0 {
			body, err := io.ReadAll(r.Body)
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
			r.ContentLength = int64(len(body))
			r.TransferEncoding = nil
		}
		h.ServeHTTP(w, r)
	})
}

// LockedBuffer collects output that concurrent writers (the backends of
// concurrent requests, a process a test reads while it runs) write.
type LockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

// Write appends p under the lock.
func (b *LockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// String is what was written so far.
func (b *LockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// program returns the path of one of git's helper programs, skipping the
// test when this git installation lacks it: only then is a transport
// genuinely untestable here.
func program(t testing.TB, name string) string {
	t.Helper()
	p := filepath.Join(Run(t, "", "--exec-path"), name)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("%s is not installed with git (%v); cannot test this transport", name, err)
	}
	return p
}

// Remotes returns one remote of each transport, for table-driven tests that
// must behave the same whichever way git reaches the remote.
func Remotes(t testing.TB) []Remote {
	t.Helper()
	return []Remote{FileRemote(t), DaemonRemote(t), HTTPRemote(t)}
}

// Clone clones r into a fresh temporary directory (with symlinks resolved)
// and returns the worktree. An empty remote clones to an empty repository.
func Clone(t testing.TB, r Remote) string {
	t.Helper()
	dir := TempDir(t)
	Run(t, dir, "clone", "-q", "--", r.URL, dir)
	return dir
}
