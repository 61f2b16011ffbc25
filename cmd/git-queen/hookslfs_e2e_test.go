package main

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/git-queen/git-queen/internal/testgit"
)

// TestGitLFSBesideTheHooks pushes a real LFS object to a file:// remote
// (git-lfs moves objects to a local path itself, no server needed) with
// git-queen's hooks installed before and after LFS's: the object must be
// on the remote after the push, a fresh clone must check it out, LFS's
// four hooks must be there, and a push of a path another droid holds is
// refused before any object leaves; pushed past the check with
// --no-verify (which skips LFS too), the refusal's advice uploads it.
func TestGitLFSBesideTheHooks(t *testing.T) {
	needTool(t, "git-lfs")
	for _, order := range []string{"git-queen first", "LFS first"} {
		t.Run(order, func(t *testing.T) {
			repo, remote := hookRepo(t)
			testgit.Run(t, repo, "push", "-q", "origin", "main")
			if order == "git-queen first" {
				if out, ok := queenInit(t, repo); !ok {
					t.Fatalf("init: %s", out)
				}
				// git lfs install stops at git-queen's pre-push; the lines it
				// shows from it say what to do.
				out, ok := sh(t, repo, nil, "git lfs install")
				if ok || !strings.Contains(out, "Hook already exists: pre-push") || !strings.Contains(out, "git queen hooks install") {
					t.Fatalf("git lfs install after git queen init: ok=%v\n%s", ok, out)
				}
			} else {
				mustSh(t, repo, "git lfs install")
			}
			mustSh(t, repo, "git lfs track '*.bin' && git add .gitattributes && git commit -q -m track")
			oid := writeBlob(t, repo, "data.bin")
			mustSh(t, repo, "git add data.bin && git commit -q -m data")
			if order == "LFS first" {
				if out, ok := queenInit(t, repo); !ok {
					t.Fatalf("init: %s", out)
				}
			} else {
				out := mustQueen(t, repo, "", "hooks", "install")
				if !strings.Contains(out, "had git-lfs install its post-checkout, post-commit, post-merge hooks") {
					t.Fatalf("hooks install in a repository that keeps LFS objects: %s", out)
				}
			}
			for _, name := range []string{"post-checkout", "post-commit", "post-merge", "pre-push.queen-chained"} {
				data, err := os.ReadFile(filepath.Join(repo, ".git", "hooks", name))
				if err != nil || !strings.Contains(string(data), "git lfs ") {
					t.Fatalf("LFS's %s hook is not there: %v", name, err)
				}
			}
			doctor := gitQueen(t, repo, "", "doctor").stdout
			if !regexp.MustCompile(`(?m)^ok +pre-push +git-queen's hook .*LFS's pre-push runs as the chained hook`).MatchString(doctor) {
				t.Fatalf("doctor:\n%s", doctor)
			}
			mustSh(t, repo, "git push -q origin main")
			if _, err := os.Stat(lfsObject(remote.Dir, oid)); err != nil {
				t.Fatalf("the LFS object is not on the remote after the push: %v", err)
			}
			clone := filepath.Join(t.TempDir(), "clone")
			mustSh(t, filepath.Dir(clone), "git clone -q "+remote.URL+" clone")
			if got := sha256Of(t, filepath.Join(clone, "data.bin")); got != oid {
				t.Fatalf("the clone's data.bin is not the object pushed: %s", got)
			}
			// A push of a path bob holds is refused, and its object stays here.
			mustQueen(t, repo, "bob", "reserve", "*.bin", "--exclusive")
			held := writeBlob(t, repo, "held.bin")
			mustSh(t, repo, "git add held.bin && git commit -q --no-verify -m held")
			out, ok := sh(t, repo, nil, "git push -q origin main")
			if ok || !strings.Contains(out, "push refused") {
				t.Fatalf("push of a held path: ok=%v\n%s", ok, out)
			}
			if _, err := os.Stat(lfsObject(remote.Dir, held)); err == nil {
				t.Fatal("the refused push uploaded its LFS object")
			}
			// git push --no-verify skips LFS's upload too: the refusal says
			// so, and what it says to run uploads the object.
			upload := "git lfs push --all origin"
			if !strings.Contains(out, "push anyway with git push --no-verify and then upload its Git LFS objects, which --no-verify skips too: "+upload) {
				t.Fatalf("the refusal does not say how to upload the LFS objects a --no-verify push leaves:\n%s", out)
			}
			mustSh(t, repo, "git push -q --no-verify origin main")
			if _, err := os.Stat(lfsObject(remote.Dir, held)); err == nil {
				t.Fatal("git push --no-verify uploaded the LFS object: the refusal's advice is not needed")
			}
			mustSh(t, repo, upload)
			if _, err := os.Stat(lfsObject(remote.Dir, held)); err != nil {
				t.Fatalf("the LFS object is not on the remote after %s: %v", upload, err)
			}
		})
	}
}

