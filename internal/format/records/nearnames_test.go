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
