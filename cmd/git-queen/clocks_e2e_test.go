package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/testgit"
)

// Randomised teams of honest clones with every fault that is nobody's
// malice: ann works from two machines whose clocks agree to the
// millisecond (so her versions of one record tie), bob's clock is an hour
// ahead and carl's an hour behind; syncs are killed at random moments and
// git gc --prune=now runs beside them. After two rounds of syncs every
// clone holds the same current version of every record, and at no moment
// sampled do two droids both believe they hold one path.
//
// Each process gets its clone's clock through QUEEN_NOW: a simulated time
// that advances a minute or two per step, plus the clone's offset.

// clockClone is one machine of the simulated team.
type clockClone struct {
	dir    string
	droid  string
	offset time.Duration
}

// clockTeam is the simulation.
type clockTeam struct {
	t      *testing.T
	rng    *rand.Rand
	now    time.Time // the true time
	clones []*clockClone
	log    []string
	// What the steps came to, for the test's log.
	grants, conflicts, clockRefusals, ties, kills, gcs int
}

// overlapping are the patterns droids reserve: the first two overlap, the
// third overlaps neither.
var overlapping = []string{"src/**", "src/a/**", "docs/**"}

func (h *clockTeam) logf(format string, args ...any) {
	h.log = append(h.log, fmt.Sprintf("%s "+format, append([]any{h.now.Format("15:04:05.000")}, args...)...))
}

func (h *clockTeam) fail(format string, args ...any) {
	h.t.Helper()
	if os.Getenv("QUEEN_TEST_KEEP") != "" {
		for _, c := range h.clones {
			state, _ := os.ReadFile(c.dir + "/.git/queen/ledger-state.json")
			graph, _ := exec.Command("git", "-C", c.dir, "log", "--format=%h %p %ce %cd %s", "--date=iso", "refs/queen/ledger").Output()
			h.t.Logf("%s %s:\n%s\n%s", c.droid, c.dir, state, graph)
		}
	}
	tail := h.log[max(0, len(h.log)-40):]
	h.t.Fatalf(format+"\nlast steps:\n%s", append(args, strings.Join(tail, "\n"))...)
}

// cmd is `git queen ARGS` on clone c at its clock now.
func (h *clockTeam) cmd(c *clockClone, args ...string) *exec.Cmd {
	cmd := queenCmd(c.dir, c.droid, args...)
	cmd.Env = append(cmd.Env, "QUEEN_NOW="+h.now.Add(c.offset).UTC().Format(time.RFC3339Nano))
	return cmd
}

