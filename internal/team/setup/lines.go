// Package setup is what `git queen init`, `git queen hooks` and `git queen
// doctor` do to a repository: the live store in git's common directory (and
// the import of an older setup's tracked logs into it), the remote it is
// shared through, the merge=queen lines in .gitattributes, the merge driver
// in the git config, the pre-commit hook, and the droid identity of a
// worktree.
//
// Every piece is a Check: it says whether the repository is as git-queen
// needs it ("should be X but is Y") and, where it can, how to make it so.
// init applies the fixes; doctor reports, and applies them with --fix. So
// the two can never disagree about what "set up" means, and running init
// twice changes nothing.
package setup

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/git-queen/git-queen/internal/base/regular"
)

// AttributesFile is the .gitattributes at the top of the worktree.
const AttributesFile = ".gitattributes"

// AttributeLines route the known logs to the merge driver. Patterns without
// a leading directory match at any depth (VerMAS nests .work/ in factories).
var AttributeLines = []string{
	".beads/*.jsonl merge=queen",
	"**/.work/*.jsonl merge=queen",
	"**/.openclaw-autopilot/events/*.jsonl merge=queen",
}

// attributesComment introduces the lines git-queen adds.
const attributesComment = "# git-queen: merge coordination logs without conflicts or duplicate lines"

// missingLines returns the wanted lines that path does not have (compared
// without surrounding whitespace, and with runs of it as one space).
func missingLines(path string, wanted []string) ([]string, error) {
	data, err := readLinesFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return wanted, nil
	}
	if err != nil {
		return nil, err
	}
	have := map[string]bool{}
	for _, l := range strings.Split(string(data), "\n") {
		have[strings.Join(strings.Fields(l), " ")] = true
	}
	return slices.DeleteFunc(slices.Clone(wanted), func(w string) bool { return have[w] }), nil
}

// appendLines adds lines to the file at path, after a comment, keeping what
// is there: its content, its line endings (CRLF if it uses them), and a
// missing final newline is supplied first.
func appendLines(path, comment string, lines []string) error {
	data, err := readLinesFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	eol := "\n"
	if bytes.Contains(data, []byte("\r\n")) {
		eol = "\r\n"
	}
	var b strings.Builder
	b.Write(data)
	if len(data) > 0 && !bytes.HasSuffix(data, []byte("\n")) {
		b.WriteString(eol)
	}
	if !slices.Contains(strings.Split(strings.ReplaceAll(string(data), "\r", ""), "\n"), comment) {
		if len(data) > 0 {
			b.WriteString(eol) // a blank line before git-queen's block
		}
		b.WriteString(comment + eol)
	}
	for _, l := range lines {
		b.WriteString(l + eol)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// maxLinesFile bounds a file init adds lines to, as git bounds the
// attribute files it reads (100 MB).
const maxLinesFile = 100 << 20

// readLinesFile reads a file of the worktree that init adds lines to
// (.gitattributes), which comes with the repository from any teammate:
// missing is fs.ErrNotExist; one that is not a regular file (a symbolic
// link committed in its place can lead to /dev/zero or to a pipe, which
// git itself does not follow) or is larger than maxLinesFile is an error
// naming it, unread.
func readLinesFile(path string) ([]byte, error) {
	data, err := regular.Read(path, maxLinesFile)
	if nr, ok := errors.AsType[*regular.NotRegularError](err); ok {
		return nil, fmt.Errorf("%v; git reads no attributes through it either: remove it (git rm a committed one) and run init again", nr)
	}
	if tooLarge(err) {
		return nil, fmt.Errorf("%s is larger than git reads (100 MB): cut it down", path)
	}
	return data, err
}

// readRepoFile reads a file the repository brings that git-queen only
// looks into (husky's script, lefthook's configuration, a file that names
// lefthook for a runner), when it is a regular file of at most
// maxLefthookConfig, as much as doctor reads of a configuration: one
// that is not (a committed symbolic link to /dev/zero or to a pipe) is an
// error, which its readers take as a file that says nothing of
// git-queen; one larger, an error tooLarge says is one, which they take
// as a file they cannot judge.
func readRepoFile(path string) ([]byte, error) { return regular.Read(path, maxLefthookConfig) }

// tooLarge says whether err is regular.Read's for a file larger than it
// reads.
func tooLarge(err error) bool {
	_, is := errors.AsType[*regular.TooLargeError](err)
	return is
}
