package gitrepo_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/constant"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The rule this file keeps true: no argument from a person, an agent or a
// remote reaches git as an option. It finds every git process the module
// starts (exec.Command("git", ...), a gitrepo.Command, and every function
// that hands its own arguments on to one of those, found by following
// them), lays out the arguments each invocation gives git, and accepts a
// value that is not a constant only when git cannot read it as an option:
//
//   - it comes after "--" or "--end-of-options";
//   - it is the value of an option that takes the next argument whatever
//     it is (-c, --git-dir, commit-tree's -p and -m, merge-file's -L);
//   - it is glued to a constant that is not an option ("remote."+name,
//     "^"+id), or to an option as its value ("--remotes="+name);
//   - it is an object id (plumbing.Hash's String), which is hex.
//
// Anything else, a variable in an option's place or a slice the scan
// cannot follow, fails the test with its position. The one exemption is
// gitrepo.Command.Run itself, whose callers are all checked.

// gitArg is one argument of a git invocation, with the type information
// of the package it is written in.
type gitArg struct {
	expr ast.Expr
	info *types.Info
	// spread: a slice spread into the arguments that the scan could not
	// follow; param: the enclosing function's own parameter, spread (its
	// callers' arguments, checked where it is called).
	spread bool
	param  *types.Var
}

// runner is a function that hands its arguments on to git: callers' args
// from index from go to git between prefix and suffix.
type runner struct {
	prefix, suffix []gitArg
	from           int
	variadic       bool
}

type gitArgsChecker struct {
	fset       *token.FileSet
	runners    map[string][]runner // by types.Func.FullName: one per invocation that hands arguments on
	vars       map[string]ast.Expr // package-level variables' initializers, by package path and name
	invoked    int
	violations map[string]string // position -> what
}

// checkGitArgs scans pkgs and returns the violations, by position, and
// the number of invocations it judged.
func checkGitArgs(fset *token.FileSet, pkgs []*sourcePackage) (*gitArgsChecker, map[string]string) {
	c := &gitArgsChecker{fset: fset, runners: map[string][]runner{}, vars: map[string]ast.Expr{}, violations: map[string]string{}}
	c.indexVars(pkgs)
	// Runners are found until none is new, then every invocation is judged.
	for found := true; found; {
		found = false
		for _, p := range pkgs {
			c.eachFunc(p, func(fn *types.Func, decl *ast.FuncDecl, args []gitArg) {
				if r, ok := c.asRunner(fn, args); ok && !slices.ContainsFunc(c.runners[fn.FullName()], r.same) {
					c.runners[fn.FullName()] = append(c.runners[fn.FullName()], r)
					found = true
				}
			})
		}
	}
	for _, p := range pkgs {
		c.eachFunc(p, func(fn *types.Func, decl *ast.FuncDecl, args []gitArg) {
			c.invoked++
			c.judge(args)
		})
	}
	return c, c.violations
}

// eachFunc calls visit with every git invocation in p's functions.
func (c *gitArgsChecker) eachFunc(p *sourcePackage, visit func(*types.Func, *ast.FuncDecl, []gitArg)) {
	for _, file := range p.Syntax {
		for _, d := range file.Decls {
			decl, ok := d.(*ast.FuncDecl)
			if !ok || decl.Body == nil {
				continue
			}
			fn, _ := p.TypesInfo.Defs[decl.Name].(*types.Func)
			if fn == nil || fn.FullName() == "(github.com/git-queen/git-queen/internal/gitrepo.Command).Run" {
				continue // the runner itself
			}
			ast.Inspect(decl.Body, func(n ast.Node) bool {
				for _, args := range c.invocations(p, decl, fn, n) {
					visit(fn, decl, args)
				}
				return true
			})
		}
	}
}

