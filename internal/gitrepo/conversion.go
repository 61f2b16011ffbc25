package gitrepo

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"
	"time"
)

// conversionAttributes are the attributes with which git stores a file
// as other bytes than the worktree holds, and checks it out as other
// bytes than it stored (gitattributes(5), "Effects"): line ends first,
// then filters such as git-lfs's, $Id$ expansion, a working tree encoding.
var conversionAttributes = []string{"text", "eol", "crlf", "filter", "ident", "working-tree-encoding"}

// lineEndAttributes are those of conversionAttributes that only change
// line ends: on the way in, git turns CRLF into LF and nothing else.
var lineEndAttributes = map[string]bool{"text": true, "eol": true, "crlf": true}

// conversion is what git may do to a worktree file on its way into the
// index.
type conversion uint8

const (
	// convertsNothing: git stores the file's bytes as they are.
	convertsNothing conversion = iota
	// convertsLineEnds: git may store CRLF as LF, and does nothing else;
	// so the blob holds the file's bytes exactly when it is as long.
	convertsLineEnds
	// convertsOther: a filter, ident or an encoding may change anything.
	convertsOther
)

// conversionOf says what git may do to the worktree file at file
// (relative to the top, with slashes) on its way into the index:
// core.autocrlf and the text, eol and crlf attributes may change its line
// ends; a filter (git-lfs's), ident or working-tree-encoding anything.
// Where git may convert, the index's stat data vouches only that git
// made the staged blob from this file, not that the file holds the
// blob's bytes. When it cannot tell, it says convertsOther: a wrong
// answer there costs a hash of the file, a wrong convertsNothing judges
// bytes no commit holds.
func (r *Repo) conversionOf(file string) conversion {
	values, err := attributesOf(r.TopLevel, file, true, conversionAttributes)
	if err != nil {
		return convertsOther
	}
	found := convertsNothing
	for name, v := range values {
		switch {
		case !AttributeSet(v):
		case lineEndAttributes[name]:
			found = max(found, convertsLineEnds)
		default:
			return convertsOther
		}
	}
	if v, ok := r.ReadConfig().Get("core.autocrlf"); ok && (isTrue(v) || strings.EqualFold(v, "input")) {
		found = max(found, convertsLineEnds)
	}
	return found
}

// attributesSettled says whether every attribute file git reads for file
// (info/attributes, each .gitattributes from the file's directory up to
// the top, the global and the system file) was last modified before at:
// the time the index entry of file records as its status change, which
// came before git read the attributes to stage it. Then what the files say
// now is what they said when git made the staged blob; a file edited
// since (a filter's attribute taken out of .gitattributes after the add)
// may not be, and the blob is hashed rather than taken for the worktree
// file. A file deleted since is not seen.
func (r *Repo) attributesSettled(file string, at time.Time) bool {
	if at.IsZero() {
		return false
	}
	files, _ := r.attributeFiles(file, r.ReadConfig())
	for _, f := range files {
		info, err := os.Stat(f.path)
		if errors.Is(err, os.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
			continue
		}
		if err != nil || !info.ModTime().Before(at) {
			return false
		}
	}
	return true
}

// MergeAndFilterOf is what git's attributes give file (relative to the
// top of the worktree, with slashes) for merge and filter, as `git
// check-attr` prints them ("unspecified", "set", "unset" or the value),
// read where dir is: from the attribute files in process when
// attributeFrames would, else from one `git check-attr`. They say
// which merge driver git runs for the file, and whether it stores it
// through a filter (git-lfs's).
func MergeAndFilterOf(dir, file string) (merge, filter string, err error) {
	values, err := attributesOf(dir, file, false, []string{"merge", "filter"})
	return values["merge"], values["filter"], err
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
