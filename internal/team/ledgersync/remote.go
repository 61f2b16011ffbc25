package ledgersync

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode"

	"github.com/git-queen/git-queen/internal/base/redact"
	"github.com/git-queen/git-queen/internal/gitrepo"
	"github.com/git-queen/git-queen/internal/storage/ledger"
)

// Remote is what sync exchanges the ledger with, as ResolveRemote checked
// it: a remote of the repository's configuration, or a URL or path given
// for one sync.
type Remote struct {
	// Arg is what git is given: the remote's name, the URL, or the path
	// made absolute.
	Arg string
	// Configured is true for a remote of the repository's configuration
	// (git remote -v lists it); its URL and credentials are the user's.
	Configured bool
	// Key names the remote in refs/queen/remotes/ and in the sync state:
	// ledger.TrackingName(Arg), one safe ref component.
	Key string
}

// RemoteArgError is a remote sync cannot use as given.
type RemoteArgError struct {
	Arg, Reason string
}

func (e *RemoteArgError) Error() string {
	return fmt.Sprintf("cannot sync with %q: %s; %s", redact.Password(e.Arg), e.Reason, acceptedForms)
}

// Shown is the remote as messages, results and the state name it: Arg
// without a URL's password (https://user:TOKEN@host/...), which git
// leaves out of its own messages too. A token given for one sync (as CI
// scripts give them) was printed by every line that named the remote.
func (rm Remote) Shown() string { return redact.Password(rm.Arg) }

// acceptedForms is what a remote may be, for the messages that refuse one.
const acceptedForms = "a remote is the name of one of this repository's remotes (git remote -v lists them) " +
	"or a URL: a path, file://, http://, https://, ssh://, git:// or host:path"

// transportSchemes are the URL schemes a remote given as an argument may
// use: git's own transports. Others (ext::, fd::, a remote helper's
// scheme) run programs, and are accepted only as a configured remote.
var transportSchemes = []string{"file", "http", "https", "ssh", "git", "git+ssh", "ssh+git"}

// schemePrefix matches "scheme://" and the "helper::address" form git
// hands to git-remote-helper programs.
var (
	schemePrefix = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^([A-Za-z][A-Za-z0-9+.-]*)://`) })
	helperPrefix = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^([A-Za-z][A-Za-z0-9+.-]*)::`) })
)

// ResolveRemote checks arg as a remote to sync with and says what it is:
// a configured remote's name (refused when it starts with '-' or holds
// whitespace or control characters), else a URL or a path (a relative
// path is taken from dir). Nothing that git would read as an option, and
// no URL that makes git run a program (ext::, fd::), gets through.
func ResolveRemote(repo *gitrepo.Repo, arg, dir string) (Remote, error) {
	if arg == "" {
		return Remote{}, &RemoteArgError{Arg: arg, Reason: "the remote is empty"}
	}
	if err := gitrepo.RefuseOption("remote", arg); err != nil {
		return Remote{}, &RemoteArgError{Arg: arg, Reason: "it starts with '-', which git would read as an option"}
	}
	if i := strings.IndexFunc(arg, unicode.IsControl); i >= 0 {
		return Remote{}, &RemoteArgError{Arg: arg, Reason: "it holds a control character"}
	}
	if !strings.ContainsFunc(arg, unicode.IsSpace) && configuredRemote(repo, arg) {
		return Remote{Arg: arg, Configured: true, Key: ledger.TrackingName(arg)}, nil
	}
	target, err := checkURL(arg, dir)
	if err != nil {
		return Remote{}, err
	}
	return Remote{Arg: target, Key: ledger.TrackingName(target)}, nil
}

// configuredRemote says whether name is a remote of the repository's
// configuration, in any scope.
func configuredRemote(repo *gitrepo.Repo, name string) bool {
	_, ok := repo.ReadConfig().Get("remote." + name + ".url")
	return ok
}

// checkURL checks a remote that is not a configured name and returns what
// git is to be given: the URL, or the path made absolute against dir.
func checkURL(arg, dir string) (string, error) {
	refuse := func(reason string) (string, error) { return "", &RemoteArgError{Arg: arg, Reason: reason} }
	if m := helperPrefix().FindStringSubmatch(arg); m != nil {
		return refuse(fmt.Sprintf("%s:: makes git run the program git-remote-%s; a remote helper URL is accepted "+
			"only as a configured remote (git remote add NAME URL, then git queen sync NAME)", m[1], m[1]))
	}
	if m := schemePrefix().FindStringSubmatch(arg); m != nil {
		scheme := strings.ToLower(m[1])
		if !slices.Contains(transportSchemes, scheme) {
			return refuse(fmt.Sprintf("git-queen does not fetch over %s:// from the command line (configure it as a remote to use it)", scheme))
		}
		if scheme == "file" {
			return arg, nil
		}
		authority, _, _ := strings.Cut(arg[len(m[0]):], "/")
		user, host, hasUser := strings.Cut(authority, "@")
		if !hasUser {
			user, host = "", authority
		}
		if strings.HasPrefix(host, "-") || strings.HasPrefix(host, "[-") || strings.HasPrefix(user, "-") {
			return refuse("its host or user starts with '-', which ssh would read as an option")
		}
		u, err := url.Parse(arg)
		if err != nil {
			return refuse("it is not a valid URL")
		}
		if u.Hostname() == "" {
			return refuse("the URL names no host")
		}
		return arg, nil
	}
	if host, _, scp := scpLike(arg); scp {
		if user, h, ok := strings.Cut(host, "@"); ok {
			host = h
			if strings.HasPrefix(user, "-") {
				return refuse("its user starts with '-', which ssh would read as an option")
			}
		}
		if host == "" || strings.HasPrefix(host, "-") || strings.HasPrefix(host, "[-") {
			return refuse("its host is empty or starts with '-', which ssh would read as an option")
		}
		return arg, nil
	}
	path := arg
	if !filepath.IsAbs(path) {
		path = filepath.Join(dir, path)
	}
	if _, err := os.Stat(path); err != nil {
		return refuse(fmt.Sprintf("there is no remote of that name, and no repository at %s", path))
	}
	return path, nil
}

// scpLike splits git's scp-like syntax, [user@]host:path: a colon with no
// slash before it (and a bracketed host may hold colons).
func scpLike(arg string) (host, path string, ok bool) {
	rest := arg
	if i := strings.Index(arg, "["); i >= 0 && i < strings.IndexAny(arg+":", ":/") {
		if j := strings.Index(arg, "]"); j > i {
			rest = arg[:i] + strings.Repeat("x", j-i+1) + arg[j+1:] // hide the host's colons
		}
	}
	colon := strings.Index(rest, ":")
	if colon < 0 || strings.Contains(rest[:colon], "/") {
		return "", "", false
	}
	return arg[:colon], arg[colon+1:], true
}
