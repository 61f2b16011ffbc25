package schema

import (
	"encoding/json"
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/git-queen/git-queen/internal/base/jsonline"
	"golang.org/x/tools/txtar"
)

// fixtureDir holds one txtar archive per format: valid/ files that must
// pass, invalid/ files that each break one rule, and a .want file beside
// each invalid one listing the problems expected ("LINE FIELD RULE").
var fixtureDir = filepath.Join("testdata", "conformance")

type fixture struct {
	format, name string
	data         []byte
	want         []string // nil for valid fixtures
}

func loadFixtures(t *testing.T) []fixture {
	t.Helper()
	archives, err := filepath.Glob(filepath.Join(fixtureDir, "*.txtar"))
	if err != nil || len(archives) == 0 {
		t.Fatalf("no fixtures in %s: %v", fixtureDir, err)
	}
	var out []fixture
	covered := map[string]bool{}
	for _, a := range archives {
		format := strings.TrimSuffix(filepath.Base(a), ".txtar")
		if _, ok := Lookup(format); !ok {
			t.Fatalf("%s: no format %q", a, format)
		}
		covered[format] = true
		ar, err := txtar.ParseFile(a)
		if err != nil {
			t.Fatal(err)
		}
		wants := map[string][]string{}
		for _, f := range ar.Files {
			if strings.HasSuffix(f.Name, ".want") {
				wants[f.Name] = strings.Split(strings.TrimSpace(string(f.Data)), "\n")
			}
		}
		used := map[string]bool{}
		for _, f := range ar.Files {
			if strings.HasSuffix(f.Name, ".want") {
				continue
			}
			fx := fixture{format: format, name: f.Name, data: f.Data}
			if strings.Contains(f.Name, "no-final-newline") {
				fx.data = []byte(strings.TrimSuffix(string(fx.data), "\n"))
			}
			switch {
			case strings.HasPrefix(f.Name, "valid/"):
			case strings.HasPrefix(f.Name, "invalid/"):
				w := wantName(f.Name)
				if _, ok := wants[w]; !ok {
					t.Fatalf("%s: invalid fixture %s has no %s", a, f.Name, w)
				}
				fx.want, used[w] = wants[w], true
			default:
				t.Fatalf("%s: fixture %s is neither valid/ nor invalid/", a, f.Name)
			}
			out = append(out, fx)
		}
		for w := range wants {
			if !used[w] {
				t.Fatalf("%s: %s belongs to no fixture", a, w)
			}
		}
	}
	for _, f := range formats {
		if !covered[f.Name] {
			t.Errorf("format %s has no fixtures in %s", f.Name, fixtureDir)
		}
	}
	return out
}

// wantName is the expectation file of a fixture: its name with the
// extension replaced by .want (a name that is all extension keeps it).
func wantName(name string) string {
	base := path.Base(name)
	if ext := path.Ext(base); ext != "" && ext != base {
		return strings.TrimSuffix(name, ext) + ".want"
	}
	return name + ".want"
}

func problemKeys(probs []Problem) []string {
	var out []string
	for _, p := range probs {
		field := p.Field
		if field == "" {
			field = "-"
		}
		out = append(out, fmt.Sprintf("%d %s %s", p.Line, field, p.Rule))
	}
	slices.Sort(out)
	return out
}

// TestFixtures checks that every valid fixture passes and that each invalid
// one reports exactly the problems its .want file names.
func TestFixtures(t *testing.T) {
	for _, fx := range loadFixtures(t) {
		t.Run(fx.format+"/"+fx.name, func(t *testing.T) {
			res := ValidateFile(fx.name, fx.data, Options{Format: fx.format, Limit: -1})
			got := problemKeys(res.Problems)
			want := slices.Clone(fx.want)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("problems %q, want %q\n%s", got, want, describeProblems(res.Problems))
			}
			for _, p := range res.Problems {
				if p.Path != fx.name || p.Message == "" || p.Line < 1 {
					t.Errorf("problem without path, line or message: %+v", p)
				}
			}
		})
	}
}