// invocations are the ways n starts git, each with its arguments (one
// per invocation in a runner that n calls).
func (c *gitArgsChecker) invocations(p *sourcePackage, decl *ast.FuncDecl, fn *types.Func, n ast.Node) [][]gitArg {
	info := p.TypesInfo
	switch n := n.(type) {
	case *ast.CompositeLit:
		if named, ok := types.Unalias(info.TypeOf(n)).(*types.Named); ok && named.Obj().Name() == "Command" &&
			named.Obj().Pkg() != nil && named.Obj().Pkg().Path() == "github.com/git-queen/git-queen/internal/gitrepo" {
			for _, el := range n.Elts {
				if kv, ok := el.(*ast.KeyValueExpr); ok && fmt.Sprint(kv.Key) == "Args" {
					return [][]gitArg{c.slice(kv.Value, info, decl, fn)}
				}
			}
			return [][]gitArg{nil} // no arguments at all
		}
	case *ast.CallExpr:
		callee := typeutilCallee(info, n)
		if callee == nil {
			return nil
		}
		if callee.Pkg() != nil && callee.Pkg().Path() == "os/exec" && (callee.Name() == "Command" || callee.Name() == "CommandContext") {
			at := 0
			if callee.Name() == "CommandContext" {
				at = 1
			}
			if len(n.Args) <= at {
				return nil
			}
			if s, ok := constString(info, n.Args[at]); !ok || s != "git" {
				return nil // another program
			}
			return [][]gitArg{c.callArgs(n, at+1, true, info, decl, fn)}
		}
		var all [][]gitArg
		for _, r := range c.runners[callee.FullName()] {
			args := append(append([]gitArg{}, r.prefix...), c.callArgs(n, r.from, r.variadic, info, decl, fn)...)
			all = append(all, append(args, r.suffix...))
		}
		return all
	}
	return nil
}

// callArgs lays out a call's arguments from index from: each one, or a
// slice passed whole or spread with "...".
func (c *gitArgsChecker) callArgs(call *ast.CallExpr, from int, variadic bool, info *types.Info, decl *ast.FuncDecl, fn *types.Func) []gitArg {
	var out []gitArg
	for i := from; i < len(call.Args); i++ {
		a := call.Args[i]
		if !variadic || (call.Ellipsis.IsValid() && i == len(call.Args)-1) {
			out = append(out, c.slice(a, info, decl, fn)...)
			continue
		}
		out = append(out, gitArg{expr: a, info: info})
	}
	return out
}

// slice lays out the elements of a []string expression: a literal, an
// append, a package-level variable, a local variable and every append to
// it in the function (in source order, all branches), or the function's
// own parameter. What it cannot follow is one spread argument.
func (c *gitArgsChecker) slice(e ast.Expr, info *types.Info, decl *ast.FuncDecl, fn *types.Func) []gitArg {
	switch e := ast.Unparen(e).(type) {
	case *ast.CompositeLit:
		var out []gitArg
		for _, el := range e.Elts {
			out = append(out, gitArg{expr: el, info: info})
		}
		return out
	case *ast.CallExpr:
		if b, ok := info.Uses[identOf(e.Fun)].(*types.Builtin); ok && b.Name() == "append" && len(e.Args) > 0 {
			out := c.slice(e.Args[0], info, decl, fn)
			for i, a := range e.Args[1:] {
				if e.Ellipsis.IsValid() && i == len(e.Args)-2 {
					out = append(out, c.slice(a, info, decl, fn)...)
				} else {
					out = append(out, gitArg{expr: a, info: info})
				}
			}
			return out
		}
	case *ast.Ident:
		v, ok := info.Uses[e].(*types.Var)
		if !ok {
			break
		}
		sig := fn.Type().(*types.Signature)
		for i := range sig.Params().Len() {
			if sig.Params().At(i) == v {
				return []gitArg{{expr: e, info: info, param: v}}
			}
		}
		if v.Parent() == v.Pkg().Scope() {
			if init := c.vars[v.Pkg().Path()+"."+v.Name()]; init != nil {
				return c.slice(init, info, decl, fn)
			}
			break
		}
		return c.local(v, info, decl, fn)
	}
	return []gitArg{{expr: e, info: info, spread: true}}
}

