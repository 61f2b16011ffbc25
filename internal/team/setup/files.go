package setup

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/git-queen/git-queen/internal/gitrepo"
)

// DriverCommand is the merge driver git-queen registers: git substitutes
// the base, ours, theirs, the marker size and the path.
const DriverCommand = "git-queen merge-driver %O %A %B %L %P"

// DriverName is the driver's description in the git config.
const DriverName = "git-queen JSONL merge (union of appends, no duplicates)"

func (r *Repo) checkOnPath() Check {
	if p, err := r.LookPath("git-queen"); err == nil {
		return ok("path", "git-queen is on PATH (%s)", p)
	}
	return Check{Name: "path", Status: Fail, Message: "git-queen is not on PATH, so git cannot run the merge driver or the hooks; " +
		"install it and its MCP server, and put $(go env GOPATH)/bin on PATH:\n" +
		"    go install -tags urfave_cli_no_docs github.com/git-queen/git-queen/cmd/git-queen@latest github.com/git-queen/git-queen/cmd/git-queen-mcp@latest"}
}

func (r *Repo) checkAttributes() Check {
	path := filepath.Join(r.TopLevel, AttributesFile)
	c := r.linesCheck("gitattributes", path, AttributeLines, attributesComment)
	if c.Status == OK {
		if why := r.attributesOverridden(); why != "" {
			c.Status, c.Message = Warn, c.Message+", but "+why
		} else if r.attributesIgnored() {
			c.Status, c.Message = Warn, c.Message+", but it is ignored (.gitignore), so it is not committed and other clones merge "+
				"without its lines: git add -f "+AttributesFile+", and commit it"
		}
	}
	return c
}

// attributesIgnored says whether .gitattributes is untracked and ignored:
// `git add` refuses it, and no other clone gets git-queen's lines.
func (r *Repo) attributesIgnored() bool {
	if r.IsTracked(AttributesFile) {
		return false
	}
	ignored, err := r.IsIgnored(AttributesFile)
	return err == nil && ignored
}

// committedNotHere is the check of a file (.gitattributes) the index has
// but the worktree does not (outside a sparse checkout, or deleted): a file of
// git-queen's lines alone would replace the committed one, whose lines
// the next commit of it would drop. Its fix fails, saying how to bring the
// file back.
func (r *Repo) committedNotHere(name, path string) (Check, bool) {
	rel := filepath.ToSlash(r.shown(path))
	if _, err := os.Lstat(path); !errors.Is(err, os.ErrNotExist) || !r.IsTracked(rel) {
		return Check{}, false
	}
	msg := rel + " is committed but not in this worktree (outside the sparse checkout, or deleted), " +
		"so git-queen's lines cannot be added to it: bring it back (git sparse-checkout add /" + rel +
		", or git checkout -- " + rel + "), then git queen init"
	return Check{Name: name, Status: Fail, forInit: true, Message: msg, fix: func() error { return errors.New(msg) }}, true
}

// linesCheck checks that a file has every one of lines, and appends the
// missing ones as its fix.
func (r *Repo) linesCheck(name, path string, lines []string, comment string) Check {
	if c, notHere := r.committedNotHere(name, path); notHere {
		return c
	}
	if info, err := os.Lstat(path); err == nil && info.Mode()&os.ModeSymlink != 0 {
		// git opens .gitattributes without following links: nothing
		// written through one counts, and it would change another file.
		msg := r.shown(path) + " is a symbolic link, which git does not read (git 2.32 and later), so its lines do not count, " +
			"git-queen's included; replace the link with the file it points to, then git queen init"
		return Check{Name: name, Status: Fail, forInit: true, Message: msg, fix: func() error { return errors.New(msg) }}
	}
	missing, err := missingLines(path, lines)
	if err != nil {
		return Check{Name: name, Status: Fail, Message: fmt.Sprintf("cannot read %s: %v", r.shown(path), err)}
	}
	if len(missing) == 0 {
		return ok(name, "%s has git-queen's lines", r.shown(path))
	}
	return Check{Name: name, Status: Fail, Fixable: true, forInit: true,
		Message: fmt.Sprintf("%s lacks %s: %s", r.shown(path), plural(len(missing), "line", "lines"), strings.Join(missing, " | ")),
		fix:     func() error { return appendLines(path, comment, missing) }}
}

// checkDriver checks merge.queen.driver. It says so in particular when the
// attributes name the driver but the config lacks it (a fresh clone): git
// then falls back to a text merge without a word.
func (r *Repo) checkDriver() Check {
	driver, name := r.setting("merge.queen.driver"), r.setting("merge.queen.name")
	fix := func() error {
		if err := r.SetConfig(gitrepo.ScopeLocal, "merge.queen.name", DriverName); err != nil {
			return err
		}
		return r.SetConfig(gitrepo.ScopeLocal, "merge.queen.driver", DriverCommand)
	}
	switch {
	case driver == "":
		msg := "the merge driver is not registered (merge.queen.driver is unset)"
		if r.attributesNameDriver() {
			msg += "; .gitattributes says merge=queen, so git will fall back to a text merge and conflict on every concurrent append (a fresh clone?)"
		}
		return Check{Name: "driver", Status: Fail, Message: msg, Fixable: true, forInit: true, fix: fix}
	case driver != DriverCommand:
		prog := strings.Fields(driver)[0]
		if _, err := r.LookPath(prog); err != nil {
			return Check{Name: "driver", Status: Fail, Fixable: true, forInit: true, fix: fix,
				Message: fmt.Sprintf("merge.queen.driver should be %q but is %q, and %s is not a program git can run", DriverCommand, driver, prog)}
		}
		return Check{Name: "driver", Status: Warn, Fixable: true, fix: fix,
			Message: fmt.Sprintf("merge.queen.driver is %q, not the usual %q", driver, DriverCommand)}
	case name == "":
		return Check{Name: "driver", Status: Warn, Fixable: true, forInit: true, fix: fix, Message: "merge.queen.name is unset"}
	}
	return ok("driver", "merge.queen.driver is %q", DriverCommand)
}

func (r *Repo) attributesNameDriver() bool {
	data, err := readLinesFile(filepath.Join(r.TopLevel, AttributesFile))
	return err == nil && strings.Contains(string(data), "merge=queen")
}
