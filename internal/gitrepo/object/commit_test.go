package object

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/testgit"
)

// A commit encoded here has the id git commit-tree gives the same tree,
// parents, signature and message; it decodes back.
func TestCommitEncodeMatchesGit(t *testing.T) {
	testgit.Isolate(t)
	dir := testgit.Init(t)
	tree := testgit.Run(t, dir, "rev-parse", "HEAD^{tree}")
	head := testgit.Run(t, dir, "rev-parse", "HEAD")
	testgit.Run(t, dir, "commit", "-q", "--allow-empty", "-m", "second")
	second := testgit.Run(t, dir, "rev-parse", "HEAD")
	when := time.Date(2026, 11, 3, 10, 4, 5, 0, time.FixedZone("", -(3*3600+1800)))
	treeID, _ := ParseHex(tree)
	headID, _ := ParseHex(head)
	secondID, _ := ParseHex(second)
	c := Commit{Tree: treeID, Parents: []ID{headID, secondID}, Message: "ledger: two\n\n",
		Committer: Signature{Name: "queen <ann>", Email: "ann@x", When: when}}
	t.Setenv("GIT_AUTHOR_NAME", "queen ann")
	t.Setenv("GIT_COMMITTER_NAME", "queen ann")
	for _, v := range []string{"GIT_AUTHOR_EMAIL", "GIT_COMMITTER_EMAIL"} {
		t.Setenv(v, "ann@x")
	}
	for _, v := range []string{"GIT_AUTHOR_DATE", "GIT_COMMITTER_DATE"} {
		t.Setenv(v, fmt.Sprintf("%d -0330", when.Unix()))
	}
	want := testgit.Run(t, dir, "commit-tree", "-p", head, "-p", second, "-m", "ledger: two", tree)
	if got := Hash(CommitType, c.Encode()); got.String() != want {
		t.Fatalf("encoded commit %s, git commit-tree %s:\n%s", got, want, c.Encode())
	}
	back, err := DecodeCommit(c.Encode())
	if err != nil || back.Tree != c.Tree || len(back.Parents) != 2 || back.Committer.Name != "queen ann" ||
		back.Committer.Email != "ann@x" || !back.Committer.When.Equal(when) {
		t.Fatalf("decoded %+v, %v", back, err)
	}
}

func TestDecodeCommitRefusesOtherHeaders(t *testing.T) {
	id := strings.Repeat("ab", 20)
	many := "tree " + id + "\n" + strings.Repeat("parent "+id+"\n", MaxParents+2) + "\nm\n"
	for name, data := range map[string]string{
		"garbage": "hello\n", "parent first": "parent " + id + "\ntree " + id + "\n", "short tree": "tree abc\n",
		"upper case": "tree " + strings.ToUpper(id) + "\n", "zero tree": "tree " + strings.Repeat("0", 40) + "\n",
		"bad parent": "tree " + id + "\nparent x\n", "too many parents": many, "empty": "",
	} {
		_, err := DecodeCommit([]byte(data))
		var m *MalformedError
		if !errors.As(err, &m) || err.Error() != "the commit's header is not one git writes (tree, parents, author, committer)" {
			t.Errorf("%s: %v", name, err)
		}
	}
	late := "tree " + id + "\nparent " + id + "\ncommitter nobody\nparent " + strings.Repeat("cd", 20) + "\n\nm\n"
	if c, err := DecodeCommit([]byte(late)); err != nil || len(c.Parents) != 1 || c.Parents[0].String() != id {
		t.Errorf("a parent line below the committer: %+v, %v; want the first parent alone, as git reads it", c.Parents, err)
	}
	c, err := DecodeCommit([]byte("tree " + id + "\ncommitter nobody\n\nm\n"))
	if err != nil || !c.Committer.When.IsZero() {
		t.Errorf("an unreadable committer: %+v, %v", c, err)
	}
}

// An annotated tag git writes names its object on its first line; a tag
// that does not start so is refused.
func TestTagTargetReadsGitsTag(t *testing.T) {
	testgit.Isolate(t)
	dir := testgit.Init(t)
	head := testgit.Run(t, dir, "rev-parse", "HEAD")
	testgit.Run(t, dir, "tag", "-a", "-m", "a tag", "v1")
	data := testgit.Run(t, dir, "cat-file", "tag", "v1")
	if got, err := TagTarget([]byte(data)); err != nil || got.String() != head {
		t.Errorf("TagTarget of git's tag: %s, %v; want %s", got, err, head)
	}
	for _, bad := range []string{"", "type commit\nobject " + head + "\n", "object not-an-id\n"} {
		if _, err := TagTarget([]byte(bad)); err == nil {
			t.Errorf("TagTarget(%q) read a target", bad)
		}
	}
}