func describeProblems(probs []Problem) string {
	var b strings.Builder
	for _, p := range probs {
		b.WriteString("\t" + p.String() + "\n")
	}
	return b.String()
}

// TestConformance runs every fixture record through git-queen's validator
// and through the JSON Schema library alone, and checks that they agree:
// the same fields fail, and each rule git-queen reports there is a keyword
// the schema also failed. Rules only git-queen checks (Rules) are left out.
func TestConformance(t *testing.T) {
	for _, fx := range loadFixtures(t) {
		f, _ := Lookup(fx.format)
		if f.Schema == "" {
			continue
		}
		res := ValidateFile(fx.name, fx.data, Options{Format: fx.format, Limit: -1})
		for _, rec := range fixtureRecords(t, f, fx.data) {
			var goProbs []Problem
			for _, p := range res.Problems {
				if f.Kind != JSONL || p.Line == rec.line {
					goProbs = append(goProbs, p)
				}
			}
			if msg := agree(t, f, rec.doc, goProbs); msg != "" {
				t.Errorf("%s %s line %d: %s", fx.format, fx.name, rec.line, msg)
			}
		}
	}
}

type record struct {
	line int
	doc  any
}

// fixtureRecords decodes the records of a fixture that are JSON (or TOML, or
// text) at all; the others have nothing to compare.
func fixtureRecords(t *testing.T, f *Format, data []byte) []record {
	switch f.Kind {
	case JSONL:
		var out []record
		for l := range jsonline.Lines(data) {
			if l.Blank() || jsonline.IsConflictMarker(l.Raw) || jsonline.Valid(l.Raw) != nil {
				continue
			}
			doc, err := decodeJSON(l.Raw)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, record{l.No, doc})
		}
		return out
	case Text:
		return []record{{1, TextContent(data)}}
	}
	c := &checker{limit: 1 << 30}
	if validateDocument(c, f, "x", data); len(c.probs) > 0 && (c.probs[0].Rule == RuleJSON || c.probs[0].Rule == RuleConflictMarker) {
		return nil
	}
	doc, err := documentValue(f, data)
	if err != nil {
		t.Fatal(err)
	}
	return []record{{0, doc}}
}

// agree compares git-queen's problems for one record with the schema's
// failures, and says how they differ ("" when they agree).
func agree(t *testing.T, f *Format, doc any, probs []Problem) string {
	t.Helper()
	errs, err := referenceErrors(f.Schema, doc)
	if err != nil {
		t.Fatal(err)
	}
	schemaAt := map[string][]string{}
	for _, e := range errs {
		schemaAt[e.Field] = append(schemaAt[e.Field], e.Keyword)
	}
	goAt := map[string][]string{}
	for _, p := range probs {
		if _, goOnly := Rules[p.Rule]; goOnly {
			continue
		}
		goAt[p.Field] = append(goAt[p.Field], p.Rule)
		if !slices.Contains(schemaAt[p.Field], p.Rule) {
			return fmt.Sprintf("git-queen reports %s at %q, the schema reports %v there", p.Rule, p.Field, schemaAt[p.Field])
		}
	}
	for field, kws := range schemaAt {
		if len(goAt[field]) == 0 {
			return fmt.Sprintf("the schema reports %v at %q, git-queen nothing", kws, field)
		}
	}
	return ""
}

