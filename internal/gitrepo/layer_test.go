package gitrepo_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// The rule this file keeps true: the git layer (internal/gitrepo and the
// packages under it) is the only code that starts git or reads git's
// formats through go-git. Anywhere else, a git process goes through a
// named function of the layer (repo.ResolveCommit, transport.Push), never
// through an argv built on the spot.

// notYetMoved are the files that start a program whose name the scan
// cannot read: mcp_child.go starts git-queen-mcp, the MCP server, where
// the platform cannot replace the process; frameworkvalidate.go starts
// the pre-commit framework as its generated hook does, with the Python
// the hook names (INSTALL_PYTHON), else the pre-commit on PATH.
var notYetMoved = []string{
	"internal/front/commands/mcp_child.go",
	"internal/team/setup/frameworkvalidate.go",
}

// outsideLayer says whether a module-relative file is outside the git
// layer and its test helpers (internal/testgit builds throwaway
// repositories with git for tests).
func outsideLayer(rel string) bool {
	return !strings.HasPrefix(rel, "internal/gitrepo/") && !strings.HasPrefix(rel, "internal/testgit/")
}

var (
	moduleOnce  sync.Once
	moduleFset  *token.FileSet
	modulePkgs  []*sourcePackage
	moduleRoot  string
	moduleError string
)

// loadModule loads and type-checks the module once for every test of the
// package that scans it.
func loadModule(t *testing.T) (*token.FileSet, []*sourcePackage, string) {
	t.Helper()
	moduleOnce.Do(func() {
		root, err := filepath.Abs(filepath.Join("..", ".."))
		if err != nil {
			moduleError = err.Error()
			return
		}
		moduleRoot = root
		moduleFset, modulePkgs = loadPackages(t, root, "./...")
	})
	if modulePkgs == nil {
		t.Fatalf("the module could not be loaded: %s", moduleError)
	}
	return moduleFset, modulePkgs, moduleRoot
}

// No file outside the git layer starts git: no exec.Command of "git" (or
// of a program the scan cannot name), no gitrepo.Command, gitrepo.Git or
// function that hands its arguments on to them. `git queen ...` runs
// git-queen itself, as a person types it, and is not git's business.
func TestOnlyTheGitLayerStartsGit(t *testing.T) {
	if testing.Short() {
		t.Skip("loads and type-checks the whole module")
	}
	fset, pkgs, root := loadModule(t)
	found, allowed, judged := gitStarts(t, fset, pkgs, pkgs, root)
	for _, pos := range found {
		t.Errorf("%s: starts git outside the git layer; call a named function of internal/gitrepo (or add one there)", pos)
	}
	for _, rel := range notYetMoved {
		if !allowed[rel] {
			t.Logf("%s no longer starts git: drop it from notYetMoved", rel)
		}
	}
	if judged < 100 {
		t.Errorf("the scan judged %d files outside the git layer; the module has more", judged)
	}
}

// gitStarts finds where the files of judge outside the git layer start
// git (all: every package, for the functions that hand arguments on to
// git), returning the positions, the files of notYetMoved that do, and
// the number of files judged.
func gitStarts(t *testing.T, fset *token.FileSet, all, judge []*sourcePackage, root string) (found []string, allowed map[string]bool, judged int) {
	c, _ := checkGitArgs(fset, all)
	allowed = map[string]bool{}
	for _, p := range judge {
		for _, file := range p.Syntax {
			rel, err := filepath.Rel(root, fset.Position(file.Pos()).Filename)
			if err != nil {
				t.Fatal(err)
			}
			if rel = filepath.ToSlash(rel); !outsideLayer(rel) {
				continue
			}
			judged++
			for _, d := range file.Decls {
				decl, ok := d.(*ast.FuncDecl)
				if !ok || decl.Body == nil {
					continue
				}
				fn, _ := p.TypesInfo.Defs[decl.Name].(*types.Func)
				if fn == nil {
					continue
				}
				ast.Inspect(decl.Body, func(n ast.Node) bool {
					starts := len(c.invocations(p, decl, fn, n)) > 0 && !runsGitQueen(p, n)
					if call, ok := n.(*ast.CallExpr); ok && !starts {
						starts = startsUnnamedProgram(p, call)
					}
					switch {
					case !starts:
					case slices.Contains(notYetMoved, rel):
						allowed[rel] = true
					default:
						found = append(found, fset.Position(n.Pos()).String())
					}
					return true
				})
			}
		}
	}
	return found, allowed, judged
}

