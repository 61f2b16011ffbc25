package commands

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-queen/git-queen/internal/testgit"
)

var updateGolden = flag.Bool("update", false, "rewrite the golden files in testdata/hookcalls")

// TestHookCallGolden reads each runtime's documented hook inputs in
// testdata/hookcalls/RUNTIME/*.json and compares what the guard takes from
// them (the tool, its cwd, the paths it would change, or why the input
// cannot be checked) with the .golden file beside each.
func TestHookCallGolden(t *testing.T) {
	for _, rt := range hookRuntimes {
		inputs, err := filepath.Glob(filepath.Join("testdata", "hookcalls", rt.Name, "*.json"))
		if err != nil {
			t.Fatal(err)
		}
		if len(inputs) == 0 {
			t.Fatalf("no inputs for %s in testdata/hookcalls/%s", rt.Name, rt.Name)
		}
		for _, in := range inputs {
			t.Run(rt.Name+"/"+strings.TrimSuffix(filepath.Base(in), ".json"), func(t *testing.T) {
				input, err := os.ReadFile(in)
				if err != nil {
					t.Fatal(err)
				}
				got := describeCall(rt.Read(input))
				golden := strings.TrimSuffix(in, ".json") + ".golden"
				if *updateGolden {
					if err := os.WriteFile(golden, got, 0o644); err != nil {
						t.Fatal(err)
					}
					return
				}
				want, err := os.ReadFile(golden)
				if err != nil {
					t.Fatalf("%v (run go test -run TestHookCallGolden -update to write it)", err)
				}
				if !bytes.Equal(got, want) {
					t.Errorf("%s:\ngot  %s\nwant %s", in, got, want)
				}
			})
		}
	}
}

func describeCall(call toolCall, err error) []byte {
	if err != nil {
		return []byte("error: " + err.Error() + "\n")
	}
	if call.Paths == nil {
		call.Paths = []string{}
	}
	b, _ := json.Marshal(call)
	return append(b, '\n')
}