// local lays out a local slice variable from its assignments in decl.
func (c *gitArgsChecker) local(v *types.Var, info *types.Info, decl *ast.FuncDecl, fn *types.Func) []gitArg {
	var out []gitArg
	ast.Inspect(decl.Body, func(n ast.Node) bool {
		as, ok := n.(*ast.AssignStmt)
		if !ok || len(as.Lhs) != len(as.Rhs) {
			return true
		}
		for i, l := range as.Lhs {
			id, ok := l.(*ast.Ident)
			if !ok || (info.Defs[id] != v && info.Uses[id] != v) {
				continue
			}
			rhs := ast.Unparen(as.Rhs[i])
			if call, ok := rhs.(*ast.CallExpr); ok {
				if b, ok := info.Uses[identOf(call.Fun)].(*types.Builtin); ok && b.Name() == "append" && len(call.Args) > 0 {
					if first, ok := ast.Unparen(call.Args[0]).(*ast.Ident); ok && info.Uses[first] == v {
						for j, a := range call.Args[1:] {
							if call.Ellipsis.IsValid() && j == len(call.Args)-2 {
								out = append(out, c.slice(a, info, decl, fn)...)
							} else {
								out = append(out, gitArg{expr: a, info: info})
							}
						}
						continue
					}
				}
			}
			out = append(out, c.slice(rhs, info, decl, fn)...)
		}
		return true
	})
	return out
}

// asRunner says whether fn hands one of its parameters on to git (before
// any "--"), and how.
func (c *gitArgsChecker) asRunner(fn *types.Func, args []gitArg) (runner, bool) {
	eoo := false
	for i, a := range args {
		if s, ok := constString(a.info, a.expr); ok && !a.spread && a.param == nil && (s == "--" || s == "--end-of-options") {
			eoo = true
		}
		if a.param == nil || eoo {
			continue
		}
		sig := fn.Type().(*types.Signature)
		for j := range sig.Params().Len() {
			if sig.Params().At(j) == a.param {
				return runner{prefix: args[:i], suffix: args[i+1:], from: j, variadic: sig.Variadic() && j == sig.Params().Len()-1}, true
			}
		}
	}
	return runner{}, false
}

// same says whether two runners of one function hand on the same way.
func (r runner) same(o runner) bool {
	pos := func(args []gitArg) []token.Pos {
		var out []token.Pos
		for _, a := range args {
			out = append(out, a.expr.Pos())
		}
		return out
	}
	return r.from == o.from && slices.Equal(pos(r.prefix), pos(o.prefix)) && slices.Equal(pos(r.suffix), pos(o.suffix))
}

// valueOptions take the next argument as their value, whatever it is, by
// subcommand ("" for git's own options before it).
var valueOptions = map[string][]string{
	"":            {"-c", "-C", "--git-dir", "--work-tree", "--namespace"},
	"commit-tree": {"-p", "-m", "-F"},
	"commit":      {"-m", "-F"},
	"merge-file":  {"-L"},
}

// judge records every argument of one invocation that git could read as
// an option.
func (c *gitArgsChecker) judge(args []gitArg) {
	sub, eoo, valueNext := "", false, false
	for _, a := range args {
		if valueNext {
			valueNext = false
			continue
		}
		if eoo || a.param != nil {
			continue
		}
		if s, ok := constString(a.info, a.expr); ok && !a.spread {
			switch {
			case s == "--" || s == "--end-of-options":
				eoo = true
			case strings.HasPrefix(s, "-"):
				valueNext = slices.Contains(valueOptions[sub], s)
			case sub == "":
				sub = s
			}
			continue
		}
		if !a.spread && safeStart(a.info, a.expr) {
			continue
		}
		what := "a value git may read as an option (put it after \"--\" or \"--end-of-options\", or refuse a leading '-')"
		if a.spread {
			what = "arguments the scan cannot follow, before any \"--\""
		}
		c.violations[c.fset.Position(a.expr.Pos()).String()] = fmt.Sprintf("%s: %s", types.ExprString(a.expr), what)
	}
}

