package ledger

import (
	"slices"
	"strings"

	gitobject "github.com/git-queen/git-queen/internal/gitrepo/object"
	"github.com/git-queen/git-queen/internal/gitrepo/refs"
)

// Refs is the refs of the ledger's repository: the ledger's own ref and
// the tracking refs of the remotes' ledgers are read and moved through it.
func (l *Ledger) Refs() *refs.Store { return l.refs }

// TrackingRefs lists the remotes' ledgers this repository has fetched, by
// remote name.
func TrackingRefs(commonDir string) (map[string]gitobject.ID, error) {
	// Only the one ref git-queen writes per remote, and no other is read:
	// another clone can push refs of any name under refs/queen/, which a
	// fetch may bring here (refs/queen/remotes/origin/remotes/x/ledger,
	// or 20,000 refs/queen/remotes/origin/ledgerN, which every check and
	// commit read when they were listed).
	list, err := refs.Open(commonDir).ListOne("refs/queen/remotes/", "/ledger")
	if err != nil {
		return nil, err
	}
	out := map[string]gitobject.ID{}
	for _, r := range list {
		if remote, ok := trackedRemote(r.Name); ok && !r.ID.IsZero() {
			out[remote] = r.ID
		}
	}
	return out, nil
}

// trackedRemote is the remote whose ledger ref (refs/queen/remotes/NAME/ledger)
// name is.
func trackedRemote(name string) (string, bool) {
	remote, isTracking := strings.CutPrefix(name, "refs/queen/remotes/")
	remote, isLedger := strings.CutSuffix(remote, "/ledger")
	return remote, isTracking && isLedger && remote != "" && !strings.Contains(remote, "/")
}

// ForeignRefs lists the refs under refs/queen/ that git-queen does not
// write (anything but refs/queen/ledger and refs/queen/remotes/NAME/ledger):
// another clone pushed them, or an older git-queen's fetch brought them.
// Nothing reads them; doctor names them so that they can be deleted.
func ForeignRefs(commonDir string) ([]string, error) {
	list, err := refs.Open(commonDir).List("refs/queen/")
	if err != nil {
		return nil, err
	}
	var foreign []string
	for _, r := range list {
		if _, ours := trackedRemote(r.Name); r.Name != Ref && !ours {
			foreign = append(foreign, r.Name)
		}
	}
	slices.Sort(foreign)
	return foreign, nil
}
