package ledgersync

import (
	"errors"
	"hash/maphash"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/git-queen/git-queen/internal/base/ids"
	"github.com/git-queen/git-queen/internal/base/regular"
	"github.com/git-queen/git-queen/internal/format/records"
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
	// earlier is, by earlierKey, the parties hash of the versions this
	// merge applied in the log's earlier months, which scopedApplied no
	// longer holds: a later month's version of the same record must
	// name the same parties (rule parties). 12 bytes an id.
	earlier map[uint64]uint32
	// sizeHint is how many ids a prefix's map is made for.
	sizeHint int
}

// stamp is a version time, exactly, in a form without a pointer, and,
// where applied keeps it, a hash of the parties of the version applied
// (partiesHash; in the room the time leaves, so it costs no byte).
type stamp struct {
	sec     int64
	nsec    int32
	parties uint32
}

func stampOf(t time.Time) stamp { return stamp{sec: t.Unix(), nsec: int32(t.Nanosecond())} }

// partiesHash is a hash of a version's records.Parties, never 0 (which
// stands for a line that is not a JSON object).
func partiesHash(p records.Parties) uint32 {
	return uint32(maphash.Comparable(partiesSeed, p)) | 1
}

var partiesSeed = maphash.MakeSeed()

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

// partiesOf is the parties hash of the version of id this merge applied
// (had, when at found one; else one of an earlier month), or 0.
func (a *applied) partiesOf(id string, had stamp, ok bool) uint32 {
	if ok || len(a.earlier) == 0 {
		return had.parties
	}
	return a.earlier[earlierKey(id)]
}

func earlierKey(id string) uint64 { return maphash.String(partiesSeed, id) }

// set notes that the version of the id written at t was applied.
func (a *applied) set(id string, s ulidID, t stamp) {
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
		last, sameLog := a.applied, strings.HasPrefix(a.scope, c.File+"/")
		a.applied, a.scope = newApplied(), scope
		if last != nil {
			// Made for as many ids as the last month had: grown as
			// they come, the maps cost a join a third more.
			for _, m := range last.byULID {
				a.sizeHint = max(a.sizeHint, len(m))
			}
			if sameLog {
				a.earlier = last.foldEarlier()
			}
		}
	}
	return nil
}

// foldEarlier adds the parties of what a holds to a.earlier, and returns
// it.
func (a *applied) foldEarlier() map[uint64]uint32 {
	if a.earlier == nil {
		a.earlier = map[uint64]uint32{}
	}
	for prefix, m := range a.byULID {
		for u, t := range m {
			a.earlier[earlierKey(prefix+u.String())] = t.parties
		}
	}
	for id, t := range a.other {
		a.earlier[earlierKey(id)] = t.parties
	}
	return a.earlier
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
				if p, ok := records.PartiesOf(file, line); ok {
					t.parties = partiesHash(p)
				}
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
