package crc32c

import (
	"hash/crc32"
	"math/rand/v2"
	"testing"
)

// TestSoftwareAgreesWithHashCRC32 compares the slicing-by-8 path with
// hash/crc32's Castagnoli sums over random data, lengths, alignments and
// starting sums, and Update across the budget: both paths must give
// every caller the same sum.
func TestSoftwareAgreesWithHashCRC32(t *testing.T) {
	castagnoli := crc32.MakeTable(crc32.Castagnoli)
	rng := rand.New(rand.NewPCG(1, 2))
	data := make([]byte, 2*budget)
	for i := range data {
		data[i] = byte(rng.Uint32())
	}
	for range 2000 {
		from := rng.IntN(64)
		b := data[from : from+rng.IntN(1<<14)]
		start := rng.Uint32()
		want := crc32.Update(start, castagnoli, b)
		if got := slicingUpdate(start, software(), b); got != want {
			t.Fatalf("software sum of %d bytes from %08x = %08x, want %08x", len(b), start, got, want)
		}
	}
	for _, s := range []string{"", "a", "123456789", "0123456789abcdef!"} {
		if got, want := slicingUpdate(0, software(), []byte(s)), crc32.Checksum([]byte(s), castagnoli); got != want {
			t.Errorf("software sum of %q = %08x, want %08x", s, got, want)
		}
	}
	// Through Update, the running sum of a long input in pieces stays
	// right as the budget runs out and the hardware path takes over.
	var crc uint32
	for off := 0; off < len(data); {
		n := min(len(data)-off, 1+rng.IntN(9000))
		crc = Update(crc, data[off:off+n])
		off += n
	}
	if used.Load() < budget {
		t.Fatalf("the test spent %d bytes of a %d budget: it did not reach the hardware path", used.Load(), budget)
	}
	if want := crc32.Checksum(data, castagnoli); crc != want {
		t.Fatalf("Update in pieces = %08x, want %08x", crc, want)
	}
	if got, want := Checksum(data[:100]), crc32.Checksum(data[:100], castagnoli); got != want {
		t.Fatalf("Checksum past the budget = %08x, want %08x", got, want)
	}
}

func BenchmarkSoftware(b *testing.B) {
	data := make([]byte, 4096)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		slicingUpdate(0, software(), data)
	}
}

func BenchmarkHardware(b *testing.B) {
	data := make([]byte, 4096)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		crc32.Update(0, hardware(), data)
	}
}

func BenchmarkMakeTables(b *testing.B) {
	b.Run("software", func(b *testing.B) {
		for b.Loop() {
			slicingTables()
		}
	})
}
