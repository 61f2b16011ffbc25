package messages

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/git-queen/git-queen/internal/base/jsonline"
	"github.com/git-queen/git-queen/internal/format/records"
	"github.com/git-queen/git-queen/internal/storage/jsonl"
	"github.com/git-queen/git-queen/internal/storage/store"
)

// MarkRead appends the read version of a message when reader is its
// recipient and it is unread. It returns the message as it now stands and
// whether a version was written. Reading someone else's message changes
// nothing.
func (m *Store) MarkRead(id, reader string) (records.Message, bool, error) {
	return m.markRead(id, reader, true)
}

// MarkUnread is MarkRead's undoing: the unread version of a message read,
// for a wait whose answer never reached the droid (the MCP call was
// cancelled after the wait marked it), which would otherwise never see it.
func (m *Store) MarkUnread(id, reader string) (records.Message, bool, error) {
	return m.markRead(id, reader, false)
}

// markRead appends the version of a message that reader, its recipient,
// has read it or not; nothing when it already says so.
func (m *Store) markRead(id, reader string, read bool) (records.Message, bool, error) {
	return m.amend(id, func(msg *records.Message, raw []byte) ([]jsonl.Field, error) {
		if msg.To != reader || msg.Read == read {
			return nil, nil
		}
		now := m.S.Now()
		updated, readAt := records.Successor(now, raw), &now
		if !read {
			readAt = nil
		}
		msg.Read, msg.ReadAt, msg.UpdatedAt, msg.UpdatedBy = read, readAt, &updated, reader
		return []jsonl.Field{{Name: "read", Value: read}, {Name: "read_at", Value: readAt},
			{Name: "updated_at", Value: updated}, {Name: "updated_by", Value: reader}}, nil
	})
}

// Delete soft-deletes a message: a new version with deleted set, which
// hides it from inboxes and threads. Only its sender or recipient may.
func (m *Store) Delete(id, droid string) (records.Message, error) {
	msg, _, err := m.amend(id, func(msg *records.Message, raw []byte) ([]jsonl.Field, error) {
		if droid != msg.To && droid != msg.From {
			return nil, fmt.Errorf("message %s is from %s to %s; only they can delete it", id, msg.From, msg.To)
		}
		if msg.Deleted {
			return nil, fmt.Errorf("message %s is already deleted", id)
		}
		updated := records.Successor(m.S.Now(), raw)
		msg.Deleted, msg.UpdatedAt, msg.UpdatedBy = true, &updated, droid
		return []jsonl.Field{{Name: "deleted", Value: true}, {Name: "updated_at", Value: updated}, {Name: "updated_by", Value: droid}}, nil
	})
	return msg, err
}

// amend writes, under the lock, the next version of message id: change
// gets its current version and line, makes of the message what the new
// version says, and returns the fields to set (none: nothing is written).
// The version is checked by the rules every version obeys. It returns
// the message as it then stands and whether a version was written.
func (m *Store) amend(id string, change func(msg *records.Message, raw []byte) ([]jsonl.Field, error)) (records.Message, bool, error) {
	var msg records.Message
	wrote := false
	err := m.S.Update(func(tx *jsonl.Tx) error {
		cur, raw, err := m.Get(id)
		if err != nil {
			return err
		}
		msg = cur
		fields, err := change(&msg, raw)
		if err != nil || len(fields) == 0 {
			return err
		}
		line, err := jsonl.SetFields(raw, fields...)
		if err != nil {
			return fmt.Errorf("message %s: %w", id, err)
		}
		if line, err = records.CheckedNext(records.MessagesFile, raw, line); err != nil {
			return err
		}
		err = tx.Append(m.S.Log(records.MessagesFile), line)
		wrote = err == nil
		return err
	})
	return msg, wrote, err
}

// Reply sends a message back to the parent's sender, in its thread. An
// empty subject becomes "Re: " and the parent's subject (cut to fit).
func (m *Store) Reply(parentID string, d Draft) ([]records.Message, error) {
	parent, _, err := m.Get(parentID)
	if err != nil {
		return nil, err
	}
	if d.To == "" {
		d.To, d.literalTo = parent.From, true
		if d.To == d.From {
			d.To = parent.To // replying to one's own message continues to its recipient
		}
	}
	if strings.TrimSpace(d.Subject) == "" {
		d.Subject = parent.Subject
		if !strings.HasPrefix(d.Subject, "Re: ") {
			d.Subject = "Re: " + d.Subject
		}
		d.Subject = records.Clip(d.Subject, records.MaxSubject)
	}
	d.IssueID = cmp.Or(d.IssueID, parent.IssueID)
	d.ReplyTo = parentID
	return m.Send(d)
}

// KnownDroids lists every droid named anywhere in the stores (senders,
// recipients, assignees and who assigned them, reservation holders, and
// whoever wrote a version; not a droid's presence records), sorted: the droids this repository has seen,
// the recipients of @all and the names a typed recipient is checked
// against.
func KnownDroids(s *store.Store) ([]string, error) {
	names := map[string]bool{}
	for _, src := range records.Kinds {
		// A presence record (package roster) names a droid that ran a
		// command, not one that wrote or was sent something: it makes
		// the droid a valid --to (seen finds it), not a recipient of @all.
		fields := append(slices.Clone(src.DroidFields), "presence")
		sel, err := s.Select(src.File, store.Query{Name: "droids-v2\x00" + strings.Join(fields, ","), Query: jsonl.Query{Fields: fields,
			Static: func(f [][]byte) bool { return f[len(f)-1] == nil }}})
		if err != nil {
			return nil, err
		}
		for _, e := range sel.Entries {
			for _, f := range e.Fields {
				var name string
				if json.Unmarshal(f, &name) == nil && records.ValidateDroid(name) == nil {
					names[name] = true
				}
			}
		}
	}
	return slices.Sorted(maps.Keys(names)), nil
}

// Archivable selects, for `git queen archive --before`, the messages created
// before the cutoff, presence records aside. Every version of a selected
// message moves.
func Archivable(before time.Time) func(jsonl.Record) bool {
	return func(r jsonl.Record) bool {
		if records.IsPresence(r.Raw) {
			return false // a droid's sighting is current state, whenever it began
		}
		// Most messages of a large store are newer than the cutoff, and
		// their created_at alone says they stay: the decode would read it
		// the same way and come to the same answer.
		var created [1][]byte
		if jsonline.ObjectFields(r.Raw, createdAt, created[:]) == nil {
			if t, ok := records.ParseTime(created[0]); ok && !t.Before(before) {
				return false
			}
		}
		msg, err := records.DecodeMessage(r.Raw) // encoding/json's result, at the scanner's speed
		return err == nil && msg.CreatedAt.Before(before)
	}
}

var createdAt = []string{"created_at"}
