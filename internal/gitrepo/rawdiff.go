package gitrepo

import (
	"fmt"
	"strings"
)

// Every path the hooks judge comes from git as git stores it: NUL-ended
// raw output (-z --raw), never the quoted names of its line formats, which
// a path with a non-ASCII letter, a '"', a tab or a newline would get
// (core.quotePath changes only the first). Submodules are judged by their
// path like files: --ignore-submodules=none keeps diff.ignoreSubmodules and
// a .gitmodules "ignore = all" from hiding a gitlink that moved.

// RawEntry is one record of git's raw diff format: a path, and the object
// ids of its sides (the parents' first, the result's last; "" where the
// side has no object there).
type RawEntry struct {
	Path string
	IDs  []string
}

// parseRawEntry reads a record's meta token (":mode... id... STATUS", with
// one colon per parent) and its path.
func parseRawEntry(meta, path string) (RawEntry, error) {
	parents := len(meta) - len(strings.TrimLeft(meta, ":"))
	f := strings.Fields(meta[parents:])
	// parents+1 modes, parents+1 ids, the status.
	if parents == 0 || len(f) != 2*(parents+1)+1 {
		return RawEntry{}, fmt.Errorf("git diff: unexpected record %q", meta)
	}
	e := RawEntry{Path: path}
	for _, id := range f[parents+1 : 2*(parents+1)] {
		e.IDs = append(e.IDs, nonZeroID(id))
	}
	return e, nil
}

// parseDiffTree reads `git diff-tree --stdin -c --root` in rawDiffOptions:
// each commit's id (a token of its own), then its records, one ":meta"
// token and one path token each. It returns the paths each of commits
// changes. A path cannot pass for a commit: it always follows a record's
// meta token.
func parseDiffTree(out string, commits map[string]bool) (map[string][]string, error) {
	paths := map[string][]string{}
	tokens := strings.Split(out, "\x00")
	current := ""
	for i := 0; i < len(tokens); i++ {
		tok := tokens[i]
		switch {
		case tok == "" && i == len(tokens)-1:
			// the last record's terminator
		case strings.HasPrefix(tok, ":"):
			if current == "" || i+1 >= len(tokens) {
				return nil, fmt.Errorf("git diff-tree: a record %q outside a commit", tok)
			}
			if _, err := parseRawEntry(tok, tokens[i+1]); err != nil {
				return nil, err
			}
			paths[current] = append(paths[current], tokens[i+1])
			i++
		case commits[tok]:
			current = tok
		default:
			return nil, fmt.Errorf("git diff-tree: unexpected output %q", tok)
		}
	}
	return paths, nil
}

// parseDiffIndex reads `git diff-index --cached` in rawDiffOptions: the paths
// where the index differs from the tree, with the tree's object (IDs[0])
// and the index's (IDs[1]).
func parseDiffIndex(out string) ([]RawEntry, error) {
	tokens := strings.Split(strings.TrimSuffix(out, "\x00"), "\x00")
	var entries []RawEntry
	for i := 0; i+1 < len(tokens); i += 2 {
		if !strings.HasPrefix(tokens[i], ":") {
			return nil, fmt.Errorf("git diff-index: unexpected output %q", tokens[i])
		}
		e, err := parseRawEntry(tokens[i], tokens[i+1])
		if err != nil {
			return nil, err
		}
		entries = append(entries, e)
	}
	if len(tokens)%2 != 0 && tokens[len(tokens)-1] != "" {
		return nil, fmt.Errorf("git diff-index: a record without its path: %q", tokens[len(tokens)-1])
	}
	return entries, nil
}