func TestPatchPaths(t *testing.T) {
	tests := []struct {
		name, patch string
		want        []string
		wantErr     string
	}{
		{name: "add update delete", patch: "*** Begin Patch\n*** Add File: a\n+x\n*** Update File: b\n@@\n-1\n+2\n*** Delete File: c\n*** End Patch",
			want: []string{"a", "b", "c"}},
		{name: "move changes both ends", patch: "*** Begin Patch\n*** Update File: from.go\n*** Move to: to/here.go\n@@\n-a\n+b\n*** End Patch",
			want: []string{"from.go", "to/here.go"}},
		{name: "content that looks like a header is content",
			patch: "*** Begin Patch\n*** Add File: doc.md\n+*** Delete File: precious.go\n*** Update File: x.go\n  *** Add File: y.go\n-*** Move to: z.go\n*** End Patch",
			want:  []string{"doc.md", "x.go"}},
		{name: "each path once", patch: "*** Begin Patch\n*** Update File: a\n@@\n-1\n+2\n*** Update File: a\n@@\n-3\n+4\n*** End Patch",
			want: []string{"a"}},
		{name: "end of file marker stays in its hunk", patch: "*** Begin Patch\n*** Update File: a\n@@\n+x\n*** End of File\n*** Delete File: b\n*** End Patch",
			want: []string{"a", "b"}},
		{name: "names with spaces and unicode", patch: "*** Begin Patch\n*** Add File: dir with space/café.go\n+x\n*** End Patch",
			want: []string{"dir with space/café.go"}},
		{name: "heredoc around it", patch: "<<\"EOF\"\n*** Begin Patch\n*** Delete File: a\n*** End Patch\nEOF", want: []string{"a"}},
		{name: "empty patch changes nothing", patch: "*** Begin Patch\n*** End Patch", want: nil},
		{name: "no begin", patch: "*** Update File: a\n*** End Patch", wantErr: `does not begin with "*** Begin Patch"`},
		{name: "no end", patch: "*** Begin Patch\n*** Delete File: a", wantErr: `does not end with "*** End Patch"`},
		{name: "unknown section", patch: "*** Begin Patch\n*** Copy File: a\n*** End Patch", wantErr: "is not a section header"},
		{name: "a stray line after an added file", patch: "*** Begin Patch\n*** Add File: a\n+x\nstray\n*** End Patch", wantErr: "is not a section header"},
		{name: "a section with no file", patch: "*** Begin Patch\n*** Add File:  \n+x\n*** End Patch", wantErr: "names no file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := patchPaths(tt.patch)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("patchPaths: %v, %v; want an error with %q", got, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if strings.Join(got, "|") != strings.Join(tt.want, "|") {
				t.Errorf("patchPaths = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestPatchPathsHuge reads a patch of a million lines without trouble: the
// guard's cost is the size of its input.
func TestPatchPathsHuge(t *testing.T) {
	var b strings.Builder
	b.WriteString("*** Begin Patch\n*** Add File: big.txt\n")
	for range 1_000_000 {
		b.WriteString("+*** Delete File: not/this.go\n")
	}
	b.WriteString("*** Delete File: gone.go\n*** End Patch\n")
	got, err := patchPaths(b.String())
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(got, "|") != "big.txt|gone.go" {
		t.Errorf("patchPaths = %q", got)
	}
}

func TestFindHookRuntime(t *testing.T) {
	for _, name := range []string{"claude", "codex", "gemini", "cursor"} {
		if rt, err := findHookRuntime(name); err != nil || rt.Name != name {
			t.Errorf("findHookRuntime(%q) = %q, %v", name, rt.Name, err)
		}
	}
	_, err := findHookRuntime("Claude")
	if err == nil || !strings.Contains(err.Error(), "the runtimes are claude, codex, gemini, cursor") {
		t.Errorf("findHookRuntime(Claude): %v; want a usage error listing the runtimes", err)
	}
}

// What git-queen prints as JSON without --json (st show --format json, st
// plan, Cursor's refusal) is JSON whatever the text holds: written through
// the human output's escaping, a DEL or a tag character became \x7f or
// \U000e0041, which JSON has no escape for, and the reader got nothing it
// could parse (Cursor no deny).
func TestJSONWithoutTheFlagIsJSON(t *testing.T) {
	texts := []string{"a\x7f.go", "a\U000E0041.go", "\u202e.go\x1b[2J"}
	for _, text := range texts {
		var out strings.Builder
		r := refusal{Summary: text, Reason: text + "\n"}
		_ = cursorRuntime.Refuse(safeWriter{&out}, safeWriter{&out}, r)
		var got cursorAnswer
		if err := json.Unmarshal([]byte(out.String()), &got); err != nil || got.AgentMessage != r.Reason {
			t.Errorf("Cursor's refusal of %q: %v; Cursor got\n%s", text, err, out.String())
		}
	}
	testgit.Isolate(t)
	repo := testgit.Init(t)
	plan := filepath.Join(repo, "plan.jsonl")
	env := map[string]string{"QUEEN_DROID": "ann"}
	if r := runIn(t, repo, env, "st", "init", plan); r.Code != 0 {
		t.Fatalf("st init: %+v", r)
	}
	for _, text := range texts {
		if r := runIn(t, repo, env, "st", "add", plan, text); r.Code != 0 {
			t.Fatalf("st add %q: %+v", text, r)
		}
	}
	for _, args := range [][]string{{"st", "show", "--format", "json", plan}, {"st", "plan", plan}} {
		r := runIn(t, repo, env, args...)
		if !json.Valid([]byte(r.Stdout)) || r.Code != 0 || !strings.Contains(r.Stdout, `\u001b[2J`) {
			t.Errorf("%s: %+v; want JSON holding every step", strings.Join(args, " "), r)
		}
	}
}
