package ledgersync

import (
	"errors"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/git-queen/git-queen/internal/base/ids"
	"github.com/git-queen/git-queen/internal/base/regular"
	"github.com/git-queen/git-queen/internal/storage/ledger"
)

// applied is when the version a merge applied of each record was written,
// by id: a later chunk's older version of the same record must not follow
// it into received/. A clone joining a ledger of a million records holds a
// million of them, so an id in the form every writer of QueenBee records
// gives it (a prefix, then an upper-case ULID) is held as its prefix's map
// of the ULID's 16 bytes, beside a time without a pointer: about 40 bytes
// an id, none of them for the collector to scan, where a map of strings
// took about 150. Any other id is held as it is.
type applied struct {
	byULID map[string]map[ulid.ULID]stamp // by the id's prefix ("msg-")
	other  map[string]stamp
	// newest is the latest time set: a version written at it or later
	// is older than none applied, and at need not look (a ledger's
	// versions come mostly in the order they were written).
	newest stamp
	// sizeHint is how many ids a prefix's map is made for.
	sizeHint int
}

// stamp is a version time, exactly, in a form without a pointer.
type stamp struct {
	sec  int64
	nsec int32
}

func stampOf(t time.Time) stamp { return stamp{t.Unix(), int32(t.Nanosecond())} }

func (a stamp) before(b stamp) bool { return a.sec < b.sec || a.sec == b.sec && a.nsec < b.nsec }

// ulidID is an id split as applied holds it; canonical is false for an id
// not in the ULID form (or not spelled as the ULID's own text).
type ulidID struct {
	prefix    string
	u         ulid.ULID
	canonical bool
}

// splitID splits id for applied: only an id that is its prefix followed by
// the upper-case text of its ULID maps to that pair, so that two ids never
// share one (ULIDs also parse in lower case).
func splitID(id string) ulidID {
	prefix, u, err := ids.Parse(id)
	if err != nil || prefix == "" {
		return ulidID{}
	}
	var text [ulid.EncodedSize]byte
	if u.MarshalTextTo(text[:]) != nil || string(text[:]) != id[len(prefix):] {
		return ulidID{}
	}
	return ulidID{prefix: prefix, u: u, canonical: true}
}

func newApplied() *applied {
	return &applied{byULID: map[string]map[ulid.ULID]stamp{}, other: map[string]stamp{}}
}

// at is when the version applied of the id was written; ok is false when
// none was.
func (a *applied) at(id string, s ulidID) (t stamp, ok bool) {
	if s.canonical {
		t, ok = a.byULID[s.prefix][s.u]
	} else {
		t, ok = a.other[id]
	}
	return t, ok
}

// set notes that the version of the id written at t was applied.
func (a *applied) set(id string, s ulidID, t stamp) {
	if a.newest.before(t) {
		a.newest = t
	}
	if !s.canonical {
		a.other[id] = t
		return
	}
	m := a.byULID[s.prefix]
	if m == nil {
		m = make(map[ulid.ULID]stamp, a.sizeHint)
		a.byULID[s.prefix] = m
	}
	m[s.u] = t
}

// scopedApplied is applied as a merge keeps it. While every version the
// merge has read sat in the month directory of its own time, as Record
// puts them, a version of a later month is newer than any of an earlier
// one: only the current log and month's versions are held (a ledger of a
// million records over four months, a quarter of them). The first version
// found elsewhere (a ledger written by hand, or by a release that placed
// versions by another time) makes it hold every version applied since,
// read back from what the merge appended to received/.
type scopedApplied struct {
	*applied
	scope string
	whole bool
}

// enter readies a for the versions v of chunk c; appended returns every
// version the merge applied so far, when it must hold them all.
func (a *scopedApplied) enter(c ledger.Chunk, v vetting, appended func() (*applied, error)) error {
	if a.whole {
		return nil
	}
	if !inMonth(c.Month, v) {
		all, err := appended()
		if err != nil {
			return err
		}
		a.applied, a.whole = all, true
		return nil
	}
	if scope := c.File + "/" + c.Month; scope != a.scope || a.applied == nil {
		last := a.applied
		a.applied, a.scope = newApplied(), scope
		if last != nil {
			// Made for as many ids as the last month had: grown as
			// they come, the maps cost a join a third more.
			for _, m := range last.byULID {
				a.sizeHint = max(a.sizeHint, len(m))
			}
		}
	}
	return nil
}

// inMonth says whether every valid version in v was written in month
// ("2026-11").
func inMonth(month string, v vetting) bool {
	y, m, ok := strings.Cut(month, "-")
	year, yerr := strconv.Atoi(y)
	mon, merr := strconv.Atoi(m)
	if !ok || yerr != nil || merr != nil {
		return false
	}
	for _, x := range v.valid {
		if x.id == "" {
			continue
		}
		if y, m, _ := x.at.Date(); y != year || int(m) != mon {
			return false
		}
	}
	return true
}

// appliedSince reads back the versions appended to each log (by path)
// past its size in sizes: what a merge applied so far.
func appliedSince(sizes map[string]int64, path func(file string) string) (*applied, error) {
	a, versions := newApplied(), newVersionReader()
	for file, size := range sizes {
		f, err := regular.Open(path(file))
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		err = eachLine(f, size, func(line []byte) {
			if id, at, ok := versions.of(line); ok {
				split, t := splitID(id), stampOf(at)
				if had, ok := a.at(id, split); !ok || had.before(t) {
					a.set(id, split, t)
				}
			}
		})
		f.Close()
		if err != nil {
			return nil, err
		}
	}
	return a, nil
}
