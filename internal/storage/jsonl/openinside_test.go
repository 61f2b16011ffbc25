package jsonl

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// An append refuses a path whose directory or file a teammate swaps for a
// link out of the repository between the check of where its links lead
// and the open (a checkout of a commit that has .beads -> ../outside),
// and writes nothing there. It opened the path as named, through the new
// link.
func TestAppendRefusesALinkSwappedAfterTheCheck(t *testing.T) {
	cases := []struct {
		name    string
		prepare func(t *testing.T, root, out string) string // the log's path
		swap    func(t *testing.T, root, out string)
	}{
		{"a directory swapped for a link out", func(t *testing.T, root, out string) string {
			mkdir(t, filepath.Join(root, ".beads"))
			return filepath.Join(root, ".beads", "log.jsonl")
		}, func(t *testing.T, root, out string) {
			os.RemoveAll(filepath.Join(root, ".beads"))
			symlink(t, out, filepath.Join(root, ".beads"))
		}},
		{"a missing directory made a link out", func(t *testing.T, root, out string) string {
			return filepath.Join(root, ".beads", "log.jsonl")
		}, func(t *testing.T, root, out string) {
			symlink(t, out, filepath.Join(root, ".beads"))
		}},
		{"the file swapped for a link out", func(t *testing.T, root, out string) string {
			return filepath.Join(root, "log.jsonl")
		}, func(t *testing.T, root, out string) {
			symlink(t, filepath.Join(out, "log.jsonl"), filepath.Join(root, "log.jsonl"))
		}},
		{"a link inside swapped for one out", func(t *testing.T, root, out string) string {
			mkdir(t, filepath.Join(root, "real"))
			symlink(t, "real", filepath.Join(root, ".beads"))
			return filepath.Join(root, ".beads", "log.jsonl")
		}, func(t *testing.T, root, out string) {
			os.Remove(filepath.Join(root, ".beads"))
			symlink(t, out, filepath.Join(root, ".beads"))
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root, out := t.TempDir(), t.TempDir()
			l := &Log{Path: c.prepare(t, root, out), Lock: &Lock{Path: filepath.Join(t.TempDir(), "lock")}, Roots: []string{root}, NoSync: true}
			beforeOpen = func(string) { c.swap(t, root, out) }
			t.Cleanup(func() { beforeOpen = func(string) {} })
			err := l.Lock.Do(func(tx *Tx) error { return tx.Append(l, map[string]string{"id": "a"}) })
			_, swapped := errors.AsType[*SwappedError](err)
			_, outside := errors.AsType[*OutsideError](err)
			if !swapped && !outside {
				t.Errorf("append: %v; want it refused", err)
			}
			if _, err := os.Stat(filepath.Join(out, "log.jsonl")); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("the append wrote out of the repository: %v", err)
			}
		})
	}
}

func mkdir(t *testing.T, dir string) {
	t.Helper()
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
}

// A compaction (and an archive: both open the log for a rewrite) sets a
// torn tail aside before it reads the log: it appended the tail to
// wherever a committed queen_messages.jsonl.quarantine link led, out of
// the repository, and it truncated the file a link swapped in after the
// check led to. Both are refused now, as for an append, and the file out
// of the repository is left as it was.
func TestRewriteRefusesALinkOut(t *testing.T) {
	const outside = "a file out of the repository, no final newline"
	cases := []struct {
		name    string
		prepare func(t *testing.T, log, out string)
	}{
		{"the quarantine a link out", func(t *testing.T, log, out string) {
			symlink(t, out, QuarantinePath(log))
		}},
		{"the log swapped for a link out after the check", func(t *testing.T, log, out string) {
			beforeOpen = func(path string) {
				if path == log {
					os.Remove(log)
					symlink(t, out, log)
				}
			}
			t.Cleanup(func() { beforeOpen = func(string) {} })
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			out := filepath.Join(t.TempDir(), "outside")
			if err := os.WriteFile(out, []byte(outside), 0o644); err != nil {
				t.Fatal(err)
			}
			log := filepath.Join(root, "log.jsonl")
			if err := os.WriteFile(log, []byte("{\"id\":\"a\"}\n{\"id\":\"a\"}\n{\"torn"), 0o644); err != nil {
				t.Fatal(err)
			}
			c.prepare(t, log, out)
			l := &Log{Path: log, Lock: &Lock{Path: filepath.Join(t.TempDir(), "lock")}, Roots: []string{root}, NoSync: true}
			err := l.Lock.Do(func(tx *Tx) error { _, _, err := tx.Compact(l, nil); return err })
			_, swapped := errors.AsType[*SwappedError](err)
			_, away := errors.AsType[*OutsideError](err)
			if !swapped && !away {
				t.Errorf("compact: %v; want it refused", err)
			}
			if got, _ := os.ReadFile(out); string(got) != outside {
				t.Errorf("the compaction wrote out of the repository: %q", got)
			}
		})
	}
}

