package object

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Signature is who wrote a commit, and when.
type Signature struct {
	Name, Email string
	When        time.Time
}

// String is "NAME <EMAIL> UNIX-SECONDS ZONE", as a commit holds it, the
// name and email without the characters that would end them early.
func (s Signature) String() string {
	return fmt.Sprintf("%s <%s> %d %s", nameCleaner.Replace(s.Name), emailCleaner.Replace(s.Email), s.When.Unix(), s.When.Format("-0700"))
}

// Commit is what git-queen reads of a commit and writes in one.
type Commit struct {
	Tree    ID
	Parents []ID
	// Committer is who wrote the commit; the author git-queen writes is
	// the same.
	Committer Signature
	Message   string
}

// MaxParents bounds the parents of a commit DecodeCommit accepts (it
// refuses a commit of more than MaxParents+1, as the ledger always has):
// git-queen writes one, or two for a merge, or a few when it sets a
// damaged commit aside and merges that commit's parents instead.
const MaxParents = 16

// DecodeCommit reads a commit's tree, parents and committer: "tree ID",
// then "parent ID" lines, then the rest of the header up to the blank
// line before the message (which is not read). A "parent" line further
// down is no parent, to git as here: git neither sends nor checks the
// commit it names, which a walk that followed it found missing. A header that does not
// start so, or names too many parents, is a *MalformedError. A
// committer line that does not parse leaves Committer zero.
func DecodeCommit(data []byte) (Commit, error) {
	var c Commit
	header, _, _ := bytes.Cut(data, []byte("\n\n"))
	for i, line := range strings.Split(string(header), "\n") {
		key, value, _ := strings.Cut(line, " ")
		id, isID := ParseHex(value)
		switch {
		case i == 0:
			if key != "tree" || !isID {
				return c, errNotACommit
			}
			c.Tree = id
		case key == "parent" && len(c.Parents) == i-1: // as git, only those right after the tree
			if !isID || len(c.Parents) > MaxParents {
				return c, errNotACommit
			}
			c.Parents = append(c.Parents, id)
		case key == "committer":
			c.Committer = parseSignature(value)
		}
	}
	if c.Tree.IsZero() {
		return c, errNotACommit
	}
	return c, nil
}

var errNotACommit = &MalformedError{"commit", "the commit's header is not one git writes (tree, parents, author, committer)"}

var (
	nameCleaner  = strings.NewReplacer("<", "", ">", "", "\n", " ")
	emailCleaner = strings.NewReplacer("<", "", ">", "", "\n", "")
)

// parseSignature reads "NAME <EMAIL> UNIX-SECONDS ZONE"; what does not
// parse stays zero.
func parseSignature(v string) Signature {
	var sig Signature
	lt, gt := strings.IndexByte(v, '<'), strings.LastIndexByte(v, '>')
	if lt < 0 || gt < lt {
		return sig
	}
	sig.Name, sig.Email = strings.TrimSpace(v[:lt]), v[lt+1:gt]
	if fields := strings.Fields(v[gt+1:]); len(fields) > 0 {
		if secs, err := strconv.ParseInt(fields[0], 10, 64); err == nil {
			sig.When = time.Unix(secs, 0).UTC()
		}
	}
	return sig
}

// Encode is the commit's bytes: its tree, parents, the committer as author
// and committer, and the message with one final newline.
func (c *Commit) Encode() []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "tree %s\n", c.Tree)
	for _, p := range c.Parents {
		fmt.Fprintf(&b, "parent %s\n", p)
	}
	fmt.Fprintf(&b, "author %s\ncommitter %s\n\n%s\n", c.Committer, c.Committer, strings.TrimRight(c.Message, "\n"))
	return b.Bytes()
}
