package ledgersync

// This is the version index sync kept before it asked the logs' indexes
// (knownVersions), kept here unchanged as the reference that
// TestKnownVersionsAnswerAsTheVersionIndex holds knownVersions to, with
// versionOf, which only tests use now.

import (
	"bytes"
	"errors"
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/gitrepo/object"
	"github.com/git-queen/git-queen/internal/storage/jsonl"
	"github.com/git-queen/git-queen/internal/storage/ledger"
)

// versionIndex answers, for a record id, when the newest version of it
// that the local ledger holds was written. Applying another clone's
// records needs that answer for each incoming id: a version older than
// what this clone already has must not become the last line of its id in
// received/, where readers take the last line as the current version. A
// scan of the logs would cost their whole size on every sync; the index
// costs what the ledger gained since the last sync.
//
// It is a directory of 4,096 bucket files, an id's bucket chosen by a hash
// of it; each line is "ID VERSIONKEY". A bucket can list an id more than
// once (the newest key counts). The file "head" names the ledger commit the
// index reflects; catching up reads the ledger's changes since then. It is
// derived data: deleting the directory rebuilds it from the ledger.
type versionIndex struct {
	dir string
	// now is when the versions are received: the rules they are held to
	// depend on it (see brokenRule).
	now time.Time
}

const (
	indexDir     = "index"
	indexHead    = "head"
	indexBuckets = 4096
)

func bucketOf(id string) string {
	h := fnv.New32a()
	h.Write([]byte(id))
	return fmt.Sprintf("%03x", h.Sum32()%indexBuckets)
}

// head is the ledger commit the index reflects (zero when it is empty).
func (x *versionIndex) head() object.ID {
	data, err := os.ReadFile(filepath.Join(x.dir, indexHead))
	if err != nil {
		return object.ZeroID
	}
	id, _ := object.ParseHex(strings.TrimSpace(string(data)))
	return id
}

// catchUp makes the index reflect the ledger commit to. An index whose
// head the ledger no longer reads (a gc pruned it) is built again from to.
func (x *versionIndex) catchUp(l *ledger.Ledger, to object.ID) error {
	from := x.head()
	if from == to {
		return nil
	}
	removed, err := x.addChanges(l, from, to)
	if ledger.IsDamage(err) && !from.IsZero() && l.Sound(from) != nil {
		removed, err = true, nil
	}
	if err == nil && removed {
		// to is not a continuation of what the index saw: start over.
		if err := os.RemoveAll(x.dir); err != nil {
			return err
		}
		_, err = x.addChanges(l, object.ZeroID, to)
	}
	if err != nil {
		return err
	}
	return jsonl.WriteCacheFile(filepath.Join(x.dir, indexHead), []byte(to.String()+"\n"))
}

// addChanges notes the versions to holds that from does not, a batch at a
// time.
func (x *versionIndex) addChanges(l *ledger.Ledger, from, to object.ID) (bool, error) {
	const batch = 50000
	pending, n := ledger.Lines{}, 0
	removed, err := l.EachChange(from, to, func(file string, lines [][]byte) error {
		pending[file] = append(pending[file], lines...)
		if n += len(lines); n < batch {
			return nil
		}
		err := x.add(pending)
		pending, n = ledger.Lines{}, 0
		return err
	})
	if err != nil {
		return removed, err
	}
	return removed, x.add(pending)
}

// add notes the versions in lines.
func (x *versionIndex) add(lines ledger.Lines) error {
	buckets := map[string]*bytes.Buffer{}
	for _, log := range ledger.Logs {
		file := log.File
		for _, line := range lines[file] {
			id, key, ok := versionOf(line)
			if !ok {
				continue
			}
			if rule, _ := brokenRule(file, line, x.now); rule != "" {
				continue // set aside on receipt: it never counts as newest
			}
			b := bucketOf(id)
			if buckets[b] == nil {
				buckets[b] = &bytes.Buffer{}
			}
			fmt.Fprintf(buckets[b], "%s %s\n", id, key)
		}
	}
	if err := os.MkdirAll(x.dir, 0o755); err != nil {
		return err
	}
	for b, buf := range buckets {
		f, err := os.OpenFile(filepath.Join(x.dir, b), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
		if err != nil {
			return err
		}
		_, err = f.Write(buf.Bytes())
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return fmt.Errorf("update the version index: %w", err)
		}
	}
	return nil
}

// newest returns, for each id asked, the newest version key the index
// holds ("" for an id it has never seen).
func (x *versionIndex) newest(ids []string) (map[string]string, error) {
	byBucket := map[string][]string{}
	for _, id := range ids {
		b := bucketOf(id)
		byBucket[b] = append(byBucket[b], id)
	}
	out := make(map[string]string, len(ids))
	for b, want := range byBucket {
		data, err := os.ReadFile(filepath.Join(x.dir, b))
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		wanted := map[string]bool{}
		for _, id := range want {
			wanted[id] = true
		}
		for line := range strings.Lines(string(data)) {
			id, key, ok := strings.Cut(strings.TrimSuffix(line, "\n"), " ")
			if ok && wanted[id] && key > out[id] {
				out[id] = key
			}
		}
	}
	return out, nil
}

// versionOf is a record line's id and version key; ok is false for a line
// that is not a record with a time (such lines are applied as they are).
func versionOf(line []byte) (id, key string, ok bool) {
	id, at, ok := newVersionReader().of(line)
	return id, records.TimeKey(at), ok
}

// brokenRule says which rule a version another clone wrote breaks, and how
// ("" when none): every rule local writes obey (records.CheckVersion), with
// the reservations that can no longer hold at now vetted cheaply (see
// records.CheckVersionAt).
func brokenRule(file string, line []byte, now time.Time) (rule, msg string) {
	if _, e := records.CheckVersionAt(file, line, now); e != nil {
		return e.Rule, e.Msg
	}
	return "", ""
}
