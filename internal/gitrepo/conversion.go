package gitrepo

import (
	"fmt"
	"strings"
)

// conversionAttributes are the attributes with which git stores a file
// as other bytes than the worktree holds, and checks it out as other
// bytes than it stored (gitattributes(5), "Effects": line ends, filters
// such as git-lfs's, $Id$ expansion, a working tree encoding).
var conversionAttributes = []string{"text", "eol", "crlf", "filter", "ident", "working-tree-encoding"}

// mayConvert reports whether git may store the worktree file at file
// (relative to the top, with slashes) as other bytes than the file holds:
// core.autocrlf is on, or one of conversionAttributes applies to it. Then
// the index's stat data vouches only that git converted this file, not
// that the file holds the blob's bytes. When it cannot tell, it says yes:
// a wrong yes costs a hash of the file, a wrong no judges bytes no commit
// holds.
func (r *Repo) mayConvert(file string) bool {
	if v, ok := r.ReadConfig().Get("core.autocrlf"); ok && isTrue(v) || ok && strings.EqualFold(v, "input") {
		return true
	}
	values, err := attributesOf(r.TopLevel, file, true, conversionAttributes)
	if err != nil {
		return true
	}
	for _, v := range values {
		if AttributeSet(v) {
			return true
		}
	}
	return false
}

// MergeAndFilterOf is what git's attributes give file (relative to the
// top of the worktree, with slashes) for merge and filter, as `git
// check-attr` prints them ("unspecified", "set", "unset" or the value),
// read where dir is: from the attribute files in process when
// attributeInProcess would, else from one `git check-attr`. They say
// which merge driver git runs for the file, and whether it stores it
// through a filter (git-lfs's).
func MergeAndFilterOf(dir, file string) (merge, filter string, err error) {
	values, err := attributesOf(dir, file, false, []string{"merge", "filter"})
	if err != nil {
		return "", "", err
	}
	return values["merge"], values["filter"], nil
}

// attributesOf is what git's attributes give file for each of names (see
// MergeAndFilterOf); anyIndex reads in process under the GIT_INDEX_FILE a
// hook sees (see attributeFrames).
func attributesOf(dir, file string, anyIndex bool, names []string) (map[string]string, error) {
	if frames, ok := attributeFrames(dir, file, anyIndex); ok {
		values := map[string]string{}
		for _, name := range names {
			v, sure := decide(frames, name, file)
			if !sure {
				break
			}
			values[name] = v
		}
		if len(values) == len(names) {
			return values, nil
		}
	}
	out, err := Git(dir, append(append([]string{"check-attr", "-z"}, names...), "--", file)...)
	if err != nil {
		return nil, err
	}
	// -z output: path NUL attribute NUL value NUL, per attribute.
	parts := strings.Split(out, "\x00")
	values := map[string]string{}
	for i := 0; i+2 < len(parts); i += 3 {
		values[parts[i+1]] = parts[i+2]
	}
	for _, name := range names {
		if _, ok := values[name]; !ok {
			return nil, fmt.Errorf("git check-attr gave no %s for %s", name, file)
		}
	}
	return values, nil
}

// AttributeSet says whether an attribute's state, as check-attr prints
// it, is set or set to a value (text=auto among them): neither
// unspecified nor unset.
func AttributeSet(state string) bool { return state != "unspecified" && state != "unset" }
