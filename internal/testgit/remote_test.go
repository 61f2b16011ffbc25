package testgit_test

import (
	"fmt"
	"math/rand/v2"
	"os/exec"
	"strings"
	"sync"
	"testing"

	"github.com/git-queen/git-queen/internal/testgit"
)

// ledgerRefspec fetches refs outside refs/heads, which a default clone
// never does.
const ledgerRefspec = "+refs/queen/*:refs/queen/remotes/origin/*"

func TestRemotesPushFetchAndLease(t *testing.T) {
	testgit.Isolate(t)
	for _, r := range testgit.Remotes(t) {
		t.Run(r.Name, func(t *testing.T) {
			t.Parallel()
			// Cloned while the remote is still empty.
			other := testgit.Clone(t, r)

			repo := testgit.Init(t)
			testgit.Run(t, repo, "remote", "add", "origin", r.URL)
			testgit.Run(t, repo, "push", "-q", "origin", "main")
			testgit.Run(t, repo, "push", "-q", "origin", "HEAD:refs/queen/ledger")
			first := testgit.Run(t, repo, "rev-parse", "HEAD")
			if got := testgit.Run(t, r.Dir, "rev-parse", "refs/heads/main"); got != first {
				t.Fatalf("remote main = %s, want %s", got, first)
			}

			testgit.Run(t, other, "fetch", "-q", "origin", ledgerRefspec)
			if got := testgit.Run(t, other, "rev-parse", "refs/queen/remotes/origin/ledger"); got != first {
				t.Fatalf("fetched ledger = %s, want %s", got, first)
			}

			testgit.Write(t, repo, "second", "second\n")
			testgit.Run(t, repo, "add", "second")
			testgit.Run(t, repo, "commit", "-q", "-m", "second")
			second := testgit.Run(t, repo, "rev-parse", "HEAD")

			out, err := git(repo, "push", "--porcelain", "--force-with-lease=refs/queen/ledger:"+second,
				"origin", "HEAD:refs/queen/ledger")
			if err == nil || !strings.Contains(out, "stale info") {
				t.Fatalf("push with a wrong lease: err = %v, want rejected as stale info\n%s", err, out)
			}
			if got := testgit.Run(t, r.Dir, "rev-parse", "refs/queen/ledger"); got != first {
				t.Fatalf("remote ledger after rejected push = %s, want %s", got, first)
			}

			testgit.Run(t, repo, "push", "-q", "--force-with-lease=refs/queen/ledger:"+first,
				"origin", "HEAD:refs/queen/ledger")
			if got := testgit.Run(t, r.Dir, "rev-parse", "refs/queen/ledger"); got != second {
				t.Fatalf("remote ledger after leased push = %s, want %s", got, second)
			}
		})
	}
}

func TestRemotesConcurrentLeasedPushes(t *testing.T) {
	testgit.Isolate(t)
	const pushers = 8
	for _, r := range testgit.Remotes(t) {
		t.Run(r.Name, func(t *testing.T) {
			t.Parallel()
			repo := testgit.Init(t)
			testgit.Run(t, repo, "remote", "add", "origin", r.URL)
			testgit.Run(t, repo, "push", "-q", "origin", "main", "HEAD:refs/queen/ledger")
			base := testgit.Run(t, repo, "rev-parse", "HEAD")

			clones := make([]string, pushers)
			heads := make([]string, pushers)
			for i := range clones {
				dir := testgit.Clone(t, r)
				testgit.Run(t, dir, "fetch", "-q", "origin", ledgerRefspec)
				if got := testgit.Run(t, dir, "rev-parse", "refs/queen/remotes/origin/ledger"); got != base {
					t.Fatalf("clone %d fetched ledger %s, want %s", i, got, base)
				}
				name := fmt.Sprintf("pusher-%d", i)
				testgit.Write(t, dir, name, name+"\n")
				testgit.Run(t, dir, "add", name)
				testgit.Run(t, dir, "commit", "-q", "-m", name)
				clones[i], heads[i] = dir, testgit.Run(t, dir, "rev-parse", "HEAD")
			}

			outs := make([]string, pushers)
			errs := make([]error, pushers)
			var wg sync.WaitGroup
			for i, dir := range clones {
				wg.Go(func() {
					outs[i], errs[i] = git(dir, "push", "--porcelain",
						"--force-with-lease=refs/queen/ledger:"+base, "origin", "HEAD:refs/queen/ledger")
				})
			}
			wg.Wait()

			winner := -1
			for i, err := range errs {
				if err != nil {
					// A loser is refused either by its own git, which saw the
					// new ledger advertised, or by the remote, which found
					// the ledger moved while taking its lock.
					if !strings.Contains(outs[i], "stale info") && !strings.Contains(outs[i], "cannot lock ref") {
						t.Errorf("push %d failed for another reason than the lease: %v\n%s", i, err, outs[i])
					}
					continue
				}
				if winner >= 0 {
					t.Errorf("pushes %d and %d both succeeded:\n%s\n%s", winner, i, outs[winner], outs[i])
				}
				winner = i
			}
			if winner < 0 {
				t.Fatalf("no push succeeded:\n%s", strings.Join(outs, "\n"))
			}
			if got := testgit.Run(t, r.Dir, "rev-parse", "refs/queen/ledger"); got != heads[winner] {
				t.Errorf("remote ledger = %s, want the winner's %s", got, heads[winner])
			}
		})
	}
}

// Git sends packs larger than http.postBuffer (1 MiB) with a chunked body,
// which the HTTP remote must accept like any other push.
func TestRemotesLargePush(t *testing.T) {
	testgit.Isolate(t)
	big := make([]byte, 3<<20)
	rand.NewChaCha8([32]byte{}).Read(big) // incompressible, so the pack stays large
	for _, r := range testgit.Remotes(t) {
		t.Run(r.Name, func(t *testing.T) {
			t.Parallel()
			repo := testgit.Init(t)
			testgit.Write(t, repo, "big", string(big))
			testgit.Run(t, repo, "add", "big")
			testgit.Run(t, repo, "commit", "-q", "-m", "big")
			testgit.Run(t, repo, "push", "-q", r.URL, "HEAD:refs/queen/ledger")
			want := testgit.Run(t, repo, "rev-parse", "HEAD")
			if got := testgit.Run(t, r.Dir, "rev-parse", "refs/queen/ledger"); got != want {
				t.Fatalf("remote ledger = %s, want %s", got, want)
			}
		})
	}
}

func TestBareIsEmptyOnMain(t *testing.T) {
	testgit.Isolate(t)
	dir := testgit.Bare(t)
	if got := testgit.Run(t, dir, "rev-parse", "--is-bare-repository"); got != "true" {
		t.Fatalf("is-bare-repository = %s", got)
	}
	if got := testgit.Run(t, dir, "symbolic-ref", "HEAD"); got != "refs/heads/main" {
		t.Fatalf("HEAD = %s, want refs/heads/main", got)
	}
	if got := testgit.Run(t, dir, "for-each-ref"); got != "" {
		t.Fatalf("refs in a new bare repository:\n%s", got)
	}
}

// git runs git in dir and returns its combined output and error, for
// commands a test expects may fail.
func git(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	return string(out), err
}