// TestConformanceMutations holds git-queen's validators (hand-written, and
// the schema interpreter) to the reference library beyond the fixtures:
// every field of every valid record of every JSONL format is removed, and
// replaced by values of every kind and many near-misses, and both must
// agree on each result.
func TestConformanceMutations(t *testing.T) {
	values := []string{`null`, `true`, `false`, `0`, `-1`, `2`, `4`, `5`, `2.0`, `2.5`, `1e0`, `""`, `"x"`, `"@all"`, `"bob"`,
		`[]`, `{}`, `["x"]`, `"low"`, `"urgent"`, `"active"`, `"released"`, `"reassigned"`, `"expired"`,
		`"qm-01HZ1A2B3C4D5E6F7G8H9J0KMN"`, `"qa-01HZ1A2B3C4D5E6F7G8H9J0KMN"`, `"qr-01HZ1A2B3C4D5E6F7G8H9J0KMN"`,
		`"qm-01hz1a2b3c4d5e6f7g8h9j0kmn"`, `"qm-81HZ1A2B3C4D5E6F7G8H9J0KMN"`, `"qm-01HZ1A2B3C4D5E6F7G8H9J0KM"`,
		`"qm-01HZ1A2B3C4D5E6F7G8H9J0KML"`, `"qm01HZ1A2B3C4D5E6F7G8H9J0KMN"`, `"qm-"`,
		`"2026-02-09T20:00:00Z"`, `"2026-02-09T20:00:00.123456789Z"`, `"2026-02-09T20:00:00+00:00"`,
		`"2026-02-09T20:00:00z"`, `"2026-02-09t20:00:00Z"`, `"2026-02-30T20:00:00Z"`, `"2024-02-29T20:00:00Z"`,
		`"2026-02-29T20:00:00Z"`, `"2026-13-01T00:00:00Z"`, `"2026-00-01T00:00:00Z"`, `"2026-02-09T24:00:00Z"`,
		`"2026-02-09T23:60:00Z"`, `"2026-02-09T23:59:60Z"`, `"2026-02-09T23:59:61Z"`, `"2026-02-09T20:00:00.Z"`,
		`"2026-02-09 20:00:00Z"`, `"2026-2-9T20:00:00Z"`, `"yesterday"`, `"\u0040all"`, `"caf\u00e9"`,
		`"` + strings.Repeat("é", 100) + `"`, `"` + strings.Repeat("x", 101) + `"`,
		`99999999999999999999`, `-99999999999999999999`, `1e20`, `-1e20`}
	n := 0
	for _, fx := range loadFixtures(t) {
		f, _ := Lookup(fx.format)
		if f.Kind != JSONL || f.Schema == "" || fx.want != nil {
			continue
		}
		for l := range jsonline.Lines(fx.data) {
			var obj map[string]json.RawMessage
			if l.Blank() || json.Unmarshal(l.Raw, &obj) != nil {
				continue
			}
			for key := range obj {
				variants := []map[string]json.RawMessage{without(obj, key)}
				for _, v := range values {
					variants = append(variants, with(obj, key, v))
				}
				for _, m := range variants {
					line, _ := json.Marshal(m)
					n++
					checkAgreement(t, f, line)
				}
			}
		}
		for _, line := range []string{`[]`, `"x"`, `1`, `null`, `{}`} {
			checkAgreement(t, f, []byte(line))
		}
	}
	if n < 1000 {
		t.Fatalf("only %d mutations were tried", n)
	}
}

func checkAgreement(t *testing.T, f *Format, line []byte) {
	t.Helper()
	res := Validate(f, "m.jsonl", append(line, '\n'), Options{Limit: -1})
	doc, err := decodeJSON(line)
	if err != nil {
		t.Fatal(err)
	}
	if msg := agree(t, f, doc, res.Problems); msg != "" {
		t.Errorf("%s: %s\n%s", f.Name, msg, line)
	}
}

func without(m map[string]json.RawMessage, key string) map[string]json.RawMessage {
	out := make(map[string]json.RawMessage, len(m))
	for k, v := range m {
		if k != key {
			out[k] = v
		}
	}
	return out
}

func with(m map[string]json.RawMessage, key, raw string) map[string]json.RawMessage {
	out := without(m, key)
	out[key] = json.RawMessage(raw)
	return out
}
