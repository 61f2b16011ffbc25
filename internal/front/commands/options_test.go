package commands

import (
	"io"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/git-queen/git-queen/internal/app"
	"github.com/git-queen/git-queen/internal/team/setup"
)

// parseWith runs argv through an app that holds only the command build
// makes, with a runF that keeps the options instead of acting on them:
// how argv becomes options, tested without a repository. It returns the
// options (zero when the command refused argv before running) and the
// exit code.
func parseWith[O any](t *testing.T, build func(*Env, func(O) error) *cli.Command, argv string) (O, bool, int) {
	t.Helper()
	var got O
	ran := false
	env := &Env{Stdin: strings.NewReader(""), Stdout: io.Discard, Stderr: io.Discard,
		Getenv: func(string) string { return "" }, Dir: t.TempDir(), Now: time.Now}
	cmd := build(env, func(o O) error { got, ran = o, true; return nil })
	app := newAppWith(env, []*cli.Command{cmd})
	err := app.Run(reorderArgs(app, append([]string{"git-queen"}, strings.Fields(argv)...)))
	return got, ran, exitCode(err)
}

// expectOptions runs argv through build and fails the test unless the
// command exits with code, runs only when code is 0, and hands runF want
// (clearEnv drops the options' Env, a pointer the test need not compare).
func expectOptions[O any](t *testing.T, build func(*Env, func(O) error) *cli.Command, argv string, want O, code int, clearEnv func(*O)) {
	t.Helper()
	got, ran, gotCode := parseWith(t, build, argv)
	if gotCode != code || ran != (code == 0) {
		t.Errorf("%s: exit %d, ran %v; want exit %d", argv, gotCode, ran, code)
		return
	}
	if clearEnv(&got); !reflect.DeepEqual(got, want) {
		t.Errorf("%s: options\n got %+v\nwant %+v", argv, got, want)
	}
}

// expectCall is expectOptions for a command whose run function takes a
// call: the request (and globals) argv fills, Env left out.
func expectCall[R any](t *testing.T, build func(*Env, func(call[R]) error) *cli.Command, argv string, want call[R], code int) {
	t.Helper()
	expectOptions(t, build, argv, want, code, func(c *call[R]) { c.Env = nil })
}

// The expectations below were translated from the options structs the
// commands had to the app's requests they fill now, case for case: an
// exclusive reservation is Shared false, a TTL is the duration it parses
// to, as the run function handed it to the request.
func TestReserveOptions(t *testing.T) {
	type req = app.ReserveRequest
	reserve := func(g globals, r req) call[app.ReserveWaitRequest] {
		return call[app.ReserveWaitRequest]{G: g, Req: app.ReserveWaitRequest{ReserveRequest: r}}
	}
	refused := call[app.ReserveWaitRequest]{}
	tests := []struct {
		argv string
		want call[app.ReserveWaitRequest]
		code int
	}{
		{"reserve src/**", reserve(globals{}, req{Patterns: []string{"src/**"}, TTL: "2h0m0s"}), 0},
		{"reserve --shared --ttl 1d -i bd-1 --reason why a b",
			reserve(globals{}, req{Patterns: []string{"a", "b"}, TTL: "24h0m0s", Issue: "bd-1", Reason: "why", Shared: true}), 0},
		{"reserve a --force --notify --offline -x",
			reserve(globals{}, req{Patterns: []string{"a"}, TTL: "2h0m0s", Force: true, Notify: true, Offline: true}), 0},
		{"--droid ann --json reserve x",
			reserve(globals{Droid: "ann", JSON: true}, req{Patterns: []string{"x"}, TTL: "2h0m0s"}), 0},
		{"reserve x --agent bob", reserve(globals{Droid: "bob"}, req{Patterns: []string{"x"}, TTL: "2h0m0s"}), 0},
		{"reserve --shared --exclusive x", refused, ExitUsage},
		{"reserve --ttl 0s x", refused, ExitUsage},
		{"reserve --ttl 8d x", refused, ExitUsage},
		{"reserve --ttl soon x", refused, ExitUsage},
		{"reserve --no-such-flag x", refused, ExitUsage},
		// A flag taken for the value of the one before it (an empty shell
		// variable: --reason $WHY --shared) is refused, not granted
		// exclusive with the reason "--shared".
		{"reserve --reason --shared x", refused, ExitUsage},
		{"reserve x --reason --json", refused, ExitUsage},
		{"reserve x -i -f", refused, ExitUsage},
		{"reserve x --reason -why-", reserve(globals{}, req{Patterns: []string{"x"}, TTL: "2h0m0s", Reason: "-why-"}), 0},
		{"reserve x --reason=--shared", reserve(globals{}, req{Patterns: []string{"x"}, TTL: "2h0m0s", Reason: "--shared"}), 0},
	}
	for _, tt := range tests {
		expectCall(t, newReserveCmd, tt.argv, tt.want, tt.code)
	}
}

