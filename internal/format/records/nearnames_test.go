package records

import (
	"slices"
	"testing"
)

func TestEditDistance(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		d    int
	}{
		{"ann", "ann", 0}, {"ann", "anne", 1}, {"bob", "obb", 1}, {"cat", "dog", 3}, {"kitten", "sitting", 3},
		{"ünï", "uni", 2}, {"", "abc", 3}, {"ab", "ba", 1},
	} {
		if got := editDistance(tt.a, tt.b, 5); got != tt.d {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.d)
		}
		if got := editDistance(tt.a, tt.b, tt.d-1); tt.d > 0 && got != tt.d {
			t.Errorf("editDistance(%q, %q) with limit %d = %d, want %d (over the limit)", tt.a, tt.b, tt.d-1, got, tt.d)
		}
	}
}

// Only the closest names are suggested, and only when they are close.
func TestNearNames(t *testing.T) {
	known := []string{"ann", "anna", "bob", "droid-0", "droid-1", "droid-5", "droid-10", "Zoë"}
	for _, tt := range []struct {
		name string
		want []string
	}{
		{"anne", []string{"ann", "anna"}},
		{"droid-5x", []string{"droid-5"}},
		{"droid-7", []string{"droid-0", "droid-1", "droid-5"}},
		{"BOB", []string{"bob"}},
		{"zoe", []string{"Zoë"}},
		{"xyz", nil},
		{"a", nil},
	} {
		if got := NearNames(tt.name, known); !slices.Equal(got, tt.want) {
			t.Errorf("NearNames(%q) = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// A likely typo is a near name that is not the name itself, nor another
// number of the same series; a sibling of the series does not hide a
// typo that is one edit further.
func TestMistyped(t *testing.T) {
	known := []string{"alice", "agent-2", "agent-10", "bob", "ann"}
	for _, tt := range []struct {
		name string
		want []string
	}{
		{"alcie", []string{"alice"}},
		{"Alice", []string{"alice"}},
		{"alice", nil},
		{"agent-3", nil},
		{"agent-100", nil},
		{"Agent-2", []string{"agent-2"}},
		{"agnet-2", []string{"agent-2"}},
		{"anne", []string{"ann"}},
		{"zed", nil},
	} {
		if got := Mistyped(tt.name, known); !slices.Equal(got, tt.want) {
			t.Errorf("Mistyped(%q) = %v, want %v", tt.name, got, tt.want)
		}
	}
	if got := Mistyped("slot1", []string{"slot2", "slto1"}); !slices.Equal(got, []string{"slto1"}) {
		t.Errorf("Mistyped(slot1) beside slot2 and slto1 = %v, want [slto1]", got)
	}
}