// TestGitLFSWhenItsHookCouldNotBeInstalled: git-queen's hooks without
// LFS's (git lfs install refused, and nobody ran hooks install): the shim
// runs git lfs pre-push itself, so the object is uploaded all the same.
func TestGitLFSWhenItsHookCouldNotBeInstalled(t *testing.T) {
	repo, remote := lfsAfterQueen(t)
	mustSh(t, repo, "git lfs track '*.bin' && git add .gitattributes && git commit -q -m track")
	oid := writeBlob(t, repo, "data.bin")
	mustSh(t, repo, "git add data.bin && git commit -q -m data")
	if _, err := os.Stat(filepath.Join(repo, ".git", "hooks", "pre-push.queen-chained")); err == nil {
		t.Fatal("LFS's pre-push is installed; this test is about when it is not")
	}
	doctor := gitQueen(t, repo, "", "doctor").stdout
	if !regexp.MustCompile("(?m)^warn +pre-push .*the hook runs `git lfs pre-push` itself.*post-checkout, post-commit, post-merge hooks are missing").MatchString(doctor) {
		t.Fatalf("doctor:\n%s", doctor)
	}
	mustSh(t, repo, "git push -q origin main")
	if _, err := os.Stat(lfsObject(remote.Dir, oid)); err != nil {
		t.Fatalf("the LFS object is not on the remote after the push: %v", err)
	}
	// Without git-lfs on PATH the push is refused, not sent without its objects.
	oid2 := writeBlob(t, repo, "more.bin")
	mustSh(t, repo, "git add more.bin && git commit -q -m more")
	noLFS := pathWithout(t, "git-lfs")
	if out, ok := sh(t, repo, []string{"PATH=" + noLFS}, "git push -q origin main"); ok || !strings.Contains(out, "git-lfs is not on PATH") {
		t.Fatalf("push without git-lfs: ok=%v\n%s", ok, out)
	}
	if _, err := os.Stat(lfsObject(remote.Dir, oid2)); err == nil {
		t.Fatal("an object was uploaded without git-lfs")
	}
}

// TestGitLFSHooksInstallRightAfterLFSInstall: git lfs install after git
// queen init stops at git-queen's pre-push, and the lines it prints from
// it say to run git queen hooks install, which has git-lfs install its
// other hooks. Run at once, before the first LFS object, it said "nothing
// changed" and installed none: it knew LFS by its objects alone, not by
// the mark git lfs install leaves in the repository's config.
func TestGitLFSHooksInstallRightAfterLFSInstall(t *testing.T) {
	repo, _ := lfsAfterQueen(t)
	if out := mustQueen(t, repo, "", "hooks", "install"); !strings.Contains(out, "had git-lfs install its post-checkout, post-commit, post-merge hooks") {
		t.Fatalf("hooks install right after git lfs install: %s", out)
	}
	for _, name := range []string{"post-checkout", "post-commit", "post-merge"} {
		if data, err := os.ReadFile(filepath.Join(repo, ".git", "hooks", name)); err != nil || !strings.Contains(string(data), "git lfs ") {
			t.Errorf("LFS's %s hook is not there: %v", name, err)
		}
	}
}

// lfsAfterQueen is a hookRepo where git queen init ran, then git lfs
// install, which stops at git-queen's pre-push: it sets LFS's filters and
// marks the repository's config, and installs none of its hooks.
func lfsAfterQueen(t *testing.T) (string, testgit.Remote) {
	t.Helper()
	needTool(t, "git-lfs")
	repo, remote := hookRepo(t)
	if out, ok := queenInit(t, repo); !ok {
		t.Fatalf("init: %s", out)
	}
	sh(t, repo, nil, "git lfs install")
	return repo, remote
}

// writeBlob writes 64 KiB of random bytes to name and returns their SHA-256
// (the LFS object id).
func writeBlob(t *testing.T, dir, name string) string {
	t.Helper()
	data := make([]byte, 64<<10)
	rand.Read(data)
	if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

func sha256Of(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// lfsObject is where a bare repository keeps the LFS object oid.
func lfsObject(bare, oid string) string {
	return filepath.Join(bare, "lfs", "objects", oid[:2], oid[2:4], oid)
}

// pathWithout is PATH with a directory of links to every program on it but
// name, so that git, sh and git-queen are found and name is not.
func pathWithout(t *testing.T, name string) string {
	t.Helper()
	dir := t.TempDir()
	for _, prog := range []string{"git", "git-queen", "sh", "cat", "grep", "dirname", "printf"} {
		if p, err := exec.LookPath(prog); err == nil && prog != name {
			os.Symlink(p, filepath.Join(dir, prog))
		}
	}
	return dir
}
