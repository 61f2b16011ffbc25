package reservations

import (
	"errors"
	"slices"
	"testing"

	"github.com/git-queen/git-queen/internal/base/globs"
)

// fakeRepo answers what a path names from a list of files (every parent
// of one is a directory) and directories: the repository's HEAD, index
// and worktree in one.
func fakeRepo(files, dirs []string) globs.KindFunc {
	kinds := map[string]globs.PathKind{}
	for _, d := range dirs {
		kinds[d] = globs.Dir
	}
	for _, f := range files {
		kinds[f] = globs.File
		for i := range len(f) {
			if f[i] == '/' {
				kinds[f[:i]] = globs.Dir
			}
		}
	}
	return func(path string) (globs.PathKind, error) {
		for i := range len(path) {
			if path[i] == '/' && kinds[path[:i]] == globs.File {
				return globs.BeneathFile, nil
			}
		}
		return kinds[path], nil
	}
}

// TestOverlapMatchesTheRepository reserves, as two droids, patterns
// normalised against one repository, and expects exactly the conflicts a
// path that can exist there witnesses.
func TestOverlapMatchesTheRepository(t *testing.T) {
	repo := fakeRepo([]string{"README.md", "package-lock.json", "go.sum", "src/components/Button.tsx",
		"src/api/handler.go", "docs/guide.md"}, []string{"vendor/lib"})
	tests := []struct {
		held, asked string
		witness     string // "" for no conflict
	}{
		// A committed file reserved by name is that file alone.
		{"**/*.go", "README.md", ""},
		{"**/*.lock", "package-lock.json", ""},
		{"**/*.go", "go.sum", ""},
		{"**/*.md", "README.md", "README.md"},
		{"README.md", "**/*.md", "README.md"},
		{"README.md", "README.md", "README.md"},
		{"**/*.go", "src/api/handler.go", "src/api/handler.go"},
		{"src/api/handler.go", "**/*_test.go", ""},
		// A directory is its subtree.
		{"src/components/Button.tsx", "src/components", "src/components/Button.tsx"},
		{"src/components", "src/components/Button.tsx", "src/components/Button.tsx"},
		{"src/components", "**/*.tsx", "src/components/.tsx"},
		{"src/api", "src/**", "src/api"},
		{"vendor/lib", "vendor/**", "vendor/lib"},
		{"vendor/lib", "vendor/lib", "vendor/lib"},
		{"docs", "README.md", ""},
		// A path not there yet may become a directory.
		{"newdir", "newdir/*.go", "newdir/.go"},
		{"newdir", "newdir/a.go", "newdir/a.go"},
		// "DIR/" of a file is the file.
		{"README.md/", "**/*.go", ""},
		{"README.md/", "README.md", "README.md"},
	}
	for _, tt := range tests {
		f := newFixture(t)
		held, err := Normalize(tt.held, repo)
		if err != nil {
			t.Fatal(err)
		}
		asked, err := Normalize(tt.asked, repo)
		if err != nil {
			t.Fatal(err)
		}
		f.reserve(t, "ann", held, true)
		_, err = f.res.Reserve(Request{Patterns: []string{asked}, Droid: "bob", Exclusive: true})
		var conflict *ConflictError
		switch {
		case tt.witness == "" && err != nil:
			t.Errorf("ann holds %s (%s), bob asks %s (%s): %v; want granted", tt.held, held, tt.asked, asked, err)
		case tt.witness != "" && !errors.As(err, &conflict):
			t.Errorf("ann holds %s (%s), bob asks %s (%s): %v; want a conflict witnessed by %s", tt.held, held, tt.asked, asked, err, tt.witness)
		case tt.witness != "" && conflict.Conflicts[0].Witness != tt.witness:
			t.Errorf("ann holds %s (%s), bob asks %s (%s): witness %s, want %s", tt.held, held, tt.asked, asked, conflict.Conflicts[0].Witness, tt.witness)
		}
	}
}

// A directory that check is given is held when anything in it is: the
// judgement reserve makes of DIR/**. A path is held only by what matches
// it.
func TestCheckWithinAgreesWithReserve(t *testing.T) {
	f := newFixture(t)
	for _, p := range []string{"src/api/**", "vendor/lib/**", "docs/guide.md", "we\\*ird/**"} {
		f.reserve(t, "ann", p, true)
	}
	tests := []struct {
		path    string
		dir     bool
		witness string // "" for free
	}{
		{"src/api", true, "src/api"},
		{"src/api", false, "src/api"},
		{"src", true, "src/api"},
		{"src", false, ""},
		{"vendor/lib", true, "vendor/lib"},
		{"vendor/lib", false, "vendor/lib"},
		{"docs", true, "docs/guide.md"},
		{"docs", false, ""},
		{"lib", true, ""},
		{"we*ird", true, "we*ird"},
		{"weXird", true, ""},
		{".", true, "docs/guide.md"},
	}
	for _, tt := range tests {
		var files, dirs []string
		if tt.dir {
			dirs = []string{tt.path}
		} else {
			files = []string{tt.path}
		}
		holds, err := f.res.CheckWithin("bob", files, dirs)
		if err != nil {
			t.Fatal(err)
		}
		if tt.witness == "" {
			if len(holds) != 0 {
				t.Errorf("%s (dir %v): held by %v, want free", tt.path, tt.dir, holds)
			}
			continue
		}
		var witnesses []string
		for _, h := range holds {
			witnesses = append(witnesses, h.Witness)
			if h.Path != tt.path || h.Reservation.Droid != "ann" {
				t.Errorf("%s: hold %+v", tt.path, h)
			}
		}
		if len(holds) == 0 || (tt.dir && !slices.Contains(witnesses, tt.witness)) {
			t.Errorf("%s (dir %v): holds %v, want one witnessed by %s", tt.path, tt.dir, witnesses, tt.witness)
		}
		// What check says of a directory, reserve says of DIR/**.
		if tt.dir && tt.path != "." {
			_, err := f.res.Reserve(Request{Patterns: []string{globs.Escape(tt.path) + "/**"}, Droid: "bob", Exclusive: true})
			if !errors.As(err, new(*ConflictError)) {
				t.Errorf("check says %s is held, reserve %s/** says %v", tt.path, tt.path, err)
			}
		}
		// ann's own reservations never hold a path against her.
		if mine, _ := f.res.CheckWithin("ann", files, dirs); len(mine) != 0 {
			t.Errorf("%s: ann's own reservations hold it against her: %v", tt.path, mine)
		}
	}
}