func TestReleaseAndRenewOptions(t *testing.T) {
	release := func(r app.ReleaseRequest) call[app.ReleaseRequest] { return call[app.ReleaseRequest]{Req: r} }
	expectCall(t, newReleaseCmd, "release a b", release(app.ReleaseRequest{Patterns: []string{"a", "b"}}), 0)
	expectCall(t, newReleaseCmd, "unreserve --all", release(app.ReleaseRequest{Patterns: []string{}, All: true}), 0)
	renew := func(r app.ReleaseRequest, ttl string) call[app.RenewRequest] {
		return call[app.RenewRequest]{Req: app.RenewRequest{ReleaseRequest: r, TTL: ttl}}
	}
	expectCall(t, newRenewCmd, "renew --all --ttl 30m", renew(app.ReleaseRequest{Patterns: []string{}, All: true}, "30m0s"), 0)
	expectCall(t, newRenewCmd, "renew x", renew(app.ReleaseRequest{Patterns: []string{"x"}}, "2h0m0s"), 0)
	expectCall(t, newRenewCmd, "renew --ttl 9d x", call[app.RenewRequest]{}, ExitUsage)
}

func TestReservationsAndCheckOptions(t *testing.T) {
	list, ran, code := parseWith(t, newReservationsCmd, "reserved --all --path src/a.go --agent bob -n 5")
	want := call[app.ReservationsRequest]{G: globals{Droid: "bob"}, Req: app.ReservationsRequest{All: true, Path: "src/a.go", Droid: "bob", Limit: 5}}
	if list.Env = nil; !ran || code != 0 || !reflect.DeepEqual(list, want) {
		t.Errorf("reserved: exit %d, ran %v, options %+v; want %+v", code, ran, list, want)
	}
	// The global --droid, before the command, is who lists (whose own
	// reservations end 5 minutes early, who is seen): the command's own
	// --droid filter, unset, hid it, and the listing was the configured
	// droid's.
	for _, argv := range []string{"--droid cat reservations", "--agent cat reserved --all"} {
		got, ran, code := parseWith(t, newReservationsCmd, argv)
		if !ran || code != 0 || got.G.Droid != "cat" || got.Req.Droid != "" {
			t.Errorf("%s: exit %d, ran %v, acting as %q listing %q's; want acting as cat listing all", argv, code, ran, got.G.Droid, got.Req.Droid)
		}
	}
	if got, ran, code := parseWith(t, newAssignmentsCmd, "--droid cat assignments"); !ran || code != 0 || got.G.Droid != "cat" || got.Req.Droid != "" {
		t.Errorf("--droid cat assignments: exit %d, ran %v, acting as %q listing %q's; want acting as cat listing all", code, ran, got.G.Droid, got.Req.Droid)
	}
	if _, ran, code := parseWith(t, newReservationsCmd, "reservations extra"); ran || code != ExitUsage {
		t.Errorf("reservations with an argument: exit %d, ran %v; want a usage error", code, ran)
	}
	// Translated from checkOptions' Paths to its request's.
	check, ran, code := parseWith(t, newCheckCmd, "check --hook claude a.go b/")
	if check.Env = nil; !ran || code != 0 || !reflect.DeepEqual(check, checkOptions{call: call[app.CheckRequest]{Req: app.CheckRequest{Paths: []string{"a.go", "b/"}}}, Hook: "claude"}) {
		t.Errorf("check: exit %d, ran %v, options %+v", code, ran, check)
	}
}

