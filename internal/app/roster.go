package app

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/pelletier/go-toml/v2"

	"github.com/git-queen/git-queen/internal/domain/roster"
	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/format/schema"
	"github.com/git-queen/git-queen/internal/storage/workspace"
)

// DefaultSilentAfter is how long a droid may go unseen before doctor
// lists it as silent and others may steal its reservations and claims,
// unless queen.toml's [roster] silent_after says otherwise.
const DefaultSilentAfter = time.Hour

// DroidsRequest asks for the roster.
type DroidsRequest struct {
	Silent bool `json:"silent,omitempty" jsonschema:"only the droids silent for longer than the team's threshold (queen.toml [roster] silent_after, default 1h): those whose reservations and claims may be stolen"`
}

// DroidsResult is the roster: every droid the repository knows, when each
// first wrote and was last seen, and where.
type DroidsResult struct {
	Droids []roster.Droid `json:"droids"`
	// SilentAfter is the team's threshold; Silent names the droids past it.
	SilentAfter string   `json:"silent_after"`
	Silent      []string `json:"silent"`
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
	after, err := SilentAfter(s.WS)
	if err != nil {
		return nil, err
	}
	listed, err := rosterNames(s.WS)
	if err != nil {
		return nil, err
	}
	now := s.Now()
	list, err := (&roster.Store{S: s}).List(now, listed)
	if err != nil {
		return nil, err
	}
	silent := roster.Silent(list, now, after)
	out := &DroidsResult{Droids: list, SilentAfter: after.String(), Silent: []string{}, Now: now}
	for _, d := range silent {
		out.Silent = append(out.Silent, d.Name)
	}
	if r.Silent {
		out.Droids = nonNil(silent)
	}
	return out, nil
}

// rosterConfig is the [roster] table of queen.toml, and the [droids] one
// the recipients' check reads.
type rosterConfig struct {
	Roster struct {
		SilentAfter string `toml:"silent_after"`
	} `toml:"roster"`
	Droids struct {
		Names []string `toml:"names"`
	} `toml:"droids"`
}

// readRosterConfig reads queen.toml in the store's .beads/ directory; no
// file is an empty configuration.
func readRosterConfig(ws *workspace.Workspace) (*rosterConfig, string, error) {
	var c rosterConfig
	if ws == nil || ws.BeadsDir == "" {
		return &c, "", nil
	}
	path := filepath.Join(ws.BeadsDir, schema.ConfigFile)
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return &c, path, nil
	}
	if err != nil {
		return nil, path, err
	}
	if err := toml.Unmarshal(data, &c); err != nil {
		return nil, path, fmt.Errorf("%s: %w (fix the file: its [roster] and [droids] tables say who is on the team)", path, err)
	}
	return &c, path, nil
}

// SilentAfter is the team's silence threshold: queen.toml's [roster]
// silent_after, at least roster.MinSilence, else DefaultSilentAfter.
func SilentAfter(ws *workspace.Workspace) (time.Duration, error) {
	c, path, err := readRosterConfig(ws)
	if err != nil {
		return 0, err
	}
	v := strings.TrimSpace(c.Roster.SilentAfter)
	if v == "" {
		return DefaultSilentAfter, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < roster.MinSilence || d > 30*24*time.Hour {
		return 0, fmt.Errorf("%s: [roster] silent_after = %q: give a duration from %s to 720h (e.g. \"1h\"); "+
			"a droid is seen at most every %s, so a shorter one would call live droids silent", path, v, roster.MinSilence, roster.Interval)
	}
	return d, nil
}

// rosterNames are the names under [droids] in queen.toml, valid ones only.
func rosterNames(ws *workspace.Workspace) ([]string, error) {
	c, _, err := readRosterConfig(ws)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, n := range c.Droids.Names {
		if records.ValidateDroid(n) == nil {
			out = append(out, n)
		}
	}
	return out, nil
}

// notePresence records that the droid this use case acted as was seen
// here, when the use case opened the live store and knew its droid. A
// stamp in the cache says when this droid was last noted in this
// worktree, so most commands read one small file and write nothing;
// presence is a courtesy, so any failure is silent.
func (e *Env) notePresence() {
	if e.identity == "" || len(e.found) == 0 {
		return
	}
	if ws, err := e.Workspace(); err == nil && ws.Live && ws.Repo != nil {
		e.notePresenceIn(ws, e.identity)
	}
}

func (e *Env) notePresenceIn(ws *workspace.Workspace, droid string) {
	now := e.Now()
	place := here(ws)
	sum := sha256.Sum256([]byte(droid + "\x00" + place.Clone + "\x00" + place.Worktree))
	stamp := filepath.Join(ws.CacheDir(), "presence-"+hex.EncodeToString(sum[:8]))
	if data, err := os.ReadFile(stamp); err == nil {
		if t, err := time.Parse(time.RFC3339Nano, strings.TrimSpace(string(data))); err == nil &&
			now.Sub(t) < roster.Interval && !t.After(now.Add(records.MaxClockSkew)) {
			return
		}
	}
	s, err := e.OpenStore()
	if err != nil {
		return
	}
	if _, err := (&roster.Store{S: s}).Note(droid, place); err != nil {
		return
	}
	if os.MkdirAll(filepath.Dir(stamp), 0o755) == nil {
		_ = os.WriteFile(stamp, []byte(now.UTC().Format(time.RFC3339Nano)+"\n"), 0o644)
	}
}

// here is the place of a workspace: this machine and the repository's
// git directory, and the worktree.
func here(ws *workspace.Workspace) roster.Place {
	host, _ := os.Hostname()
	if host == "" {
		host = "localhost"
	}
	return roster.Place{Clone: host + ":" + ws.Repo.CommonDir, Worktree: ws.Repo.TopLevel}
}
