package setup

import (
	"path/filepath"
	"regexp"
	"strings"
	"sync"
)

// Where a YAML flow mapping or a TOML inline table starts (after a key's
// : or =, a list item's dash, or [ or , in a flow list: not a { inside a
// run's words, such as {staged_files}); and the keys in one that decide
// whether lefthook runs git-queen's command.
var (
	inlineStart    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?:[:-][ \t]+|[=\[,][ \t]*)\{`) })
	inlineDeciding = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`[{,.\s]["']?(skip|only|tags|exclude_tags)["']?\s*[:=]`)
	})
)

// lefthookInline says, for lefthook's hook h running git-queen, where a
// YAML or TOML file lefthook reads (in its order) writes part of h's
// section inline, a flow mapping or an inline table, that holds a skip,
// only, tags or exclude_tags key or git-queen's command: lefthook reads
// it as the block form, but lefthookMerged reads blocks and tables only,
// so whether lefthook skips the check is not known. "" when there is no
// such part (JSON is read whole).
func (r *Repo) lefthookInline(h *Hook, getenv func(string) string) string {
	if h.Owner != OwnerLefthook || !h.RunsQueen {
		return ""
	}
	files, _ := lefthookFiles(r.TopLevel, getenv)
	for _, file := range files {
		text, err := readRepoFile(filepath.Join(r.TopLevel, file))
		if err != nil || strings.HasPrefix(filepath.Ext(file), ".json") {
			continue
		}
		section := uncommented(lefthookSection(file, text, h.Name))
		for _, at := range inlineStart().FindAllIndex(section, -1) {
			value := inlineValue(section[at[1]-1:])
			if inlineDeciding().Match(value) || callsQueen(value, h.Name) {
				shown, _, cut := strings.Cut(string(value), "\n")
				if cut {
					shown += " …"
				}
				return file + " writes part of " + h.Name + " inline (" + shown + "), which git-queen does not read: " +
					"it cannot judge whether a skip:, only:, tags: or exclude_tags: there makes lefthook skip git-queen's check; " +
					"write that part in block form (TOML: as tables), or check with lefthook dump"
			}
		}
	}
	return ""
}

// inlineValue is the flow mapping or inline table text starts with, to
// its closing brace (outside quotes), or to the end of text.
func inlineValue(text []byte) []byte {
	depth := 0
	var quote byte
	for i, c := range text {
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '{':
			depth++
		case c == '}':
			if depth--; depth == 0 {
				return text[:i+1]
			}
		}
	}
	return text
}
