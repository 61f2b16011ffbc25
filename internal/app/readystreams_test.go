package app

import (
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/testgit"
)

// A [[format]] rule of queen.toml reads st streams inside the worktree
// only: a pattern that climbs out of it (../), and a stream that is a
// symbolic link (or sits in a linked directory) leading out of it, are not
// read, and the problems say why; a link that stays inside is read.
func TestReadyReadsNoStreamOutsideTheWorktree(t *testing.T) {
	testgit.Isolate(t)
	repo := testgit.Init(t)
	outside := t.TempDir()
	stream := `{"v":3,"ts":"2026-02-09T20:00:00Z","seq":0,"lane":"event","op":"replace","items":[{"id":"%s","step":"s","status":"pending","deps":[]}]}` + "\n"
	write := func(path, id string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(strings.Replace(stream, "%s", id, 1)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(outside, "secret.jsonl"), "out-file")
	write(filepath.Join(outside, "dir", "a.jsonl"), "out-dir")
	write(filepath.Join(repo, "plans", "real.jsonl"), "in-real")
	for link, target := range map[string]string{
		"plans/file-link.jsonl": filepath.Join(outside, "secret.jsonl"),
		"linked":                filepath.Join(outside, "dir"),
		"plans/inner.jsonl":     filepath.Join(repo, "plans", "real.jsonl"),
	} {
		if err := os.Symlink(target, filepath.Join(repo, link)); err != nil {
			t.Fatal(err)
		}
	}
	os.MkdirAll(filepath.Join(repo, ".beads"), 0o755)
	toml := "[[format]]\npath = \"plans/*.jsonl\"\nformat = \"st\"\n\n[[format]]\npath = \"linked/*.jsonl\"\nformat = \"st\"\n\n" +
		"[[format]]\npath = \"../" + filepath.Base(outside) + "/*.jsonl\"\nformat = \"st\"\n"
	if err := os.WriteFile(filepath.Join(repo, ".beads", "queen.toml"), []byte(toml), 0o644); err != nil {
		t.Fatal(err)
	}
	e := &Env{Dir: repo, Getenv: func(string) string { return "" }, Now: time.Now, Warn: io.Discard, Droid: "ann"}
	res, err := Ready.Run(e, ReadyRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, it := range res.Ready {
		got = append(got, it.ID)
	}
	slices.Sort(got)
	if want := []string{"in-real"}; !slices.Equal(got, want) {
		t.Errorf("ready %v (sources %v), want %v: a stream outside the worktree was read", got, res.Sources, want)
	}
	// (git lists a linked directory as one file and looks no further
	// into it, so its streams are not even candidates.)
	for _, name := range []string{"plans/file-link.jsonl"} {
		found := false
		for _, p := range res.Problems {
			found = found || p.File == name && strings.Contains(p.Msg, "outside the worktree") &&
				strings.Contains(p.Msg, "name it as one of the streams to read") && !strings.Contains(p.Msg, "--")
		}
		if !found {
			t.Errorf("no problem names %s as leading outside the worktree and says how to read it anyway "+
				"in words both front ends share (the command line's --stream, a tool's streams): %v", name, res.Problems)
		}
	}
	// Named as a stream, the file is read: what the problem advises works.
	named, err := Ready.Run(e, ReadyRequest{Streams: []string{filepath.Join(repo, "plans", "file-link.jsonl")}})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, it := range named.Ready {
		ids = append(ids, it.ID)
	}
	if !slices.Contains(ids, "out-file") {
		t.Errorf("ready with the linked stream named read %v, want out-file among them", ids)
	}
}

// ready finds the streams a queen.toml rule names where validate, the
// merge driver and init's .gitattributes line find them: a path without
// a leading / matches at any depth, ** spans directories, and the first
// rule that matches a file decides its format (format = "none" keeps a
// file out). It read the rule as a glob from the top only, so a stream
// in a subproject, or under **, was merged by the driver and never
// listed.
func TestReadyFindsStreamsAsTheRulesMatchThem(t *testing.T) {
	testgit.Isolate(t)
	repo := testgit.Init(t)
	stream := `{"v":3,"ts":"2026-02-09T20:00:00Z","seq":0,"lane":"event","op":"replace","items":[{"id":"%s","step":"s","status":"pending","deps":[]}]}` + "\n"
	for file, id := range map[string]string{
		"plans/top.jsonl":           "top",
		"sub/plans/nested.jsonl":    "nested",
		"deep/a/b/c/far.jsonl":      "far",
		"plans/off.jsonl":           "off",
		"/anchored/only-top.jsonl":  "anchored",
		"x/anchored/not-here.jsonl": "not-here",
	} {
		path := filepath.Join(repo, filepath.FromSlash(strings.TrimPrefix(file, "/")))
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte(strings.Replace(stream, "%s", id, 1)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	os.MkdirAll(filepath.Join(repo, ".beads"), 0o755)
	toml := "[[format]]\npath = \"plans/off.jsonl\"\nformat = \"none\"\n\n" +
		"[[format]]\npath = \"plans/*.jsonl\"\nformat = \"st\"\n\n" +
		"[[format]]\npath = \"deep/**/*.jsonl\"\nformat = \"st\"\n\n" +
		"[[format]]\npath = \"/anchored/*.jsonl\"\nformat = \"st\"\n"
	if err := os.WriteFile(filepath.Join(repo, ".beads", "queen.toml"), []byte(toml), 0o644); err != nil {
		t.Fatal(err)
	}
	e := &Env{Dir: repo, Getenv: func(string) string { return "" }, Now: time.Now, Warn: io.Discard, Droid: "ann"}
	res, err := Ready.Run(e, ReadyRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, it := range res.Ready {
		got = append(got, it.ID)
	}
	slices.Sort(got)
	if want := []string{"anchored", "far", "nested", "top"}; !slices.Equal(got, want) {
		t.Errorf("ready %v (sources %v), want %v", got, res.Sources, want)
	}
}