// runsGitQueen says whether n is exec.Command("git", "queen", ...): this
// program, started the way a person starts it.
func runsGitQueen(p *sourcePackage, n ast.Node) bool {
	call, ok := n.(*ast.CallExpr)
	if !ok || len(call.Args) < 2 {
		return false
	}
	callee := typeutilCallee(p.TypesInfo, call)
	if callee == nil || callee.Pkg() == nil || callee.Pkg().Path() != "os/exec" || callee.Name() != "Command" {
		return false
	}
	s, ok := constString(p.TypesInfo, call.Args[1])
	return ok && s == "queen"
}

// startsUnnamedProgram says whether call is an exec.Command or
// CommandContext whose program is not a constant: it may be git.
func startsUnnamedProgram(p *sourcePackage, call *ast.CallExpr) bool {
	callee := typeutilCallee(p.TypesInfo, call)
	if callee == nil || callee.Pkg() == nil || callee.Pkg().Path() != "os/exec" {
		return false
	}
	at := map[string]int{"Command": 0, "CommandContext": 1}
	i, ok := at[callee.Name()]
	if !ok || len(call.Args) <= i {
		return false
	}
	_, named := constString(p.TypesInfo, call.Args[i])
	return !named
}

// No file outside the git layer imports go-git: git's formats and its
// object ids are the layer's to know (an id is object.ID outside it).
// Every .go file is read, tests too, whatever its build constraints.
func TestOnlyTheGitLayerImportsGitFormats(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	files := 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if !strings.HasSuffix(rel, ".go") || !outsideLayer(rel) {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		files++
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			if gitFormat(path) {
				t.Errorf("%s imports %s: go-git belongs to internal/gitrepo; call it there (object.ID for an id)", fset.Position(imp.Pos()), path)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 100 {
		t.Errorf("read %d files outside the git layer; the module has more", files)
	}
}

// gitFormat says whether an import path is one of go-git's packages (and
// its file-system abstraction, go-billy), which know git's formats.
func gitFormat(path string) bool {
	return strings.HasPrefix(path, "github.com/go-git/")
}

// The rules themselves catch what they must: every way the gitargs
// fixture starts git is found, and the import rule tells go-git's format
// packages from the rest.
func TestLayerRulesCatchAViolation(t *testing.T) {
	if testing.Short() {
		t.Skip("type-checks a fixture")
	}
	dir, err := filepath.Abs(filepath.Join("testdata", "gitargs"))
	if err != nil {
		t.Fatal(err)
	}
	fset, pkgs := loadPackages(t, dir, ".", "github.com/git-queen/git-queen/internal/gitrepo")
	var fixture []*sourcePackage
	for _, p := range pkgs {
		if !strings.HasSuffix(p.Path, "/internal/gitrepo") {
			fixture = append(fixture, p)
		}
	}
	found, _, judged := gitStarts(t, fset, pkgs, fixture, dir)
	if judged == 0 || len(found) < 10 {
		t.Errorf("the scan found %d git processes in %d fixture files; the fixture starts git in more than 10 places: %v", len(found), judged, found)
	}
	for path, want := range map[string]bool{
		"github.com/go-git/go-git/v5/plumbing/format/objfile": true,
		"github.com/go-git/go-git/v5/plumbing/format/index":   true,
		"github.com/go-git/go-git/v5/plumbing/object":         true,
		"github.com/go-git/go-git/v5/plumbing":                true,
		"github.com/go-git/go-git/v5/plumbing/filemode":       true,
		"github.com/go-git/go-billy/v5":                       true,
		"github.com/git-queen/git-queen/internal/gitrepo":     false,
		"github.com/bmatcuk/doublestar/v4":                    false,
	} {
		if gitFormat(path) != want {
			t.Errorf("gitFormat(%s) = %v, want %v", path, !want, want)
		}
	}
	for rel, want := range map[string]bool{
		"internal/gitrepo/refs/refs.go": false, "internal/testgit/remote.go": false,
		"internal/storage/ledger/refs.go": true, "internal/gitrepox/a.go": true, "cmd/git-queen/main.go": true,
	} {
		if outsideLayer(rel) != want {
			t.Errorf("outsideLayer(%s) = %v, want %v", rel, !want, want)
		}
	}
}
