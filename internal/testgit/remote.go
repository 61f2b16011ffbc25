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
// environment when they start, so callers must call Isolate (or TestMain
// IsolateProcess) before creating a remote: the daemon and the HTTP backend
// then share the isolated HOME and configuration of the test's own git
// commands.
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
// on a loopback port, for testing the git:// protocol. This process listens
// and hands each connection to git daemon in inetd mode, as inetd would: the
// port is the listener's from the start, so no other process can take it,
// and the remote serves as soon as it is returned. The listener and every
// daemon still serving are stopped when the test ends; their log is shown
// only if the test failed.
func DaemonRemote(t testing.TB) Remote {
	t.Helper()
	daemon := program(t, "git-daemon")
	dir := Bare(t)
	base, name := filepath.Split(dir)
	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	logs := &LockedBuffer{}
	var serving sync.WaitGroup
	serving.Go(func() {
		for {
			conn, err := listener.Accept()
			if err != nil {
				return // closed: the test ended
			}
			serving.Go(func() { serveConnection(ctx, daemon, base, conn, logs) })
		}
	})
	t.Cleanup(func() {
		listener.Close()
		stop()
		serving.Wait()
		if t.Failed() {
			t.Logf("git daemon log:\n%s", logs.String())
		}
	})
	return Remote{Name: "daemon", URL: fmt.Sprintf("git://%s/%s", listener.Addr(), name), Dir: dir}
}

// serveConnection runs git daemon in inetd mode on one connection, which is
// its standard input and output, serving every repository under base, for
// push as well as fetch. The dashed program is run directly because "git
// daemon" would make it a grandchild that stopping the git wrapper does not
// stop.
func serveConnection(ctx context.Context, daemon, base string, conn net.Conn, logs io.Writer) {
	defer conn.Close()
	socket, err := conn.(*net.TCPConn).File()
	if err != nil {
		fmt.Fprintf(logs, "hand the connection to git daemon: %v\n", err)
		return
	}
	defer socket.Close()
	cmd := exec.CommandContext(ctx, daemon, "--inetd", "--base-path="+base, "--export-all", "--enable=receive-pack",
		"--informative-errors", "--log-destination=stderr", base)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = socket, socket, logs
	cmd.WaitDelay = time.Second // a helper it started may hold its stderr
	if err := cmd.Run(); err != nil && ctx.Err() == nil {
		fmt.Fprintf(logs, "git daemon: %v\n", err)
	}
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
