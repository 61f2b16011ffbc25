// Package ids mints the record ids of the QueenBee stores: a type prefix and
// a ULID. ULIDs sort by creation time, so a log sorted by id reads in the
// order things happened, and two droids minting ids at once never collide.
package ids

import (
	"crypto/rand"
	"strings"
	"sync"
	"time"

	"github.com/oklog/ulid/v2"
)

// The prefixes of seed 002, one per store.
const (
	MessagePrefix     = "qm-"
	AssignmentPrefix  = "qa-"
	ReservationPrefix = "qr-"
)

var (
	mu      sync.Mutex
	entropy = ulid.Monotonic(rand.Reader, 0)
)

// New returns prefix followed by a fresh ULID. Within one process the ULIDs
// strictly increase, even for ids minted in the same millisecond.
func New(prefix string) string {
	mu.Lock()
	defer mu.Unlock()
	return prefix + ulid.MustNew(ulid.Timestamp(time.Now()), entropy).String()
}

// NewMessage, NewAssignment and NewReservation mint ids for the three stores.
func NewMessage() string     { return New(MessagePrefix) }
func NewAssignment() string  { return New(AssignmentPrefix) }
func NewReservation() string { return New(ReservationPrefix) }

// Parse splits an id into its prefix and ULID, and checks the ULID. It is
// what validation and the merge driver use to tell a QueenBee id apart.
func Parse(id string) (prefix string, u ulid.ULID, err error) {
	prefix = id[:strings.IndexByte(id, '-')+1] // through the first '-', "" without one
	u, err = ulid.ParseStrict(id[len(prefix):])
	return prefix, u, err
}
