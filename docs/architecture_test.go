package docs_test

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// module is the import path every package of this repository starts with.
const module = "github.com/git-queen/git-queen"

// layer is one row of ARCHITECTURE.md's table of layers: its rank (a
// package may import its own layer and the layers below, never above) and
// the package directories it holds.
type layer struct {
	rank     int
	name     string
	packages []string
}

// readLayers parses the table under "## The layers" in ARCHITECTURE.md:
// rows of | rank | name | `dir`, `dir` ... | rule |.
func readLayers(t *testing.T, doc string) map[string]layer {
	t.Helper()
	_, section, ok := strings.Cut(doc, "\n## The layers\n")
	if !ok {
		t.Fatal(`ARCHITECTURE.md has no "## The layers" section`)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	byDir := map[string]layer{}
	code := regexp.MustCompile("`([^`]+)`")
	for line := range strings.Lines(section) {
		cells := strings.Split(strings.TrimSpace(line), "|")
		if len(cells) < 5 {
			continue
		}
		rank, err := strconv.Atoi(strings.TrimSpace(cells[1]))
		if err != nil {
			continue // the header and its rule
		}
		l := layer{rank: rank, name: strings.TrimSpace(cells[2])}
		for _, m := range code.FindAllStringSubmatch(cells[3], -1) {
			dir := strings.TrimSuffix(m[1], "/")
			if other, dup := byDir[dir]; dup {
				t.Errorf("ARCHITECTURE.md puts %s in two layers: %s and %s", dir, other.name, l.name)
			}
			l.packages = append(l.packages, dir)
			byDir[dir] = l
		}
	}
	if len(byDir) == 0 {
		t.Fatal("ARCHITECTURE.md's table of layers names no package")
	}
	return byDir
}

// packageImports maps every package directory of the module (relative to
// its root, tests and testdata left out) to the module packages its code
// imports.
func packageImports(t *testing.T, root string) map[string][]string {
	t.Helper()
	imports := map[string][]string{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") || strings.HasSuffix(name, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		dir, _ := filepath.Rel(root, filepath.Dir(path))
		dir = filepath.ToSlash(dir)
		if _, ok := imports[dir]; !ok {
			imports[dir] = nil
		}
		for _, spec := range f.Imports {
			p, _ := strconv.Unquote(spec.Path.Value)
			if rel, ok := strings.CutPrefix(p, module+"/"); ok && !slices.Contains(imports[dir], rel) {
				imports[dir] = append(imports[dir], rel)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return imports
}

// ARCHITECTURE.md's table of layers is the code's: every package is in
// exactly one layer, every layer's packages exist, and no package imports
// one of a higher layer. A package added, moved or wired upwards fails
// here until the document says where it belongs.
func TestArchitectureLayersAreTheCodes(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "ARCHITECTURE.md"))
	if err != nil {
		t.Fatal(err)
	}
	layers := readLayers(t, string(data))
	imports := packageImports(t, "..")
	for dir := range layers {
		if _, ok := imports[dir]; !ok {
			t.Errorf("ARCHITECTURE.md names %s, which holds no Go package", dir)
		}
	}
	for dir, deps := range imports {
		l, ok := layers[dir]
		if !ok {
			t.Errorf("package %s is in no layer of ARCHITECTURE.md: add it to the table", dir)
			continue
		}
		for _, dep := range deps {
			if d, ok := layers[dep]; ok && d.rank > l.rank {
				t.Errorf("%s (layer %d, %s) imports %s (layer %d, %s): imports run downwards only",
					dir, l.rank, l.name, dep, d.rank, d.name)
			}
		}
	}
}

// Every file path ARCHITECTURE.md names in backquotes exists, so the walk
// from argv to bytes and the places to add things stay true.
func TestArchitecturePathsExist(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "ARCHITECTURE.md"))
	if err != nil {
		t.Fatal(err)
	}
	path := regexp.MustCompile("`((?:cmd|internal|merge|hooks|docs|scripts)/[A-Za-z0-9_./-]+)`")
	found := 0
	for _, m := range path.FindAllStringSubmatch(string(data), -1) {
		found++
		if _, err := os.Stat(filepath.Join("..", filepath.FromSlash(m[1]))); err != nil {
			t.Errorf("ARCHITECTURE.md names %s, which does not exist", m[1])
		}
	}
	if found < 10 {
		t.Fatalf("ARCHITECTURE.md names only %d paths of the code; the test reads none of its walk", found)
	}
}
