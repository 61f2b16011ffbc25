package records

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// spelledOutside are the string literals outside kinds.go that spell a
// name of the table, each with why it stays. Every other one fails
// TestNoFileSpellsTheStoreNames: read the name from Kinds instead.
var spelledOutside = []struct{ file, literal, why string }{
	{"internal/front/commands/assign.go", "assignments", "the `assignments` command's name and its --json key: words of the CLI, not the ledger's directory"},
	{"internal/front/commands/reservations.go", "reservations", "the `reservations` command's name and its --json key: words of the CLI"},
	{"internal/app/assign.go", "assignments", "the name of the `assignments` use case, the command and MCP tool of that name"},
	{"internal/app/list.go", "reservations", "the name of the `reservations` use case, the command and MCP tool of that name"},
	{"internal/front/mcpserver/annotations.go", "reservations", "the MCP tool named after the `reservations` command"},
	{"internal/front/mcpserver/annotations.go", "assignments", "the MCP tool named after the `assignments` command"},
	{"internal/front/mcpserver/tools.go", "reservations", "the MCP tool and the command it runs"},
	{"internal/front/mcpserver/tools.go", "assignments", "the MCP tool and the command it runs"},
	{"internal/front/mcpserver/arguments.go", "reservations", "the MCP tool whose filters are refused blank"},
	{"internal/front/mcpserver/arguments.go", "assignments", "the MCP tool whose filters are refused blank"},
	{"internal/domain/reservations/change.go", "reservations", "the word a --force refusal uses for the records it names"},
	{"internal/domain/reservations/reservations.go", "reservations", "the `reservations` command a refusal tells the reader to run"},
	{"internal/domain/assignments/bound.go", "assignments", "the `assignments` command a refusal tells the reader to run"},
	{"internal/team/setup/doublework.go", "assignments", "the name of a doctor check"},
	{"scripts/bench/genstore/main.go", "messages", "a flag's name"},
	{"scripts/bench/genstore/main.go", "reservations", "a flag's name"},
	{"scripts/bench/ledgergen/main.go", "messages", "a flag's name"},
	{"scripts/bench/ledgergen/main.go", "reservations", "a flag's name"},
	{"scripts/bench/ledgergen/main.go", "assignments", "a flag's name"},
	{"scripts/bench/mergegen/main.go", "messages", "a value of its -kind flag"},
	{"scripts/bench/seedpeer/main.go", "queen_messages.jsonl", "the seed's own QueenBee, the benchmarks' peer: it shares no code with git-queen"},
	{"scripts/bench/seedpeer/main.go", "queen_reservations.jsonl", "the seed's own QueenBee, the benchmarks' peer"},
}

// TestNoFileSpellsTheStoreNames walks every Go file of the module but
// tests and this table, and fails on a string literal that spells a log's
// file name (or its stem, as queen_messages), or a kind's name or ledger
// directory as a path segment, unless spelledOutside allows it. So a new
// kind is one row of Kinds, and a renamed one cannot leave a list behind.
func TestNoFileSpellsTheStoreNames(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", "..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("the module's root %s has no go.mod: %v", root, err)
	}
	allowed := map[[2]string]bool{}
	used := map[[2]string]bool{}
	for _, a := range spelledOutside {
		allowed[[2]string{a.file, a.literal}] = true
	}
	files := 0
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel := filepath.ToSlash(strings.TrimPrefix(p, root+string(filepath.Separator)))
		if d.IsDir() {
			if p != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "vendor") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") || rel == "internal/format/records/kinds.go" {
			return nil
		}
		files++
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if _, ok := n.(*ast.ImportSpec); ok {
				return false // package paths (internal/domain/messages...)
			}
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			s, err := strconv.Unquote(lit.Value)
			if err != nil {
				return true
			}
			if what := spelledName(s); what != "" {
				key := [2]string{rel, s}
				if allowed[key] {
					used[key] = true
				} else {
					t.Errorf("%s: %s spells %s; read it from records.Kinds (or, if it must stay, add it to spelledOutside with the reason)",
						fset.Position(lit.Pos()), abbreviate(s), what)
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 100 {
		t.Fatalf("walked only %d Go files under %s: is that the module?", files, root)
	}
	for _, a := range spelledOutside {
		if !used[[2]string{a.file, a.literal}] {
			t.Errorf("spelledOutside allows %q in %s, which no longer spells it: remove the entry", a.literal, a.file)
		}
	}
}

// spelledName says which name of the table s spells, or "".
func spelledName(s string) string {
	segments := strings.FieldsFunc(s, func(r rune) bool { return r == '/' || r == '\\' || r == ':' })
	for _, k := range Kinds {
		if strings.Contains(s, strings.TrimSuffix(k.File, ".jsonl")) {
			return "the log file " + k.File
		}
		if slices.Contains(segments, k.LedgerDir) || slices.Contains(segments, k.Name) {
			return "the kind " + k.Name + " (its name or ledger directory)"
		}
	}
	return ""
}

func abbreviate(s string) string {
	if len(s) > 60 {
		s = s[:60] + "..."
	}
	return strconv.Quote(s)
}