// safeStart says whether a value cannot start with '-': a concatenation
// whose first part is a constant that is not an option (or an option
// with "=" that takes the rest as its value), or an object id.
func safeStart(info *types.Info, e ast.Expr) bool {
	e = ast.Unparen(e)
	for {
		b, ok := e.(*ast.BinaryExpr)
		if !ok || b.Op != token.ADD {
			break
		}
		e = ast.Unparen(b.X)
		if s, ok := constString(info, e); ok {
			return s != "" && (!strings.HasPrefix(s, "-") || strings.HasPrefix(s, "--") && strings.HasSuffix(s, "="))
		}
	}
	call, ok := e.(*ast.CallExpr)
	if !ok {
		return false
	}
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != "String" {
		return false
	}
	named, ok := types.Unalias(info.TypeOf(sel.X)).(*types.Named)
	return ok && named.Obj().Name() == "Hash" && named.Obj().Pkg() != nil &&
		named.Obj().Pkg().Path() == "github.com/go-git/go-git/v5/plumbing"
}

func constString(info *types.Info, e ast.Expr) (string, bool) {
	tv, ok := info.Types[e]
	if !ok || tv.Value == nil || tv.Value.Kind() != constant.String {
		return "", false
	}
	return constant.StringVal(tv.Value), true
}

func identOf(e ast.Expr) *ast.Ident {
	switch e := ast.Unparen(e).(type) {
	case *ast.Ident:
		return e
	case *ast.SelectorExpr:
		return e.Sel
	}
	return nil
}

// typeutilCallee is the function or method a call calls, if static.
func typeutilCallee(info *types.Info, call *ast.CallExpr) *types.Func {
	id := identOf(call.Fun)
	if id == nil {
		return nil
	}
	fn, _ := info.Uses[id].(*types.Func)
	return fn
}

// indexVars finds the initializers of package-level variables.
func (c *gitArgsChecker) indexVars(pkgs []*sourcePackage) {
	for _, p := range pkgs {
		for _, file := range p.Syntax {
			for _, d := range file.Decls {
				gd, ok := d.(*ast.GenDecl)
				if !ok || gd.Tok != token.VAR {
					continue
				}
				for _, spec := range gd.Specs {
					vs := spec.(*ast.ValueSpec)
					for i, name := range vs.Names {
						if i < len(vs.Values) {
							c.vars[p.Path+"."+name.Name] = vs.Values[i]
						}
					}
				}
			}
		}
	}
}

// sourcePackage is one package of the module, parsed and type-checked.
type sourcePackage struct {
	Path      string
	Syntax    []*ast.File
	TypesInfo *types.Info
}

