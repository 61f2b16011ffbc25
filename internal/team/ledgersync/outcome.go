package ledgersync

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"time"

	"github.com/git-queen/git-queen/internal/storage/ledger"
	"github.com/git-queen/git-queen/internal/storage/workspace"
)

// outcomesFile remembers, per remote, how the last fetch and the last push
// of the ledger went, so that doctor can say whether the remote accepts
// the ledger without pushing anything itself: the only probe that shows a
// hook's or an access rule's answer is a real push, which would run the
// server's hooks, notify whoever watches the repository, and leave a ref.
const outcomesFile = "remote-outcomes.json"

// Outcome is how one fetch or push of the ledger went.
type Outcome struct {
	At time.Time `json:"at"`
	OK bool      `json:"ok"`
	// Cause and Message say why it failed (empty when OK).
	Cause   Cause  `json:"cause,omitempty"`
	Message string `json:"message,omitempty"`
	// Ref is, for Blocked, the ref below the ledger's name; for Aliased,
	// the ref the ledger's names.
	Ref string `json:"ref,omitempty"`
}

// Outcomes are the last fetch and push with one remote.
type Outcomes struct {
	// Remote is the remote as sync was given it (a name, a URL).
	Remote string   `json:"remote"`
	Fetch  *Outcome `json:"fetch,omitempty"`
	Push   *Outcome `json:"push,omitempty"`
}

// LastOutcomes reads what the last exchanges with remote came to (by its
// name or URL); the zero Outcomes when it was never synced.
func LastOutcomes(ws *workspace.Workspace, remote string) Outcomes {
	all, _ := loadOutcomes(ws.Dir)
	return all[ledger.TrackingName(remote)]
}

func loadOutcomes(dir string) (map[string]Outcomes, error) {
	data, err := os.ReadFile(filepath.Join(dir, outcomesFile))
	if errors.Is(err, os.ErrNotExist) {
		return map[string]Outcomes{}, nil
	}
	if err != nil {
		return nil, err
	}
	all := map[string]Outcomes{}
	if err := json.Unmarshal(data, &all); err != nil {
		return map[string]Outcomes{}, nil // a damaged memo is forgotten, not fatal
	}
	return all, nil
}

// note remembers how a fetch or push with rm went (err nil: it worked). It
// writes only when the outcome changed or the one noted is a minute old,
// so that an idle sync writes nothing; a failure to write loses only the
// memo. It is called under the sync lock.
func (s *Syncer) note(rm Remote, op string, err error) {
	now := s.S.Now()
	o := &Outcome{At: now, OK: err == nil}
	if err != nil {
		re, ok := errors.AsType[*RemoteError](err)
		if !ok {
			return // a local failure says nothing about the remote
		}
		o.Cause, o.Message, o.Ref = re.Cause, re.Msg, re.Ref
	}
	all, lerr := loadOutcomes(s.dir())
	if lerr != nil {
		return
	}
	cur := all[rm.Key]
	cur.Remote = rm.Shown()
	last := &cur.Fetch
	if op == "push" {
		last = &cur.Push
	}
	if p := *last; p != nil && p.OK == o.OK && p.Cause == o.Cause && p.Message == o.Message && p.Ref == o.Ref && now.Sub(p.At) < time.Minute {
		return
	}
	*last = o
	all[rm.Key] = cur
	_ = writeJSON(s.dir(), outcomesFile, all)
}
