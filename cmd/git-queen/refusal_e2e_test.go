package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/git-queen/git-queen/internal/testgit"
)

// refusingServer configures a bare repository to refuse or hide
// refs/queen/*, as a server a team does not control might.
type refusingServer struct {
	name  string
	setup func(t *testing.T, bare string)
	// want are in the error of a reserve or sync that pushes.
	want []string
}

// hook writes an executable hook into the bare repository.
func hook(t *testing.T, bare, name, script string) {
	t.Helper()
	p := filepath.Join(bare, "hooks", name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
}

var refusingServers = []refusingServer{
	{name: "gitolite-style pre-receive hook", want: []string{"refuses refs/queen/ledger: an access rule denies it (gitolite",
		"DENIED by fallthru", "'RW+ refs/queen/ = @team'"},
		setup: func(t *testing.T, bare string) {
			hook(t, bare, "pre-receive", "#!/bin/sh\nwhile read old new ref; do case $ref in refs/queen/*)\n"+
				"echo \"FATAL: W $ref team ann DENIED by fallthru\"; echo '(or you mis-spelled the reponame)'; exit 1;; esac; done\n")
		}},
	{name: "pre-receive hook", want: []string{"its pre-receive hook declined it", "no coordination refs here", "pre-receive or update hook must let refs/queen/ through"},
		setup: func(t *testing.T, bare string) {
			hook(t, bare, "pre-receive", "#!/bin/sh\nwhile read old new ref; do case $ref in refs/queen/*)\n"+
				"echo 'no coordination refs here'; exit 1;; esac; done\n")
		}},
	{name: "update hook", want: []string{"its update hook declined it", "pre-receive or update hook must let refs/queen/ through"},
		setup: func(t *testing.T, bare string) {
			hook(t, bare, "update", "#!/bin/sh\ncase $1 in refs/queen/*) echo 'branches only'; exit 1;; esac\n")
		}},
	{name: "receive.hideRefs", want: []string{"it hides refs/queen from pushes (receive.hideRefs or transfer.hideRefs on the server)"},
		setup: func(t *testing.T, bare string) { testgit.Run(t, bare, "config", "receive.hideRefs", "refs/queen") }},
}

// A remote that refuses refs/queen/* (a hook, a gitolite rule,
// receive.hideRefs), over a file remote and git daemon: reserve and sync
// name the cause and the fix instead of "retry when origin can be
// reached", nothing is granted, and doctor reports it as a failure.
func TestRemoteThatRefusesTheLedger(t *testing.T) {
	t.Parallel()
	for _, server := range refusingServers {
		for _, transport := range []func(testing.TB) testgit.Remote{testgit.FileRemote, testgit.DaemonRemote} {
			r := transport(t)
			t.Run(server.name+" over "+r.Name, func(t *testing.T) {
				seedRemote(t, r)
				server.setup(t, r.Dir)
				dir := queenClone(t, r, "ann") // its first sync has nothing to push
				res := gitQueen(t, dir, "ann", "reserve", "src/**", "-x")
				if res.code != 1 || !strings.Contains(res.stderr, "nothing was reserved: cannot push the ledger to origin: origin refuses refs/queen/ledger") ||
					strings.Contains(res.stderr, "retry when") || !strings.Contains(res.stderr, "reserve --offline") {
					t.Errorf("reserve: %s", describeRun([]string{"reserve"}, res))
				}
				for _, w := range server.want {
					if !strings.Contains(res.stderr, w) {
						t.Errorf("reserve's error lacks %q:\n%s", w, res.stderr)
					}
				}
				for _, row := range allReservations(t, dir, "ann") {
					if row.Active {
						t.Errorf("a refused reservation is active: %v", row)
					}
				}
				mustQueen(t, dir, "ann", "msg", "send", "--new", "--to", "bob", "--subject", "hello")
				res = gitQueen(t, dir, "ann", "sync")
				if res.code != 1 || !strings.Contains(res.stderr, "origin refuses refs/queen/ledger") || !strings.Contains(res.stderr, server.want[0]) {
					t.Errorf("sync: %s", describeRun([]string{"sync"}, res))
				}
				res = gitQueen(t, dir, "ann", "doctor")
				if res.code != 1 || !regexp.MustCompile(`(?m)^fail +remote-ledger +origin refused the last push of the ledger \(.*\): origin refuses refs/queen/ledger`).MatchString(res.stdout) {
					t.Errorf("doctor: %s", describeRun([]string{"doctor"}, res))
				}
				// The clone keeps working: an offline reservation and a check.
				mustQueen(t, dir, "ann", "reserve", "src/**", "-x", "--offline")
				mustQueen(t, dir, "ann", "check", "src/a.go")
			})
		}
	}
}

// A remote that hides refs/queen from fetches (uploadpack.hideRefs) while
// pushes see it: the second clone's reserve says so after a few attempts,
// not "after 60 attempts"; doctor says so in both clones.
func TestRemoteThatHidesTheLedgerFromFetches(t *testing.T) {
	t.Parallel()
	for _, transport := range []func(testing.TB) testgit.Remote{testgit.FileRemote, testgit.DaemonRemote} {
		r := transport(t)
		t.Run(r.Name, func(t *testing.T) {
			seedRemote(t, r)
			testgit.Run(t, r.Dir, "config", "uploadpack.hideRefs", "refs/queen")
			ann := queenClone(t, r, "ann")
			mustQueen(t, ann, "ann", "reserve", "docs/**", "-x") // the first push finds no ledger: it wins
			bob := queenClone(t, r, "bob")
			res := gitQueen(t, bob, "bob", "reserve", "src/**", "-x", "--json")
			if res.code != 1 || !strings.Contains(res.stderr, "pushes find its ledger moved, but 2 fetches after them brought nothing new") ||
				!strings.Contains(res.stderr, "uploadpack.hideRefs") || strings.Contains(res.stderr, "attempts") {
				t.Errorf("bob's reserve: %s", describeRun([]string{"reserve"}, res))
			}
			res = gitQueen(t, bob, "bob", "doctor")
			if res.code != 1 || !regexp.MustCompile(`(?m)^fail +remote-ledger +origin hid its ledger from the last sync`).MatchString(res.stdout) {
				t.Errorf("bob's doctor: %s", describeRun([]string{"doctor"}, res))
			}
			res = gitQueen(t, ann, "ann", "doctor")
			if res.code != 1 || !regexp.MustCompile(`(?m)^fail +remote-ledger +origin shows fetches no refs/queen/ledger, though this clone pushed it there`).MatchString(res.stdout) {
				t.Errorf("ann's doctor: %s", describeRun([]string{"doctor"}, res))
			}
		})
	}
}

// doctor's line about a remote that works: what it serves, and that it
// took the last push.
func TestDoctorProbesAWorkingRemote(t *testing.T) {
	t.Parallel()
	r := testgit.HTTPRemote(t)
	seedRemote(t, r)
	ann := queenClone(t, r, "ann")
	out := mustQueen(t, ann, "ann", "doctor")
	if !regexp.MustCompile(`(?m)^ok +remote-ledger +origin answers and has no ledger yet; no push of the ledger remembered yet`).MatchString(out) {
		t.Errorf("doctor before any push:\n%s", out)
	}
	mustQueen(t, ann, "ann", "reserve", "src/**", "-x")
	tip := testgit.Run(t, r.Dir, "rev-parse", "refs/queen/ledger")
	out = mustQueen(t, ann, "ann", "doctor")
	if !regexp.MustCompile(`(?m)^ok +remote-ledger +origin serves the ledger \(refs/queen/ledger at ` + tip[:12] + `\); it accepted the last push \(`).MatchString(out) {
		t.Errorf("doctor after a push:\n%s", out)
	}
}

// origin fetches from one server and pushes (remote.origin.pushurl) to a
// second over git daemon, whose refs/queen/ledger is a symbolic ref to a
// ref that does not exist: no server shows one, and the push that
// creates the ledger creates that ref. sync warns after it, naming the
// ref, and doctor fails on it rather than stop at the pushurl's warning.
func TestAPushThroughADanglingSymrefIsNamed(t *testing.T) {
	t.Parallel()
	fetchFrom, pushTo := testgit.FileRemote(t), testgit.DaemonRemote(t)
	seedRemote(t, fetchFrom)
	ann := queenClone(t, fetchFrom, "ann")
	testgit.Run(t, ann, "config", "remote.origin.pushurl", pushTo.URL)
	testgit.Run(t, pushTo.Dir, "symbolic-ref", "refs/queen/ledger", "refs/heads/none")
	mustQueen(t, ann, "ann", "msg", "send", "--new", "--to", "bob", "--subject", "hello")
	res := gitQueen(t, ann, "ann", "sync")
	if !strings.Contains(res.stderr, "warning: pushed the ledger to origin, but its refs/queen/ledger at "+pushTo.URL+
		" is a symbolic ref to refs/heads/none, which did not exist: this push created refs/heads/none") {
		t.Errorf("sync: %s", describeRun([]string{"sync"}, res))
	}
	res = gitQueen(t, ann, "ann", "doctor")
	if res.code != 1 || !regexp.MustCompile(`(?m)^fail +remote-ledger +origin, at the last push of the ledger \(.*\): its refs/queen/ledger at `+
		regexp.QuoteMeta(pushTo.URL)+` is a symbolic ref to refs/heads/none`).MatchString(res.stdout) {
		t.Errorf("doctor: %s", describeRun([]string{"doctor"}, res))
	}
}

// The server's refs/queen/ledger is a symbolic ref to main: sync sets
// main's commit aside and refuses to push through it, and doctor's lines
// about it say what to do on the server, not that the next sync pushes
// over it.
func TestDoctorOnALedgerSymrefSaysWhatToDo(t *testing.T) {
	t.Parallel()
	r := testgit.FileRemote(t)
	seedRemote(t, r)
	ann := queenClone(t, r, "ann")
	testgit.Run(t, r.Dir, "symbolic-ref", "refs/queen/ledger", "refs/heads/main")
	mustQueen(t, ann, "ann", "msg", "send", "--new", "--to", "bob", "--subject", "hello")
	if res := gitQueen(t, ann, "ann", "sync"); res.code != 1 || !strings.Contains(res.stderr, "symbolic ref to refs/heads/main") {
		t.Fatalf("sync: %s", describeRun([]string{"sync"}, res))
	}
	res := gitQueen(t, ann, "ann", "doctor")
	if !regexp.MustCompile(`(?m)^warn +set-aside .*; it is refs/heads/main's commit: .* git symbolic-ref --delete refs/queen/ledger`).MatchString(res.stdout) ||
		!regexp.MustCompile(`(?m)^warn +remote-ledger +origin's ledger, as fetched, is set aside: .*every git queen sync stops on it`).MatchString(res.stdout) {
		t.Errorf("doctor: %s", describeRun([]string{"doctor"}, res))
	}
}