// The expectations were translated from assignOptions and its kin to the
// requests assign, claim, unassign and assignments fill, case for case.
func TestAssignOptions(t *testing.T) {
	assign, ran, code := parseWith(t, newAssignCmd, "assign bd-7 ann --reason handover --worktree wt2 --force")
	want := call[app.AssignRequest]{Req: app.AssignRequest{Issue: "bd-7", Droid: "ann", Reason: "handover", Worktree: "wt2", Force: true}}
	if assign.Env = nil; !ran || code != 0 || !reflect.DeepEqual(assign, want) {
		t.Errorf("assign: exit %d, ran %v, options %+v; want %+v", code, ran, assign, want)
	}
	if _, ran, code := parseWith(t, newAssignCmd, "assign bd-7"); ran || code != ExitUsage {
		t.Errorf("assign with one argument: exit %d, ran %v; want a usage error", code, ran)
	}
	claim, ran, code := parseWith(t, newClaimCmd, "claim bd-8")
	if claim.Env = nil; !ran || code != 0 || !reflect.DeepEqual(claim, call[app.ClaimRequest]{Req: app.ClaimRequest{Issue: "bd-8"}}) {
		t.Errorf("claim: exit %d, ran %v, options %+v", code, ran, claim)
	}
	unassign, ran, code := parseWith(t, newUnassignCmd, "unassign --done bd-8 --reason shipped")
	if unassign.Env = nil; !ran || code != 0 || !reflect.DeepEqual(unassign, call[app.UnassignRequest]{Req: app.UnassignRequest{Issue: "bd-8", Done: true, Reason: "shipped"}}) {
		t.Errorf("unassign: exit %d, ran %v, options %+v", code, ran, unassign)
	}
	list, ran, code := parseWith(t, newAssignmentsCmd, "assignments --status completed -i bd-8 --agent ann --all --limit 3")
	wantList := call[app.AssignmentsRequest]{G: globals{Droid: "ann"},
		Req: app.AssignmentsRequest{Droid: "ann", Issue: "bd-8", Status: "completed", All: true, Limit: 3}}
	if list.Env = nil; !ran || code != 0 || !reflect.DeepEqual(list, wantList) {
		t.Errorf("assignments: exit %d, ran %v, options %+v; want %+v", code, ran, list, wantList)
	}
	if _, ran, code := parseWith(t, newAssignmentsCmd, "assignments --status open"); ran || code != ExitUsage {
		t.Errorf("assignments --status open: exit %d, ran %v; want a usage error", code, ran)
	}
}

func TestSetupAndValidateOptions(t *testing.T) {
	gotInit, ran, code := parseWith(t, newInitCmd, "--droid ann init --remote origin --no-hooks --force")
	// Translated from initOptions and doctorOptions to the requests init
	// and doctor fill.
	wantInit := call[setup.Options]{G: globals{Droid: "ann"}, Req: setup.Options{Droid: "ann", Remote: "origin", NoHooks: true, Force: true}}
	if gotInit.Env = nil; !ran || code != 0 || !reflect.DeepEqual(gotInit, wantInit) {
		t.Errorf("init: exit %d, ran %v, options %+v; want %+v", code, ran, gotInit, wantInit)
	}
	doctor, ran, code := parseWith(t, newDoctorCmd, "doctor --fix")
	if doctor.Env = nil; !ran || code != 0 || !reflect.DeepEqual(doctor, call[app.DoctorRequest]{Req: app.DoctorRequest{Fix: true}}) {
		t.Errorf("doctor: exit %d, ran %v, options %+v", code, ran, doctor)
	}
	for argv, want := range map[string]hooksOptions{
		"hooks install --force": {Verb: "install", Force: true},
		"hooks uninstall":       {Verb: "uninstall"},
		"hooks status":          {Verb: "status"},
	} {
		got, ran, code := parseWith(t, newHooksCmd, argv)
		if got.Env = nil; !ran || code != 0 || !reflect.DeepEqual(got, want) {
			t.Errorf("%s: exit %d, ran %v, options %+v; want %+v", argv, code, ran, got, want)
		}
	}
	if _, ran, code := parseWith(t, newHooksCmd, "hooks status --force"); ran || code != ExitUsage {
		t.Errorf("hooks status --force: exit %d, ran %v; want a usage error", code, ran)
	}
	// Translated from validateOptions: a --limit given is a Limit set.
	v, ran, code := parseWith(t, newValidateCmd, "validate --format st a.jsonl --limit 0 b.jsonl")
	zero := 0
	wantV := call[app.ValidateRequest]{Req: app.ValidateRequest{Paths: []string{"a.jsonl", "b.jsonl"}, Format: "st", Limit: &zero}}
	if v.Env = nil; !ran || code != 0 || !reflect.DeepEqual(v, wantV) {
		t.Errorf("validate: exit %d, ran %v, options %+v; want %+v", code, ran, v, wantV)
	}
	v, _, _ = parseWith(t, newValidateCmd, "validate")
	if v.Req.Limit != nil || len(v.Req.Paths) != 0 {
		t.Errorf("validate without flags: options %+v; want no limit set and no paths", v)
	}
}

