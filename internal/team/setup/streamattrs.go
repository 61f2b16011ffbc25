package setup

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/git-queen/git-queen/internal/format/schema"
)

// checkStreamAttributes routes the st streams queen.toml names ([[format]]
// rules with format = "st") to the merge driver, as checkAttributes does for
// the seed layouts: without a line, a stream outside the known paths
// conflicts on every concurrent append. It never overrides what a user
// wrote: a line of .gitattributes that gives the same pattern a merge
// attribute of its own (merge=union, -merge) is left alone and reported.
func (r *Repo) checkStreamAttributes() Check {
	const name = "st-gitattributes"
	cfgPath := filepath.Join(r.BeadsDir, schema.ConfigFile)
	data, err := schema.ReadConfigFile(cfgPath)
	if errors.Is(err, fs.ErrNotExist) {
		return ok(name, "%s names no st streams", r.shown(cfgPath))
	}
	var cfg *schema.Config
	if err == nil {
		cfg, err = schema.ParseConfig(data)
	}
	if err != nil {
		return Check{Name: name, Status: Warn, Message: fmt.Sprintf("cannot read %s (%v), so its st streams get no .gitattributes lines; 'git queen validate' says what is wrong", r.shown(cfgPath), err)}
	}
	attrPath := filepath.Join(r.TopLevel, AttributesFile)
	userMerge, err := mergeAttributes(attrPath)
	if err != nil {
		return Check{Name: name, Status: Fail, Message: fmt.Sprintf("cannot read %s: %v", r.shown(attrPath), err)}
	}
	var wanted, notes []string
	for _, rule := range cfg.Formats {
		if rule.Format != "st" {
			continue
		}
		pattern, why := attributePattern(rule.Path)
		if why != "" {
			notes = append(notes, fmt.Sprintf("%q %s; route it to merge=queen by hand", rule.Path, why))
			continue
		}
		if line, ok := userMerge[samePattern(pattern)]; ok {
			// The user's word on this pattern stands: merge=queen (at
			// whatever depth they wrote it) needs no second line, and any
			// other merge attribute is theirs to keep.
			if line[1] != "merge=queen" {
				notes = append(notes, fmt.Sprintf("%s says %s %s, left as written", AttributesFile, line[0], line[1]))
			}
			continue
		}
		wanted = append(wanted, pattern+" merge=queen")
	}
	if len(wanted) == 0 && len(notes) == 0 {
		return ok(name, "%s names no st streams outside the known paths", r.shown(cfgPath))
	}
	c := r.linesCheck(name, attrPath, wanted, attributesComment)
	if c.Status == OK {
		c.Message = fmt.Sprintf("%s routes the st streams of %s to the merge driver", r.shown(attrPath), r.shown(cfgPath))
	}
	if len(notes) > 0 {
		c.Message += "; " + strings.Join(notes, "; ")
		if c.Status == OK {
			c.Status = Warn
		}
	}
	return c
}

// attributePattern turns a queen.toml path pattern (see schema.Rule) into
// the .gitattributes pattern that matches the same files: one anchored at
// the top keeps its leading slash; one without a slash matches at any
// depth in both; one with a slash in it matches at any depth in queen.toml
// but from the top in .gitattributes, so it gains a leading **/. It
// returns why not when .gitattributes cannot say it on one line (spaces,
// a leading ! or #, backslashes).
func attributePattern(p string) (string, string) {
	switch {
	case p == "" || strings.Trim(p, "/") == "":
		return "", "is empty"
	case strings.ContainsAny(p, " \t\r\n\\\""):
		return "", "has spaces, quotes or backslashes, which .gitattributes reads otherwise"
	case strings.HasPrefix(p, "!") || strings.HasPrefix(p, "#"):
		return "", "starts with ! or #, which .gitattributes reads as a negation or a comment"
	}
	p = strings.TrimSuffix(p, "/")
	if strings.HasPrefix(p, "/") || !strings.Contains(p, "/") || strings.HasPrefix(p, "**/") {
		return p, ""
	}
	return "**/" + p, ""
}

// samePattern is a pattern without the leading / or **/ that says where it
// matches, so that a user's "plans/*.jsonl merge=union" counts as their
// word on the stream "plans/*.jsonl" whichever depth either means.
func samePattern(p string) string {
	return strings.TrimPrefix(strings.TrimPrefix(p, "/"), "**/")
}

// mergeAttributes reads which patterns of a .gitattributes set the merge
// attribute, and how (the last line wins, as in git): by samePattern, the
// pattern as written and the attribute.
func mergeAttributes(path string) (map[string][2]string, error) {
	data, err := readLinesFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string][2]string{}, nil
	}
	if err != nil {
		return nil, err
	}
	out := map[string][2]string{}
	for _, line := range strings.Split(string(data), "\n") {
		fields := strings.Fields(line)
		if len(fields) < 2 || strings.HasPrefix(fields[0], "#") {
			continue
		}
		for _, a := range fields[1:] {
			if a == "merge" || a == "-merge" || a == "!merge" || strings.HasPrefix(a, "merge=") {
				out[samePattern(fields[0])] = [2]string{fields[0], a}
			}
		}
	}
	return out, nil
}
