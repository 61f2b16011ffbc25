package ledger

import (
	"bytes"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/git-queen/git-queen/internal/format/records"
	gitobject "github.com/git-queen/git-queen/internal/gitrepo/object"
)

// object writes raw content as an object of the given type, as a hostile
// clone could push it (git hash-object --literally takes anything).
func object(t *testing.T, repo, kind string, content []byte) gitobject.ID {
	t.Helper()
	cmd := exec.Command("git", "hash-object", "-t", kind, "-w", "--literally", "--stdin")
	cmd.Dir = repo
	cmd.Stdin = bytes.NewReader(content)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("hash-object: %v", err)
	}
	id, ok := gitobject.ParseHex(strings.TrimSpace(string(out)))
	if !ok {
		t.Fatalf("hash-object printed %q, not an object id", out)
	}
	return id
}

// missingID is an object id no repository of a test holds.
var missingID, _ = gitobject.ParseHex(strings.Repeat("ab", 20))

// rawTree is a tree object's content from "MODE NAME" and ids, in the
// order given (a hostile tree need not be sorted).
func rawTree(entries ...any) []byte {
	var b bytes.Buffer
	for i := 0; i < len(entries); i += 2 {
		h := entries[i+1].(gitobject.ID)
		fmt.Fprintf(&b, "%s\x00", entries[i])
		b.Write(h[:])
	}
	return b.Bytes()
}

func commitOf(t *testing.T, repo string, tree gitobject.ID, parents ...gitobject.ID) gitobject.ID {
	t.Helper()
	var b strings.Builder
	fmt.Fprintf(&b, "tree %s\n", tree)
	for _, p := range parents {
		fmt.Fprintf(&b, "parent %s\n", p)
	}
	b.WriteString("author m <m@x> 1764000000 +0000\ncommitter m <m@x> 1764000000 +0000\n\nhostile\n")
	return object(t, repo, "commit", []byte(b.String()))
}

