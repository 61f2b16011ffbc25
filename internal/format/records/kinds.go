package records

import "path"

// File names of the stores' logs, in the live store, in received/, in the
// ledger's tree and in .beads/. Only this file spells them and the
// ledger's directories (spelling_test.go checks): everything else reads
// them here or from Kinds.
const (
	MessagesFile     = "queen_messages.jsonl"
	AssignmentsFile  = "queen_assignments.jsonl"
	ReservationsFile = "queen_reservations.jsonl"
)

// Kind is one store kind: a log of one record type, and every name the
// rest of git-queen knows it by. Adding a store is one row of Kinds plus
// its record type: its struct and logKind here, its schema format, its
// package (the writes, and which records `archive` moves).
type Kind struct {
	// Name names the kind to users and in sync's counts ("messages").
	Name string
	// File is the log's file name (MessagesFile...).
	File string
	// LedgerDir is the directory that holds the log in the ledger's tree
	// (refs/queen/ledger). It is the ledger's format: never change it.
	LedgerDir string
	// Legacy says that setups older than the live store kept the log, by
	// the same name, in .beads/ (and committed it): `git queen init`
	// imports it from there.
	Legacy bool
	// SeedArchive is a glob of the other files of seed 002's .beads/
	// layout that hold the kind's records (QueenBee's archive), "" for
	// none. git-queen's own archives (jsonl.ArchivePath) are found apart.
	SeedArchive string
	// Format is the log's format in internal/format/schema (validate, the hook).
	Format string
	// Merge is the merge strategy of the log, the name of a merge.Format
	// (the merge driver, resolve).
	Merge string
	// DroidFields are the fields of its records that name a droid.
	DroidFields []string
	// record is its field layout and rules for CheckVersion.
	record *logKind
}

// queenMerge is merge.Queen: the union of record versions by id, each
// record's current version last.
const queenMerge = "queen"

// Kinds is the table of store kinds, in the order logs are listed,
// synced and exported.
var Kinds = []Kind{
	{Name: "messages", File: MessagesFile, LedgerDir: "messages", Legacy: true,
		SeedArchive: "queen_messages_archive*.jsonl", Format: "queen-message", Merge: queenMerge,
		DroidFields: []string{"from", "to", "updated_by"}, record: messageKind},
	{Name: "assignments", File: AssignmentsFile, LedgerDir: "assignments", Legacy: true,
		Format: "queen-assignment", Merge: queenMerge,
		DroidFields: []string{"droid", "assigned_by", "updated_by"}, record: assignmentKind},
	{Name: "reservations", File: ReservationsFile, LedgerDir: "reservations", Legacy: true,
		Format: "queen-reservation", Merge: queenMerge,
		DroidFields: []string{"droid", "updated_by"}, record: reservationKind},
}

// IDPrefix is the prefix of the kind's record ids (ids.MessagePrefix...).
func (k Kind) IDPrefix() string { return k.record.prefix }

// KindOf is the kind whose log is named file (a base name; not an
// archive).
func KindOf(file string) (Kind, bool) {
	for _, k := range Kinds {
		if k.File == file {
			return k, true
		}
	}
	return Kind{}, false
}

// LogFiles lists the file names of every kind's log, in the order of
// Kinds.
func LogFiles() []string {
	files := make([]string, len(Kinds))
	for i, k := range Kinds {
		files[i] = k.File
	}
	return files
}

// holdsVersions reports whether file, a base name, holds versions of the
// kind's records that CheckVersion judges: its log, or a seed archive.
func (k Kind) holdsVersions(file string) bool {
	if file == k.File {
		return true
	}
	matched, _ := path.Match(k.SeedArchive, file)
	return k.SeedArchive != "" && matched
}