// Translated from maintenanceOptions to the requests compact and archive
// fill, case for case.
func TestCompactAndArchiveOptions(t *testing.T) {
	expectCall(t, newCompactCmd, "compact", call[app.CompactRequest]{}, 0)
	expectCall(t, newCompactCmd, "--json compact", call[app.CompactRequest]{G: globals{JSON: true}}, 0)
	expectCall(t, newCompactCmd, "compact queen_messages.jsonl", call[app.CompactRequest]{}, ExitUsage)
	expectCall(t, newArchiveCmd, "archive --before 30d", call[app.ArchiveRequest]{Req: app.ArchiveRequest{Before: "30d"}}, 0)
	expectCall(t, newArchiveCmd, "archive", call[app.ArchiveRequest]{}, ExitUsage)
	expectCall(t, newArchiveCmd, "archive --before 30d extra", call[app.ArchiveRequest]{}, ExitUsage)
}

func TestSyncAndExportOptions(t *testing.T) {
	// Translated from syncOptions to the SyncRequest sync fills.
	expectCall(t, newSyncCmd, "sync", call[app.SyncRequest]{}, 0)
	expectCall(t, newSyncCmd, "--json sync origin", call[app.SyncRequest]{G: globals{JSON: true}, Req: app.SyncRequest{Remote: "origin"}}, 0)
	expectCall(t, newSyncCmd, "sync a b", call[app.SyncRequest]{}, ExitUsage)

	clearExport := func(o *exportOptions) { o.Env = nil }
	expectOptions(t, newExportCmd, "export", exportOptions{}, 0, clearExport)
	expectOptions(t, newExportCmd, "export out/.beads", exportOptions{Dir: "out/.beads"}, 0, clearExport)
	expectOptions(t, newExportCmd, "export a b", exportOptions{}, ExitUsage, clearExport)
}

// Translated from mergeDriverOptions to the MergeRequest merge-driver
// fills, case for case.
func TestMergeDriverOptions(t *testing.T) {
	type req = app.MergeRequest
	expectCall(t, newMergeDriverCmd, "merge-driver b o t", call[req]{Req: req{Base: "b", Ours: "o", Theirs: "t", MarkerSize: 7}}, 0)
	expectCall(t, newMergeDriverCmd, "merge-driver --format st --checkpoint-interval 50 b o t 9 .beads/x.jsonl",
		call[req]{Req: req{Base: "b", Ours: "o", Theirs: "t", MarkerSize: 9, Path: ".beads/x.jsonl", Format: "st", Interval: 50}}, 0)
	for _, argv := range []string{"merge-driver b o", "merge-driver b o t 7 p extra", "merge-driver b o t 0", "merge-driver b o t seven"} {
		expectCall(t, newMergeDriverCmd, argv, call[req]{}, ExitUsage)
	}
}

