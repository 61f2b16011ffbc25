package messages

import (
	"slices"
	"strings"
	"time"

	"github.com/git-queen/git-queen/internal/base/jsonline"
	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/storage/jsonl"
	"github.com/git-queen/git-queen/internal/storage/store"
)

// droidSelection is the store's cached selection name of the messages
// whose first field (to, from) names droid, extracting fields, lean or
// not (see newestFrom): the inbox's and sent list's (newestFrom), and a
// wait's (oldestFrom), which extracts the fields it matches on too.
func droidSelection(name string, fields []string, droid string, lean bool) store.Query {
	if lean {
		name += "\x00lean"
	}
	return store.Query{Name: name, Query: jsonl.Query{
		Fields: fields,
		Static: func(f [][]byte) bool { return jsonline.StringEquals(f[0], droid) },
		// Set here, not left to the store's default, for LoadRaw to
		// compare the lines it reads with what was selected.
		Versions: records.Versions,
		Lean:     lean,
	}}
}

// newestFrom is newest with a lean selection (which caches only the
// fields it filters and orders by, and reads the lines it returns from
// the log) or not. It visits the selection rather than holding it, and
// keeps only the Limit newest messages seen so far: an inbox of 50,000
// messages printed 20 at a time copies a few hundred and decodes 20.
func (m *Store) newestFrom(name, field, droid string, o InboxOptions, lean bool) (Page, error) {
	const created, deleted, read = 1, 2, 3
	sq := droidSelection(name, []string{field, "created_at", "deleted", "read"}, droid, lean)
	q := sq.Query
	var page Page
	var best newestList
	best.limit = o.Limit
	problems, err := m.S.Visit(records.MessagesFile, sq, func(e *jsonl.Entry) error {
		if string(e.Fields[deleted]) == "true" || (o.UnreadOnly && string(e.Fields[read]) == "true") {
			return nil
		}
		t, ok := records.ParseTime(e.Fields[created])
		if !ok {
			// Decoding the whole line says what is wrong with it.
			raw, err := jsonl.LoadRaw(*e, q)
			if err != nil {
				return err
			}
			full := *e
			full.Raw = raw
			if _, err := decodeLine(full); err != nil {
				page.Problems = append(page.Problems, problemOf(*e, err))
				return nil
			}
		}
		if t.Before(o.Since) {
			return nil
		}
		best.offer(e, t)
		return nil
	})
	if err != nil {
		return Page{}, err
	}
	best.done()
	page.Problems = append(problems, page.Problems...)
	page.More = best.seen - len(best.list)
	page.Messages = make([]records.Message, 0, len(best.list))
	for _, c := range best.list {
		raw, err := jsonl.LoadRaw(c.e, q)
		if err != nil {
			return Page{}, err
		}
		e := c.e
		e.Raw = raw
		msg, err := decodeLine(e)
		if err != nil {
			page.Problems = append(page.Problems, problemOf(c.e, err))
			continue
		}
		page.Messages = append(page.Messages, msg)
	}
	return page, nil
}

// candidate is a message newestList keeps, with its creation time.
type candidate struct {
	e       jsonl.Entry
	created time.Time
}

// order compares the message created at t with id to b in a list newest
// first (by creation time, then by id): negative when it comes before b.
func order(t time.Time, id string, b *candidate) int {
	if c := b.created.Compare(t); c != 0 {
		return c
	}
	return strings.Compare(b.e.ID, id)
}

// newestList keeps the limit newest of the messages offered (all of them
// when limit is 0), and counts the messages offered. Offers are appended,
// and the list is sorted and cut to limit once it holds twice as many, and
// by done: an inbox of 150,000 messages kept in order one insertion at a
// time moved every kept message for each new one (55 s).
type newestList struct {
	limit int
	list  []candidate
	seen  int
	// floor is, once a cut dropped messages, the oldest kept: no message
	// older than it can be among the limit newest.
	floor *candidate
}

// offer considers e, which is valid only during the call.
func (l *newestList) offer(e *jsonl.Entry, created time.Time) {
	l.seen++
	if l.floor != nil && order(created, e.ID, l.floor) >= 0 {
		return // no newer than the oldest kept
	}
	if len(l.list) == cap(l.list) {
		l.list = append(l.list, candidate{})
	} else {
		l.list = l.list[:len(l.list)+1] // a dropped candidate's buffers take the copy
	}
	c := &l.list[len(l.list)-1]
	jsonl.CopyEntry(&c.e, e)
	c.created = created
	if l.limit > 0 && len(l.list) >= 2*l.limit {
		l.done()
	}
}

// done puts the list in order, newest first, and cuts it to limit.
func (l *newestList) done() {
	slices.SortFunc(l.list, func(a, b candidate) int { return order(a.created, a.e.ID, &b) })
	if l.limit > 0 && len(l.list) > l.limit {
		l.list = l.list[:l.limit]
		oldest := &l.list[l.limit-1]
		l.floor = &candidate{e: jsonl.Entry{ID: oldest.e.ID}, created: oldest.created}
	}
}