// A compaction of a log that a link inside the repository leads to
// another file (.beads/queen_reservations.jsonl -> ../data/r.jsonl,
// committed) rewrites that file, where appends write: it renamed the
// compacted lines over the link, which became a file of its own (a type
// change git then shows), and left the file appends write to as it was.
func TestCompactThroughALinkRewritesWhereItLeads(t *testing.T) {
	root := t.TempDir()
	mkdir(t, filepath.Join(root, "data"))
	mkdir(t, filepath.Join(root, ".beads"))
	target := filepath.Join(root, "data", "r.jsonl")
	if err := os.WriteFile(target, []byte("{\"id\":\"a\",\"v\":1}\n{\"id\":\"a\",\"v\":2}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	log := symlink(t, "../data/r.jsonl", filepath.Join(root, ".beads", "r.jsonl"))
	l := &Log{Path: log, Lock: &Lock{Path: filepath.Join(t.TempDir(), "lock")}, Roots: []string{root}, NoSync: true}
	if stats, err := l.Compact(); err != nil || stats.LinesAfter != 1 {
		t.Fatalf("compact: %+v, %v", stats, err)
	}
	if info, err := os.Lstat(log); err != nil || info.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link is no longer one: %v, %v", info, err)
	}
	if got, _ := os.ReadFile(target); string(got) != "{\"id\":\"a\",\"v\":2}\n" {
		t.Errorf("the file the link leads to holds %q, want the compacted line", got)
	}
}

// An append refused for its quarantine file (a committed
// log.jsonl.quarantine -> a file out of the repository) creates nothing:
// it left an empty log behind, opened before the quarantine was judged.
func TestARefusedAppendCreatesNoLog(t *testing.T) {
	root := t.TempDir()
	log := filepath.Join(root, "log.jsonl")
	symlink(t, filepath.Join(t.TempDir(), "outside"), QuarantinePath(log))
	l := &Log{Path: log, Lock: &Lock{Path: filepath.Join(t.TempDir(), "lock")}, Roots: []string{root}, NoSync: true}
	err := l.Lock.Do(func(tx *Tx) error { return tx.Append(l, map[string]string{"id": "a"}) })
	if _, away := errors.AsType[*OutsideError](err); !away {
		t.Errorf("append: %v; want it refused", err)
	}
	if _, err := os.Lstat(log); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the refused append created the log: %v", err)
	}
}

// A compaction renames its result in the directory that holds the log it
// read: a directory of the log swapped for a link out of the repository
// between the open and the rename (a teammate's checkout bringing .beads
// -> ../outside) had the compacted log written there, by name.
func TestCompactRefusesADirectorySwappedBeforeTheRename(t *testing.T) {
	root, out := t.TempDir(), t.TempDir()
	mkdir(t, filepath.Join(root, ".beads"))
	log := filepath.Join(root, ".beads", "log.jsonl")
	if err := os.WriteFile(log, []byte("{\"id\":\"a\",\"v\":1}\n{\"id\":\"a\",\"v\":2}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	beforeReplace = func(string) {
		if err := os.Rename(filepath.Join(root, ".beads"), filepath.Join(root, ".beads-before")); err != nil {
			t.Fatal(err)
		}
		symlink(t, out, filepath.Join(root, ".beads"))
	}
	t.Cleanup(func() { beforeReplace = func(string) {} })
	l := &Log{Path: log, Lock: &Lock{Path: filepath.Join(t.TempDir(), "lock")}, Roots: []string{root}, NoSync: true}
	_, err := l.Compact()
	if _, swapped := errors.AsType[*SwappedError](err); !swapped {
		t.Errorf("compact: %v; want it refused", err)
	}
	if entries, _ := os.ReadDir(out); len(entries) > 0 {
		t.Errorf("the compaction wrote out of the repository: %v", entries)
	}
}

// A part replaced after its open is refused, and the refusal says what
// took its place: a regular file put there (a checkout, an editor's save)
// was reported as a symbolic link.
func TestSwappedSaysWhatTookThePlace(t *testing.T) {
	for _, c := range []struct {
		name string
		swap func(t *testing.T, path string)
		link bool
		says string
	}{
		{"another file", func(t *testing.T, path string) {
			os.Remove(path)
			if err := os.WriteFile(path, []byte("new\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}, false, "another file or directory took its place"},
		{"a symbolic link", func(t *testing.T, path string) {
			os.Remove(path)
			symlink(t, t.TempDir(), path)
		}, true, "a symbolic link took its place"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "log.jsonl")
			if err := os.WriteFile(path, []byte("old\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			root, err := os.OpenRoot(dir)
			if err != nil {
				t.Fatal(err)
			}
			defer root.Close()
			f, err := root.Open("log.jsonl")
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			c.swap(t, path)
			err = sameEntry(path, root, "log.jsonl", nil, f.Stat)
			swapped, ok := errors.AsType[*SwappedError](err)
			if !ok || swapped.Link != c.link || !strings.Contains(err.Error(), c.says) {
				t.Errorf("got %v; want a SwappedError saying %q", err, c.says)
			}
		})
	}
}

// An append to a log with no link on its way still judges its quarantine
// file whole when that file is a link: only a quarantine that is no link
// beside such a log is let through on one look (noLinkBeside).
func TestAnAppendBesideAQuarantineLinkOutIsRefused(t *testing.T) {
	root := t.TempDir()
	log := filepath.Join(root, "log.jsonl")
	if err := os.WriteFile(log, []byte("{\"id\":\"a\"}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	symlink(t, filepath.Join(t.TempDir(), "outside"), QuarantinePath(log))
	l := &Log{Path: log, Lock: &Lock{Path: filepath.Join(t.TempDir(), "lock")}, Roots: []string{root}, NoSync: true}
	err := l.Lock.Do(func(tx *Tx) error { return tx.Append(l, map[string]string{"id": "b"}) })
	if _, away := errors.AsType[*OutsideError](err); !away {
		t.Errorf("append: %v; want it refused", err)
	}
	if got := readFile(t, log); got != "{\"id\":\"a\"}\n" {
		t.Errorf("the refused append wrote the log: %q", got)
	}
}