func (h *clockTeam) queen(c *clockClone, args ...string) run {
	h.t.Helper()
	cmd := h.cmd(c, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	_ = cmd.Run()
	r := run{stdout.String(), stderr.String(), cmd.ProcessState.ExitCode()}
	h.logf("%s(%s) %s -> %d %s", c.droid, c.dir[len(c.dir)-3:], strings.Join(args, " "), r.code, firstLine(r.stderr))
	return r
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	if len(line) > 160 {
		line = line[:160]
	}
	return line
}

// step does one random thing on a random clone, or a tie on ann's two.
func (h *clockTeam) step() {
	h.now = h.now.Add(time.Duration(30+h.rng.IntN(90)) * time.Second)
	c := h.clones[h.rng.IntN(len(h.clones))]
	switch k := h.rng.IntN(10); {
	case k < 3:
		ttl := fmt.Sprintf("%dm", 10+h.rng.IntN(30))
		r := h.queen(c, "reserve", overlapping[h.rng.IntN(len(overlapping))], "--ttl", ttl)
		switch {
		case r.code == 0:
			h.grants++
		case r.code == 5:
			h.conflicts++
		case strings.Contains(r.stderr, "no exclusive reservation was made: this machine's clock"):
			h.clockRefusals++
		default:
			h.fail("reserve failed for another reason than a conflict or a clock: %s", r.stderr)
		}
	case k < 4:
		h.queen(c, "release", "--all")
	case k < 5:
		h.queen(c, "msg", "send", "--new", "--to", h.clones[h.rng.IntN(len(h.clones))].droid, "--subject", strconv.Itoa(len(h.log)))
	case k < 6:
		h.tie()
	case k < 7:
		h.killedSync(c)
	case k < 8:
		h.syncBesideGC(c)
	default:
		h.sync(c)
	}
}

func (h *clockTeam) sync(c *clockClone) {
	if r := h.queen(c, "sync"); r.code != 0 && r.code != 5 {
		h.fail("sync failed: %s", r.stderr)
	}
}

// tie has ann's two machines, whose clocks agree, change one of her
// reservations (or one message to her) in the same millisecond: release
// against renew, renew against renew, read against delete.
func (h *clockTeam) tie() {
	a, b := h.clones[0], h.clones[1]
	h.sync(a)
	h.sync(b)
	out := h.queen(a, "reservations", "--droid", "ann", "--json").stdout
	var list struct {
		Reservations []struct {
			Pattern string `json:"pattern"`
		} `json:"reservations"`
	}
	_ = json.Unmarshal([]byte(out), &list)
	ops := [][2][]string{
		{{"msg", "read", "LAST"}, {"msg", "delete", "LAST"}},
	}
	if len(list.Reservations) > 0 {
		p := list.Reservations[0].Pattern
		ops = append(ops, [2][]string{{"release", p}, {"renew", p, "--ttl", "20m"}},
			[2][]string{{"renew", p, "--ttl", "15m"}, {"renew", p, "--ttl", "25m"}})
	}
	op := ops[h.rng.IntN(len(ops))]
	if op[0][0] == "msg" {
		id := h.lastMessageTo(a, "ann")
		if id == "" {
			return
		}
		op[0][2], op[1][2] = id, id
	}
	h.logf("tie: %v against %v", op[0], op[1])
	h.ties++
	ca, cb := h.cmd(a, op[0]...), h.cmd(b, op[1]...)
	if err := ca.Start(); err != nil {
		h.t.Fatal(err)
	}
	if err := cb.Start(); err != nil {
		h.t.Fatal(err)
	}
	_, _ = ca.Process.Wait()
	_, _ = cb.Process.Wait()
}

func (h *clockTeam) lastMessageTo(c *clockClone, droid string) string {
	out := h.queen(c, "msg", "inbox", "--json").stdout
	var got struct {
		Messages []struct {
			ID string `json:"id"`
		} `json:"messages"`
	}
	if json.Unmarshal([]byte(out), &got) != nil || len(got.Messages) == 0 {
		return ""
	}
	return got.Messages[0].ID
}

// killedSync kills a sync at a random moment, with all of its git.
func (h *clockTeam) killedSync(c *clockClone) {
	cmd := h.cmd(c, "sync")
	inOwnGroup(cmd)
	if err := cmd.Start(); err != nil {
		h.t.Fatal(err)
	}
	time.Sleep(time.Duration(h.rng.IntN(120)) * time.Millisecond)
	killGroup(cmd)
	_ = cmd.Wait()
	h.logf("%s(%s) sync killed", c.droid, c.dir[len(c.dir)-3:])
	h.kills++
}

// syncBesideGC runs git gc --prune=now while a sync runs: objects the
// sync wrote and has not yet named by a ref can be pruned under it.
func (h *clockTeam) syncBesideGC(c *clockClone) {
	sync := h.cmd(c, "sync")
	var out bytes.Buffer
	sync.Stdout, sync.Stderr = &out, &out
	if err := sync.Start(); err != nil {
		h.t.Fatal(err)
	}
	gc := exec.Command("git", "gc", "--prune=now", "--quiet")
	gc.Dir = c.dir
	gcOut, _ := gc.CombinedOutput()
	_ = sync.Wait()
	h.gcs++
	h.logf("%s(%s) sync beside gc -> %d %s | gc: %s", c.droid, c.dir[len(c.dir)-3:], sync.ProcessState.ExitCode(),
		firstLine(out.String()), firstLine(string(gcOut)))
}

// believed lists, for each clone, the exclusive patterns its droid
// believes it holds now, by that clone's own view and clock.
func (h *clockTeam) believed() map[string][]string {
	out := map[string][]string{}
	for _, c := range h.clones {
		r := h.queen(c, "reservations", "--droid", c.droid, "--json")
		var got struct {
			Reservations []struct {
				Pattern   string `json:"pattern"`
				Exclusive bool   `json:"exclusive"`
				Active    bool   `json:"active"`
			} `json:"reservations"`
		}
		if err := json.Unmarshal([]byte(r.stdout), &got); err != nil {
			h.fail("reservations --json on %s: %v\n%s", c.dir, err, r.stdout)
		}
		for _, x := range got.Reservations {
			if x.Exclusive && x.Active {
				out[c.droid] = append(out[c.droid], x.Pattern)
			}
		}
	}
	return out
}

// checkBeliefs fails when two droids both believe they hold overlapping
// patterns at this moment.
func (h *clockTeam) checkBeliefs() {
	beliefs := h.believed()
	var droids []string
	for d := range beliefs {
		droids = append(droids, d)
	}
	slices.Sort(droids)
	overlap := func(a, b string) bool { return a == b || strings.HasPrefix(b, "src/") && strings.HasPrefix(a, "src/") }
	for i, d := range droids {
		for _, e := range droids[i+1:] {
			for _, p := range beliefs[d] {
				for _, q := range beliefs[e] {
					if overlap(p, q) {
						h.fail("%s believes it holds %s and %s believes it holds %s, at once", d, p, e, q)
					}
				}
			}
		}
	}
}

// currentVersions is, for every record a clone holds, its current version
// by the one rule every reader uses (records.Newer), from this clone's
// logs and the received ones.
func currentVersionsOf(t *testing.T, dir string) map[string]string {
	t.Helper()
	best := map[string][]byte{}
	for _, p := range storeLogs(t, dir) {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for line := range bytes.Lines(data) {
			line = bytes.TrimSuffix(line, []byte("\n"))
			var rec struct {
				ID string `json:"id"`
			}
			if json.Unmarshal(line, &rec) != nil || rec.ID == "" {
				continue
			}
			if cur, ok := best[rec.ID]; !ok || records.Newer(line, cur) {
				best[rec.ID] = slices.Clone(line)
			}
		}
	}
	out := make(map[string]string, len(best))
	for id, line := range best {
		out[id] = string(line)
	}
	return out
}

func TestClocksTiesKillsAndGCConverge(t *testing.T) {
	t.Parallel()
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("QUEEN_TEST_SEED"); s != "" {
		seed, _ = strconv.ParseUint(s, 10, 64)
	}
	t.Logf("seed %d (QUEEN_TEST_SEED=%d reruns it)", seed, seed)
	r := testgit.FileRemote(t)
	seedRemote(t, r)
	h := &clockTeam{t: t, rng: rand.New(rand.NewPCG(seed, 0)), now: time.Now().UTC().Truncate(time.Millisecond)}
	for _, c := range []struct {
		droid  string
		offset time.Duration
	}{{"ann", 0}, {"ann", 0}, {"bob", time.Hour}, {"carl", -time.Hour}} {
		dir := testgit.Clone(t, r)
		cl := &clockClone{dir: dir, droid: c.droid, offset: c.offset}
		if r := h.queen(cl, "init", "--droid", c.droid, "--remote", "origin"); r.code != 0 {
			t.Fatalf("init: %s", r.stderr)
		}
		h.clones = append(h.clones, cl)
	}
	for _, c := range h.clones {
		h.queen(c, "msg", "send", "--new", "--to", "ann", "--subject", "hello from "+c.droid)
		h.sync(c)
	}
	const steps = 60
	for i := range steps {
		h.step()
		if i%6 == 5 {
			h.checkBeliefs()
		}
	}
	for range 2 {
		for _, c := range h.clones {
			h.sync(c)
		}
	}
	h.checkBeliefs()
	t.Logf("%d grants, %d conflicts, %d refused for the clock, %d ties, %d killed syncs, %d syncs beside gc",
		h.grants, h.conflicts, h.clockRefusals, h.ties, h.kills, h.gcs)
	if os.Getenv("QUEEN_TEST_LOG") != "" {
		t.Log(strings.Join(h.log, "\n"))
	}
	want := currentVersionsOf(t, h.clones[0].dir)
	if len(want) == 0 {
		h.fail("the first clone holds no records")
	}
	for _, c := range h.clones[1:] {
		got := currentVersionsOf(t, c.dir)
		for id, line := range want {
			if got[id] != line {
				h.fail("after two rounds of syncs %s and %s disagree on %s:\n%s\n%s", h.clones[0].dir, c.dir, id, line, got[id])
			}
		}
		for id := range got {
			if _, ok := want[id]; !ok {
				h.fail("%s holds %s, which %s does not", c.dir, id, h.clones[0].dir)
			}
		}
	}
}
