package jsonl

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// CheckInside refuses a path that symlinks lead out of the roots,
// whether the link's target exists or not: a link to nothing leads the
// write that creates its target (an append opens with O_CREATE) there.
func TestCheckInsideFollowsEveryLink(t *testing.T) {
	cases := []struct {
		name string
		make func(t *testing.T, root, out string) string // the path to check
		out  bool                                        // refused
	}{
		{"a plain file", func(t *testing.T, root, out string) string { return filepath.Join(root, "log.jsonl") }, false},
		{"a link inside", func(t *testing.T, root, out string) string {
			return symlink(t, filepath.Join(root, "real.jsonl"), filepath.Join(root, "log.jsonl"))
		}, false},
		{"a link out to a file", func(t *testing.T, root, out string) string {
			os.WriteFile(filepath.Join(out, "f.jsonl"), nil, 0o644)
			return symlink(t, filepath.Join(out, "f.jsonl"), filepath.Join(root, "log.jsonl"))
		}, true},
		{"a link out to nothing", func(t *testing.T, root, out string) string {
			return symlink(t, filepath.Join(out, "new.jsonl"), filepath.Join(root, "log.jsonl"))
		}, true},
		{"a relative link out to nothing", func(t *testing.T, root, out string) string {
			rel, err := filepath.Rel(root, filepath.Join(out, "new.jsonl"))
			if err != nil {
				t.Skip(err)
			}
			return symlink(t, rel, filepath.Join(root, "log.jsonl"))
		}, true},
		{"a link inside to nothing", func(t *testing.T, root, out string) string {
			return symlink(t, "later.jsonl", filepath.Join(root, "log.jsonl"))
		}, false},
		{"a link to a link out to nothing", func(t *testing.T, root, out string) string {
			mid := symlink(t, filepath.Join(out, "new.jsonl"), filepath.Join(root, "mid.jsonl"))
			return symlink(t, mid, filepath.Join(root, "log.jsonl"))
		}, true},
		{"a directory linked out to nothing", func(t *testing.T, root, out string) string {
			symlink(t, filepath.Join(out, "gone"), filepath.Join(root, "beads"))
			return filepath.Join(root, "beads", "log.jsonl")
		}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root, out := t.TempDir(), t.TempDir()
			err := CheckInside(c.make(t, root, out), []string{root}, nil)
			var outside *OutsideError
			if got := errors.As(err, &outside); got != c.out || (err != nil && !got) {
				t.Fatalf("CheckInside: %v; want refused %v", err, c.out)
			}
		})
	}
}

func symlink(t *testing.T, to, at string) string {
	t.Helper()
	if err := os.Symlink(to, at); err != nil {
		t.Skipf("no symbolic links here: %v", err)
	}
	return at
}

// CheckInside refuses a path that a symlink leads into a fenced directory
// inside the roots (git's, for a store named in the worktree), and
// writes a path named there.
func TestCheckInsideFences(t *testing.T) {
	cases := []struct {
		name string
		make func(t *testing.T, root, fence string) string // the path to check
		out  bool                                          // refused
	}{
		{"a link into the fence", func(t *testing.T, root, fence string) string {
			os.WriteFile(filepath.Join(fence, "config"), nil, 0o644)
			return symlink(t, filepath.Join(fence, "config"), filepath.Join(root, "log.jsonl"))
		}, true},
		{"a directory linked into the fence", func(t *testing.T, root, fence string) string {
			symlink(t, fence, filepath.Join(root, "beads"))
			return filepath.Join(root, "beads", "log.jsonl")
		}, true},
		{"a path named in the fence", func(t *testing.T, root, fence string) string {
			return filepath.Join(fence, "log.jsonl")
		}, false},
		{"a path named in the fence through a symlinked parent", func(t *testing.T, root, fence string) string {
			return filepath.Join(symlink(t, root, filepath.Join(t.TempDir(), "via")), ".git", "log.jsonl")
		}, false},
		{"a path named in a directory linked to the fence through a symlinked parent", func(t *testing.T, root, fence string) string {
			symlink(t, ".git", filepath.Join(root, "beads"))
			return filepath.Join(symlink(t, root, filepath.Join(t.TempDir(), "via")), "beads", "log.jsonl")
		}, true},
		{"a link in the fence to a file there", func(t *testing.T, root, fence string) string {
			return symlink(t, "real.jsonl", filepath.Join(fence, "log.jsonl"))
		}, false},
		{"a link beside the fence", func(t *testing.T, root, fence string) string {
			return symlink(t, "real.jsonl", filepath.Join(root, "log.jsonl"))
		}, false},
		// A case-insensitive disk resolves a link to .GIT/queen into .git
		// under another spelling; a bind mount of the fence is one this
		// machine can make.
		{"a directory linked into the fence under another name", func(t *testing.T, root, fence string) string {
			alias := filepath.Join(root, "alias")
			os.Mkdir(alias, 0o755)
			if out, err := exec.Command("mount", "--bind", fence, alias).CombinedOutput(); err != nil {
				t.Skipf("no bind mount here (needs root): %v: %s", err, out)
			}
			t.Cleanup(func() { exec.Command("umount", alias).Run() })
			symlink(t, alias, filepath.Join(root, "beads"))
			return filepath.Join(root, "beads", "log.jsonl")
		}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			fence := filepath.Join(root, ".git")
			os.Mkdir(fence, 0o755)
			err := CheckInside(c.make(t, root, fence), []string{root}, []string{fence})
			outside, got := errors.AsType[*OutsideError](err)
			if got != c.out || (err != nil && !got) || (got && outside.Fence != fence) {
				t.Fatalf("CheckInside: %v; want refused %v", err, c.out)
			}
		})
	}
}

// A fence's name in another case beside it (.GIT for .git) is the fence
// for every write the check guards, as git refuses it as a path's part
// and a case-insensitive disk reaches git's directory through it: the
// plain store's appends let a link to .GIT through where the worktree's
// writes (export, resolve, st) refused it.
func TestCheckInsideFencesTheFencesNameInAnyCase(t *testing.T) {
	root := t.TempDir()
	fence := filepath.Join(root, ".git")
	for _, dir := range []string{fence, filepath.Join(root, ".GIT")} {
		if err := os.Mkdir(dir, 0o755); err != nil && !errors.Is(err, os.ErrExist) {
			t.Fatal(err)
		}
	}
	path := filepath.Join(symlink(t, ".GIT", filepath.Join(root, "beads")), "log.jsonl")
	err := CheckInside(path, []string{root}, []string{fence})
	if outside, ok := errors.AsType[*OutsideError](err); !ok || outside.Fence != fence {
		t.Fatalf("CheckInside(beads -> .GIT): %v; want refused as in %s", err, fence)
	}
}
