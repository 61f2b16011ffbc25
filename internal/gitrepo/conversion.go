package gitrepo

import (
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
	if frames, ok := attributeFrames(r.TopLevel, file, true); ok {
		for _, name := range conversionAttributes {
			value, sure := decide(frames, name, file)
			if !sure {
				return r.convertsByGit(file)
			}
			if converts(value) {
				return true
			}
		}
		return false
	}
	return r.convertsByGit(file)
}

// convertsByGit is mayConvert's question about attributes, put to `git
// check-attr`.
func (r *Repo) convertsByGit(file string) bool {
	out, err := Git(r.TopLevel, append(append([]string{"check-attr", "-z"}, conversionAttributes...), "--", file)...)
	if err != nil {
		return true
	}
	// -z output: path NUL attribute NUL value NUL, per attribute.
	parts := strings.Split(out, "\x00")
	for i := 2; i < len(parts); i += 3 {
		if converts(parts[i]) {
			return true
		}
	}
	return false
}

// converts says whether an attribute's state, as check-attr prints it,
// asks for a conversion: set, or set to a value (text=auto among them).
func converts(state string) bool { return state != "unspecified" && state != "unset" }
