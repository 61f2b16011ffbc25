package ledgersync

import (
	"errors"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/storage/ledger"
	"github.com/git-queen/git-queen/internal/testgit"
)

// TestAForwardMovedRefWithTheRemoteMovedToo: a ledger ref moved forward
// by hand (a fetch of the remote's ledger), killed at any point of the
// sync after it, while the remote moved on meanwhile, and with a round
// killed before the move (its applying intent pending): every record
// reaches every clone once, and the remote keeps what it held.
func TestAForwardMovedRefWithTheRemoteMovedToo(t *testing.T) {
	points := []string{"", "fetched", "recorded", "applied", "intent-saved", "ref-moved", "pushing", "pushed"}
	for b, before := range []string{"", "applied", "intent-saved"} {
		for p, point := range points {
			if testing.Short() && (b+p)%3 != 0 {
				// CI's run under the race detector: each point once, each
				// kill before the move twice or three times; go test ./...
				// runs all 24.
				continue
			}
			t.Run("killed at "+before+" before the move, then at "+point, func(t *testing.T) {
				c := &clock{time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)}
				r := newRemote(t)
				a, b := newClone(t, r, c), newClone(t, r, c)
				a.send(t, "ann", "bob", "one")
				a.sync(t)
				b.sync(t)
				b.send(t, "bob", "bob", "later")
				b.sync(t)
				kill := func(at string) {
					t.Helper()
					if at == "" {
						return
					}
					errCrash := errors.New("killed")
					testHook = func(p string) error {
						if p == at {
							return errCrash
						}
						return nil
					}
					_, err := a.sy.Sync("origin")
					testHook = nil
					if !errors.Is(err, errCrash) {
						t.Fatalf("the crash at %s did not happen: %v", at, err)
					}
				}
				a.send(t, "ann", "bob", "two")
				kill(before)
				testgit.Run(t, a.dir, "fetch", "-q", "origin", "+"+ledger.Ref+":"+ledger.Ref)
				b.send(t, "bob", "bob", "after the move")
				b.sync(t)
				held := remoteTip(t, a)
				a.send(t, "ann", "bob", "three")
				kill(point)
				a.sync(t)
				if err := exec.Command("git", "-C", a.dir, "merge-base", "--is-ancestor", held, remoteTip(t, a)).Run(); err != nil {
					t.Errorf("the remote's ledger does not descend from %s, which it held: %v", held, err)
				}
				b.sync(t)
				joined := newClone(t, r, c)
				joined.sync(t)
				want := []string{"after the move", "later", "one", "three", "two"}
				for name, cl := range map[string]*clone{"ann's": a, "bob's": b, "a joining": joined} {
					noRepeats(t, name+" received/", strings.Split(strings.TrimSpace(string(cl.received(t))), "\n"))
					if got := subjects(cl.inbox(t, "bob")); !slices.Equal(got, want) {
						t.Errorf("%s clone: bob's inbox %q, want %q", name, got, want)
					}
				}
			})
		}
	}
}
