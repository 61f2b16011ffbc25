package app

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/git-queen/git-queen/internal/base/jsonline"
	"github.com/git-queen/git-queen/internal/domain/roster"
	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/storage/store"
	"github.com/git-queen/git-queen/internal/storage/workspace"
	"github.com/git-queen/git-queen/internal/team/ledgersync"
)

// DefaultSilentAfter is the silence threshold when queen.toml sets none.
const DefaultSilentAfter = roster.DefaultSilentAfter

// DroidsRequest asks for the roster.
type DroidsRequest struct {
	Silent bool `json:"silent,omitempty" jsonschema:"only the droids silent for longer than the team's threshold (queen.toml [roster] silent_after, default 1h): those whose reservations and claims may be stolen"`
	Limit  int  `json:"limit,omitempty" jsonschema:"at most this many droids, those seen last (default 50), by name; silent names the silent ones among them, and more says how many were left out"`
}

// DroidsResult is the roster: every droid the repository knows, when each
// first wrote and was last seen, and where.
type DroidsResult struct {
	Droids []roster.Droid `json:"droids"`
	// SilentAfter is the team's threshold; Silent names the droids past it
	// (among those listed, when a limit left some out).
	SilentAfter string   `json:"silent_after"`
	Silent      []string `json:"silent"`
	// More is how many droids the limit left out.
	More int `json:"more,omitempty"`
	// Now is the time the result was computed at, for "3m ago".
	Now time.Time `json:"now"`
}

// Droids lists the droids of the repository (git queen droids, who).
var Droids = UseCase[DroidsRequest, *DroidsResult]{Name: "droids", run: droids}

func droids(e *Env, r DroidsRequest) (*DroidsResult, error) {
	s, err := e.OpenStore()
	if err != nil {
		return nil, err
	}
	c, err := roster.ReadConfig(s.WS.BeadsDir)
	if err != nil {
		return nil, err
	}
	for _, u := range c.Unknown() {
		fmt.Fprintf(e.Warn, "git-queen: warning: %s; nothing reads it\n", u)
	}
	after, err := c.SilentAfter()
	if err != nil {
		return nil, err
	}
	now := s.Now()
	list, err := (&roster.Store{S: s}).List(now, c.Droids.Names) // it lists the valid names under [droids]
	if err != nil {
		return nil, err
	}
	silent := roster.Silent(list, now, after)
	if r.Silent {
		list = jsonline.NonNil(silent)
	}
	out := &DroidsResult{SilentAfter: after.String(), Silent: []string{}, Now: now}
	out.Droids, out.More = seenLast(list, r.Limit)
	if out.More > 0 {
		silent = roster.Silent(out.Droids, now, after)
	}
	for _, d := range silent {
		out.Silent = append(out.Silent, d.Name)
	}
	return out, nil
}

// seenLast keeps the n droids of list seen last (never seen: last of
// all), in list's order; all when n <= 0. It says how many it
// left out.
func seenLast(list []roster.Droid, n int) ([]roster.Droid, int) {
	if n <= 0 || len(list) <= n {
		return list, 0
	}
	byLast := slices.Clone(list)
	slices.SortStableFunc(byLast, func(a, b roster.Droid) int { return lastSeen(b).Compare(lastSeen(a)) })
	kept := map[string]bool{}
	for _, d := range byLast[:n] {
		kept[d.Name] = true
	}
	return slices.DeleteFunc(slices.Clone(list), func(d roster.Droid) bool { return !kept[d.Name] }), len(list) - n
}

// lastSeen is when d was last seen; the zero time (before any) if never.
func lastSeen(d roster.Droid) time.Time {
	if d.Last == nil {
		return time.Time{}
	}
	return *d.Last
}

// notePresence records that the droid this use case acted as was seen
// here, when the use case opened the live store and knew its droid. A
// stamp in the cache says when this droid was last noted in this
// worktree, so most commands read one small file and write nothing;
// presence is a courtesy, so any failure is silent. A sighting alone
// never starts a live store: in a repository where nothing was ever
// written (git queen init never ran, and a session-start hook configured
// for every repository runs status there) reading leaves no trace.
func (e *Env) notePresence() {
	if e.identity == "" || e.Unseen || len(e.found) == 0 {
		return
	}
	if ws, err := e.Workspace(); err == nil && ws.Live && ws.Repo != nil && isDir(ws.Dir) {
		e.noteStamped(ws, e.identity, e.Now(), func() *store.Store {
			s, _ := e.OpenStore() // nil when it cannot be opened
			return s
		})
	}
}

// isDir says whether path is an existing directory.
func isDir(path string) bool {
	info, err := os.Stat(path)
	return err == nil && info.IsDir()
}