// loadPackages parses and type-checks the packages patterns name (run in
// dir), taking their imports from the export data `go list -export`
// builds: go/types and the go command, nothing more.
func loadPackages(t *testing.T, dir string, patterns ...string) (*token.FileSet, []*sourcePackage) {
	t.Helper()
	cmd := exec.Command("go", append([]string{"list", "-e", "-export", "-deps",
		"-json=ImportPath,Dir,GoFiles,Export,DepOnly,ImportMap,Error"}, patterns...)...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	type listed struct {
		ImportPath, Dir, Export string
		GoFiles                 []string
		DepOnly                 bool
		ImportMap               map[string]string
		Error                   *struct{ Err string }
	}
	exports := map[string]string{}
	var targets []listed
	for dec := json.NewDecoder(bytes.NewReader(out)); ; {
		var p listed
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		if p.Error != nil {
			t.Fatalf("go list %s: %s", p.ImportPath, p.Error.Err)
		}
		exports[p.ImportPath] = p.Export
		if !p.DepOnly {
			targets = append(targets, p)
		}
	}
	fset := token.NewFileSet()
	imp := importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		if exports[path] == "" {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return os.Open(exports[path])
	})
	var pkgs []*sourcePackage
	for _, l := range targets {
		p := &sourcePackage{Path: l.ImportPath, TypesInfo: &types.Info{Types: map[ast.Expr]types.TypeAndValue{},
			Defs: map[*ast.Ident]types.Object{}, Uses: map[*ast.Ident]types.Object{}}}
		for _, name := range l.GoFiles {
			f, err := parser.ParseFile(fset, filepath.Join(l.Dir, name), nil, parser.ParseComments|parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			p.Syntax = append(p.Syntax, f)
		}
		conf := types.Config{Importer: mappedImporter{imp, l.ImportMap}}
		if _, err := conf.Check(l.ImportPath, fset, p.Syntax, p.TypesInfo); err != nil {
			t.Fatalf("type-check %s: %v", l.ImportPath, err)
		}
		pkgs = append(pkgs, p)
	}
	return fset, pkgs
}

// mappedImporter resolves an import as the go command did (vendoring).
type mappedImporter struct {
	types.Importer
	importMap map[string]string
}

func (m mappedImporter) Import(path string) (*types.Package, error) {
	if mapped, ok := m.importMap[path]; ok {
		path = mapped
	}
	return m.Importer.Import(path)
}

// Every git invocation in the module keeps arguments from reaching git
// as options, and the scan sees the invocations it must.
func TestNoArgumentReachesGitAsAnOption(t *testing.T) {
	if testing.Short() {
		t.Skip("loads and type-checks the whole module")
	}
	fset, pkgs, _ := loadModule(t)
	c, violations := checkGitArgs(fset, pkgs)
	for _, pos := range slices.Sorted(maps.Keys(violations)) {
		t.Errorf("%s: %s", pos, violations[pos])
	}
	var names []string
	for name := range c.runners {
		names = append(names, name)
	}
	for _, want := range []string{
		"github.com/git-queen/git-queen/internal/gitrepo.Git",
		"github.com/git-queen/git-queen/internal/gitrepo.GitInput",
		"github.com/git-queen/git-queen/internal/gitrepo/transport.run",
	} {
		if !slices.Contains(names, want) {
			t.Errorf("the scan did not find %s hands its arguments to git; found %v", want, names)
		}
	}
	t.Logf("judged %d git invocations; %d functions hand their arguments to git", c.invoked, len(c.runners))
	if c.invoked < 50 {
		t.Errorf("the scan judged %d git invocations; the module has more than 50", c.invoked)
	}
}

// The scan finds what it must in a fixture: each line marked "// bad"
// there, and nothing else.
func TestGitArgsScanCatchesOptionShapedArguments(t *testing.T) {
	if testing.Short() {
		t.Skip("type-checks a fixture")
	}
	// gitrepo too, where the scan learns that Git and Command start git.
	fset, pkgs := loadPackages(t, filepath.Join("testdata", "gitargs"), ".", "github.com/git-queen/git-queen/internal/gitrepo")
	_, violations := checkGitArgs(fset, pkgs)
	want := map[int]bool{}
	for _, p := range pkgs {
		for _, file := range p.Syntax {
			for _, cg := range file.Comments {
				for _, cm := range cg.List {
					if cm.Text == "// bad" {
						want[fset.Position(cm.Pos()).Line] = true
					}
				}
			}
		}
	}
	got := map[int]bool{}
	for pos, what := range violations {
		var line int
		parts := strings.Split(pos, ":")
		fmt.Sscan(parts[len(parts)-2], &line)
		got[line] = true
		if !want[line] {
			t.Errorf("%s: reported, but the fixture marks it good: %s", pos, what)
		}
	}
	for line := range want {
		if !got[line] {
			t.Errorf("fixture line %d is marked bad, but the scan did not report it", line)
		}
	}
	if len(want) < 8 {
		t.Errorf("the fixture marks %d bad lines; it should exercise every rule", len(want))
	}
}