// Every shape a push can give the ledger that git-queen does not write is
// a DamageError that names where it is and why, from Inspect, from the
// walk that applies records and from the merge; never a panic, never a
// generic error that would stop a command.
func TestDamagedLedgersAreNamed(t *testing.T) {
	l, repo := open(t)
	nov := time.Date(2026, 11, 3, 0, 0, 0, 0, time.UTC)
	good, err := l.Record(gitobject.ZeroID, Lines{records.ReservationsFile: {msg("qr-1", nov, "a")}}, sig, "good")
	if err != nil {
		t.Fatal(err)
	}
	format := object(t, repo, "blob", []byte(formatLine))
	chunk := object(t, repo, "blob", append(msg("qr-2", nov, "b"), '\n'))
	hundred := object(t, repo, "tree", rawTree("100644 00.jsonl", chunk))
	month := object(t, repo, "tree", rawTree("40000 000", hundred))
	log := object(t, repo, "tree", rawTree("40000 2026-11", month))
	sound := func(extra ...any) gitobject.ID {
		return object(t, repo, "tree", rawTree(append([]any{"100644 FORMAT", format}, extra...)...))
	}
	big := object(t, repo, "blob", bytes.Repeat([]byte("x"), MaxChunkBytes+1))
	emptyTree := object(t, repo, "tree", nil)
	tooWide := make([]any, 0, 6000)
	for i := range 3000 {
		tooWide = append(tooWide, fmt.Sprintf("40000 %04d-01", 1000+i), month)
	}
	cases := []struct {
		name, path, reason string
		tip                func() gitobject.ID
	}{
		{"a blob as the ref", "", "a blob where a commit belongs", func() gitobject.ID { return format }},
		{"a tree as the ref", "", "a tree where a commit belongs", func() gitobject.ID { return emptyTree }},
		{"a commit of garbage", "", "header is not one git writes", func() gitobject.ID {
			return object(t, repo, "commit", []byte("hello\n"))
		}},
		{"a commit naming a missing tree", "", "missing", func() gitobject.ID {
			return commitOf(t, repo, missingID)
		}},
		{"a commit whose tree is a blob", "", "a blob where a tree belongs", func() gitobject.ID { return commitOf(t, repo, chunk) }},
		{"a gitlink in the root", "messages", "gitlink", func() gitobject.ID {
			return commitOf(t, repo, sound("160000 messages", good, "40000 reservations", log), good)
		}},
		{"a blob where a log's directory belongs", "reservations", "mode 100644", func() gitobject.ID {
			return commitOf(t, repo, sound("100644 reservations", chunk), good)
		}},
		{"an unknown name in the root", "junk", "not a part of the ledger", func() gitobject.ID {
			return commitOf(t, repo, sound("40000 junk", log), good)
		}},
		{"a month that is not one", "reservations/2026-13", "not a name git-queen writes", func() gitobject.ID {
			return commitOf(t, repo, sound("40000 reservations", object(t, repo, "tree", rawTree("40000 2026-13", month))), good)
		}},
		{"a symlink for a chunk", "reservations/2026-11/000/00.jsonl", "symbolic link", func() gitobject.ID {
			h := object(t, repo, "tree", rawTree("120000 00.jsonl", chunk))
			m := object(t, repo, "tree", rawTree("40000 000", h))
			return commitOf(t, repo, sound("40000 reservations", object(t, repo, "tree", rawTree("40000 2026-11", m))))
		}},
		{"a group-writable chunk (git reads 100664 as 100644; the ledger keeps the mode written)", "reservations/2026-11/000/00.jsonl", "has mode 100664 (a file), not 100644", func() gitobject.ID {
			h := object(t, repo, "tree", rawTree("100664 00.jsonl", chunk))
			m := object(t, repo, "tree", rawTree("40000 000", h))
			return commitOf(t, repo, sound("40000 reservations", object(t, repo, "tree", rawTree("40000 2026-11", m))))
		}},
		{"a chunk over the bound", "reservations/2026-11/000/00.jsonl", "more than a ledger chunk may have", func() gitobject.ID {
			h := object(t, repo, "tree", rawTree("100644 00.jsonl", big))
			m := object(t, repo, "tree", rawTree("40000 000", h))
			return commitOf(t, repo, sound("40000 reservations", object(t, repo, "tree", rawTree("40000 2026-11", m))))
		}},
		{"a tree listing a name twice", "reservations", "out of order or twice", func() gitobject.ID {
			return commitOf(t, repo, sound("40000 reservations", object(t, repo, "tree", rawTree("40000 2026-11", month, "40000 2026-11", month))))
		}},
		{"a tree out of order", "reservations", "out of order or twice", func() gitobject.ID {
			return commitOf(t, repo, sound("40000 reservations", object(t, repo, "tree", rawTree("40000 2026-12", month, "40000 2026-11", month))))
		}},
		{"a tree over the bound", "reservations", "more than a ledger tree may have", func() gitobject.ID {
			return commitOf(t, repo, sound("40000 reservations", object(t, repo, "tree", rawTree(tooWide...))))
		}},
		{"no FORMAT", "FORMAT", "no FORMAT file", func() gitobject.ID {
			return commitOf(t, repo, object(t, repo, "tree", rawTree("40000 reservations", log)))
		}},
		{"another FORMAT", "FORMAT", "upgrade git-queen", func() gitobject.ID {
			other := object(t, repo, "blob", []byte("git-queen ledger 9\n"))
			return commitOf(t, repo, object(t, repo, "tree", rawTree("100644 FORMAT", other, "40000 reservations", log)))
		}},
		{"a truncated tree", "", "truncated or not a tree", func() gitobject.ID {
			return commitOf(t, repo, object(t, repo, "tree", []byte("100644 FORMAT\x00abc")))
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tip := c.tip()
			_, err := l.Inspect(good, tip)
			var d *DamageError
			if !errors.As(err, &d) {
				t.Fatalf("Inspect: %v, want a DamageError", err)
			}
			if d.Commit != tip || d.Path != c.path || !strings.Contains(d.Reason, c.reason) {
				t.Fatalf("Inspect: commit %s path %q reason %q; want %s, %q, %q", gitobject.Short(d.Commit), d.Path, d.Reason, gitobject.Short(tip), c.path, c.reason)
			}
			if _, err := l.EachChange(good, tip, func(string, [][]byte) error { return nil }); err != nil && !IsDamage(err) {
				t.Errorf("EachChange: %v, not a DamageError", err)
			}
			if tree, err := l.TreeOf(tip); err == nil {
				goodTree, _ := l.TreeOf(good)
				if _, err := l.MergeTrees(goodTree, tree); err != nil && !IsDamage(err) {
					t.Errorf("MergeTrees: %v, not a DamageError", err)
				}
			}
		})
	}
	t.Run("a sound commit", func(t *testing.T) {
		tip := commitOf(t, repo, sound("40000 reservations", log), good)
		n, err := l.Inspect(good, tip)
		if err != nil || n != int64(len(msg("qr-2", nov, "b"))+1) {
			t.Fatalf("Inspect: %d new bytes, %v", n, err)
		}
	})
}

// TestDamageSaysWhatTheRefNames: the error of a ledger ref that names no
// commit says what it names; of an annotated tag pushed as the ledger it
// said "ledger commit ...: a tag where a commit belongs".
func TestDamageSaysWhatTheRefNames(t *testing.T) {
	l, repo := open(t)
	good, err := l.Record(gitobject.ZeroID, Lines{records.ReservationsFile: {msg("qr-1", time.Date(2026, 11, 3, 0, 0, 0, 0, time.UTC), "a")}}, sig, "good")
	if err != nil {
		t.Fatal(err)
	}
	blob := object(t, repo, "blob", []byte("x\n"))
	for _, tt := range []struct {
		name string
		tip  gitobject.ID
		want string // the error's start, before the object's id
	}{
		{"a tag", object(t, repo, "tag", fmt.Appendf(nil, "object %s\ntype commit\ntag ledger\ntagger m <m@x> 1764000000 +0000\n\nledger\n", good)), "ledger tag "},
		{"a blob", blob, "ledger blob "},
		{"a commit whose tree is a blob", commitOf(t, repo, blob), "ledger commit "},
	} {
		_, err := l.Inspect(good, tt.tip)
		if err == nil || !strings.HasPrefix(err.Error(), tt.want+gitobject.Short(tt.tip)) {
			t.Errorf("%s as the ledger: %v; want it called %s%s", tt.name, err, tt.want, gitobject.Short(tt.tip))
		}
	}
}