// noteStamped notes droid as seen in ws at now unless its stamp says it
// was within roster.Interval; open gives the store (nil: no note). With
// no stamp (droid's first command in this worktree, or a cache that was
// cleared), it warns when droid is new here and its name most likely a
// typo (roster.Store.Mistyped): the note makes it a known droid.
func (e *Env) noteStamped(ws *workspace.Workspace, droid string, now time.Time, open func() *store.Store) {
	place := here(ws)
	sum := sha256.Sum256([]byte(droid + "\x00" + place.Clone + "\x00" + place.Worktree))
	stamp := filepath.Join(ws.CacheDir(), "presence-"+hex.EncodeToString(sum[:8]))
	data, err := os.ReadFile(stamp)
	if err == nil {
		if t, err := time.Parse(time.RFC3339Nano, strings.TrimSpace(string(data))); err == nil &&
			now.Sub(t) < roster.Interval && !t.After(now.Add(records.MaxClockSkew)) {
			return
		}
	}
	s := open()
	if s == nil {
		return
	}
	var near []string
	if errors.Is(err, fs.ErrNotExist) {
		near = e.mistyped(s, droid)
	}
	if _, err := (&roster.Store{S: s}).Note(droid, place); err != nil {
		return
	}
	if len(near) > 0 {
		e.warnMistyped(droid, near, "", "it is now known, from this command")
	}
	if os.MkdirAll(filepath.Dir(stamp), 0o755) == nil {
		_ = os.WriteFile(stamp, []byte(now.UTC().Format(time.RFC3339Nano)+"\n"), 0o644)
	}
}

// mistyped is roster.Store.Mistyped for droid in the store s as this use
// case began, with the names the roster file lists; nil on any failure.
func (e *Env) mistyped(s *store.Store, droid string) []string {
	c, err := roster.ReadConfig(s.WS.BeadsDir)
	if err != nil {
		return nil
	}
	near, _ := (&roster.Store{S: s}).Mistyped(droid, e.started, c.Droids.Names)
	return near
}

// warnMistyped warns that droid is new here (how: known how) and that its
// name is close to near's, most likely a typo; done says what was done.
func (e *Env) warnMistyped(droid string, near []string, how, done string) {
	quoted := make([]string, len(near))
	for i, n := range near {
		quoted[i] = strconv.Quote(n)
	}
	fmt.Fprintf(e.Warn, "git-queen: warning: droid %q is new here%s; did you mean %s? (%s)\n", droid, how, records.OrList(quoted), done)
}

// waitingSeenEvery is how often a command that blocks (msg wait) looks
// whether its droid's sighting is due: a droid waiting for an answer is
// alive, and one that waited past the silence threshold without a
// sighting could have what it holds stolen while it waits. Most looks
// read the stamp and write nothing (roster.Interval).
var waitingSeenEvery = 30 * time.Second

// seenWhileWaiting notes droid as seen in the store s (the live store)
// every roster.Interval while a command waits, and, with a remote
// configured, syncs with it at once and every WaitSyncInterval, as
// reserve --wait does: what other clones send reaches the waiter, and its
// sightings reach them. The function it returns stops it, returns once
// it has, and gives the last sync's failure, if any.
func (e *Env) seenWhileWaiting(s *store.Store, droid string) (stop func() error) {
	if droid == "" || !s.WS.Live || s.WS.Repo == nil {
		return func() error { return nil }
	}
	own := *s // a store of its own: the waiting goroutine reads s
	remote := ledgersync.ConfiguredRemote(s)
	done, stopped := make(chan struct{}), make(chan struct{})
	var syncErr error
	go func() {
		defer close(stopped)
		tick, syncs := time.NewTicker(waitingSeenEvery), time.NewTicker(WaitSyncInterval)
		defer tick.Stop()
		defer syncs.Stop()
		if remote == "" {
			syncs.Stop()
		} else {
			syncErr = e.syncWith(&own, droid, remote)
		}
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				e.noteStamped(own.WS, droid, own.Now(), func() *store.Store { return &own })
			case <-syncs.C:
				syncErr = e.syncWith(&own, droid, remote)
			}
		}
	}()
	return func() error {
		close(done)
		<-stopped
		return syncErr
	}
}

// here is the place of a workspace: this machine and the repository's
// git directory, and the worktree.
func here(ws *workspace.Workspace) roster.Place {
	host, _ := os.Hostname()
	host = cmp.Or(host, "localhost")
	return roster.Place{Clone: host + ":" + ws.Repo.CommonDir, Worktree: ws.Repo.TopLevel}
}