// Translated from resolveOptions: --json is G.JSON, and --octopus hands
// the BRANCHes to the octopus run function as an OctopusRequest; every
// case as it was.
func TestResolveOptions(t *testing.T) {
	var octopus []call[app.OctopusRequest]
	build := func(env *Env, keep func(call[app.ResolveRequest]) error) *cli.Command {
		return newResolveCmd(env, keep, func(o call[app.OctopusRequest]) error { o.Env = nil; octopus = append(octopus, o); return nil })
	}
	type req = app.ResolveRequest
	expectCall(t, build, "resolve", call[req]{Req: req{Files: []string{}}}, 0)
	expectCall(t, build, "--json resolve -n --format st --checkpoint-interval 20 a.jsonl b.jsonl",
		call[req]{G: globals{JSON: true}, Req: req{Files: []string{"a.jsonl", "b.jsonl"}, Check: true, Format: "st", Interval: 20}}, 0)
	if _, _, code := parseWith(t, build, "resolve --octopus b1 b2 b3"); code != 0 ||
		!reflect.DeepEqual(octopus, []call[app.OctopusRequest]{{Req: app.OctopusRequest{Branches: []string{"b1", "b2", "b3"}}}}) {
		t.Errorf("resolve --octopus: exit %d, requests %+v; want the branches b1 b2 b3", code, octopus)
	}
	expectCall(t, build, "resolve --octopus --check b1 b2", call[req]{}, ExitUsage)
	if len(octopus) != 1 {
		t.Errorf("resolve --octopus --check ran octopus: %+v", octopus)
	}
}

func TestHookOptions(t *testing.T) {
	// Translated from preCommitOptions and prePushOptions to the calls the
	// hooks hand their run functions, case for case.
	var gotCommit []call[app.PreCommitRequest]
	var gotPush []call[app.PrePushRequest]
	build := func(env *Env, keep func(call[app.PreCommitRequest]) error) *cli.Command {
		return newHookCmd(env, func(o call[app.PreCommitRequest]) error { gotCommit = append(gotCommit, o); return keep(o) },
			func(o call[app.PrePushRequest]) error { o.Env = nil; gotPush = append(gotPush, o); return nil })
	}
	expectCall(t, build, "hook pre-commit", call[app.PreCommitRequest]{}, 0)
	expectCall(t, build, "--agent ann hook pre-merge-commit", call[app.PreCommitRequest]{G: globals{Droid: "ann"}}, 0)
	if len(gotCommit) != 2 {
		t.Errorf("pre-commit and pre-merge-commit ran the commit check %d times, want 2", len(gotCommit))
	}
	if _, _, code := parseWith(t, build, "hook pre-push origin https://example.com/r.git"); code != 0 ||
		!reflect.DeepEqual(gotPush, []call[app.PrePushRequest]{{Req: app.PrePushRequest{Remote: "origin"}}}) {
		t.Errorf("pre-push: exit %d, options %+v; want the remote origin", code, gotPush)
	}
}

func TestPipelineAndStOptions(t *testing.T) {
	// Translated from pipelineOptions to the PipelineRequest pipeline show fills.
	type pipe = app.PipelineRequest
	expectCall(t, newPipelineShowCmd, "show", call[pipe]{Req: pipe{Number: -1}}, 0)
	expectCall(t, newPipelineShowCmd, "show --dir x 12", call[pipe]{Req: pipe{Dir: "x", Number: 12}}, 0)
	for _, argv := range []string{"show -3", "show twelve", "show 1 2"} {
		expectCall(t, newPipelineShowCmd, argv, call[pipe]{}, ExitUsage)
	}
	var shown, planned []stOptions
	build := func(env *Env, keep func(stOptions) error) *cli.Command {
		return newStCmd(env, func(o stOptions) error { o.Env = nil; shown = append(shown, o); return nil },
			func(o stOptions) error { o.Env = nil; planned = append(planned, o); return nil })
	}
	for argv, code := range map[string]int{"st show --format json a.jsonl": 0, "--json st plan b.jsonl": 0, "st show": ExitUsage, "st plan a b": ExitUsage} {
		if _, _, got := parseWith(t, build, argv); got != code {
			t.Errorf("%s: exit %d, want %d", argv, got, code)
		}
	}
	wantShown := []stOptions{{File: "a.jsonl", Format: "json"}}
	wantPlanned := []stOptions{{Globals: globals{JSON: true}, File: "b.jsonl"}}
	if !reflect.DeepEqual(shown, wantShown) || !reflect.DeepEqual(planned, wantPlanned) {
		t.Errorf("st show got %+v, plan got %+v; want %+v and %+v", shown, planned, wantShown, wantPlanned)
	}
}
