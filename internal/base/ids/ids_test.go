package ids

import (
	"strings"
	"testing"
	"time"
)

func TestNewIsPrefixedAndMonotonic(t *testing.T) {
	prev := ""
	for i := range 20000 {
		id := NewMessage()
		if !strings.HasPrefix(id, "qm-") || len(id) != 3+26 {
			t.Fatalf("id %q", id)
		}
		if id <= prev {
			t.Fatalf("id %d not increasing: %s after %s", i, id, prev)
		}
		prev = id
	}
	for _, id := range []string{NewAssignment(), NewReservation()} {
		if p, _, err := Parse(id); err != nil || (p != AssignmentPrefix && p != ReservationPrefix) {
			t.Fatalf("Parse(%s) = %q, %v", id, p, err)
		}
	}
}

func TestParse(t *testing.T) {
	before := time.Now().Add(-time.Second)
	p, u, err := Parse(NewReservation())
	if err != nil || p != "qr-" || Time(u).Before(before) {
		t.Fatalf("Parse: %q %v %v", p, Time(u), err)
	}
	for _, bad := range []string{"qm-", "qm-not-a-ulid", "qm-01HZ1A2B3C", "qm-8ZZZZZZZZZZZZZZZZZZZZZZZZZ", "qm-01HZ1A2B3C4D5E6F7G8H9J0KLU"} {
		if _, _, err := Parse(bad); err == nil {
			t.Errorf("Parse(%q) accepted an invalid ULID", bad)
		}
	}
}
