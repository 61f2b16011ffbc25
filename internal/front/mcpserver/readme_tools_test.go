package mcpserver

import (
	"context"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/front/commands"
)

// The README's "For agent runtimes" names the MCP tools a newcomer can
// call, and the read-only ones: both lists name exactly what the server
// lists and marks, so a tool added to the server is added to them.
func TestReadmeNamesEveryTool(t *testing.T) {
	readme, err := os.ReadFile("../../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Join(strings.Fields(string(readme)), " ")
	listed := regexp.MustCompile(`Model Context Protocol tools over stdio \(([^)]*)\)`).FindStringSubmatch(text)
	readOnly := regexp.MustCompile("`openWorldHint`\\): ([a-z, ]*) only read;").FindStringSubmatch(text)
	if listed == nil || readOnly == nil {
		t.Fatal("README: the MCP paragraph's list of tools, or of the read-only ones, is not where this test looks")
	}

	env := commands.OSEnv()
	env.Dir = t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	tools, err := connect(t, ctx, New(env, "ann", ""), nil).ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var all, ro []string
	for _, tool := range tools.Tools {
		all = append(all, tool.Name)
		if tool.Annotations != nil && tool.Annotations.ReadOnlyHint {
			ro = append(ro, tool.Name)
		}
	}
	names := func(s string) []string {
		out := strings.FieldsFunc(strings.ReplaceAll(s, " and ", ","), func(r rune) bool { return r == ',' || r == ' ' })
		slices.Sort(out)
		return out
	}
	slices.Sort(all)
	slices.Sort(ro)
	if got := names(listed[1]); !slices.Equal(got, all) {
		t.Errorf("README lists the tools %v; the server lists %v", got, all)
	}
	if got := names(readOnly[1]); !slices.Equal(got, ro) {
		t.Errorf("README says %v only read; the server marks %v read-only", got, ro)
	}
}
