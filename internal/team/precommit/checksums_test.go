package precommit

import (
	"hash/crc32"
	"math/rand/v2"
	"runtime"
	"testing"
)

func TestChecksumsAreTheCRCsOfTheWhole(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	data := make([]byte, 3*parallelChecksums+12345)
	for i := range data {
		data[i] = byte(rng.Uint32())
	}
	for _, procs := range []int{1, 2, 3, 4} {
		old := runtime.GOMAXPROCS(procs)
		for _, n := range []int{0, 1, checksumSlice - 1, checksumSlice + 1, 2*parallelChecksums - 1, 2 * parallelChecksums, len(data)} {
			want := [2]uint32{crc32.Checksum(data[:n], crc32.MakeTable(crc32.Castagnoli)), crc32.ChecksumIEEE(data[:n])}
			if got := checksums(data[:n]); got != want {
				t.Errorf("%d bytes on %d cores: checksums %08x, want %08x", n, procs, got, want)
			}
		}
		runtime.GOMAXPROCS(old)
	}
}

// TestSumsInPiecesAreTheSumsOfTheWhole: the checksums of a staged log
// taken a window at a time (windowedChecksums), or as gitrepo hands the
// bytes over in pieces of any size (runningSums, with the sum of a prefix
// taken on the way), are those of the whole.
func TestSumsInPiecesAreTheSumsOfTheWhole(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	data := make([]byte, checksumWindow+parallelChecksums+777)
	for i := range data {
		data[i] = byte(rng.Uint32())
	}
	forgotten := 0
	if got, want := windowedChecksums(data, func(w []byte) { forgotten += len(w) }), checksums(data); got != want || forgotten != len(data) {
		t.Fatalf("windowed %08x, want %08x; %d of %d bytes handed to forget", got, want, forgotten, len(data))
	}
	rounds := 20
	if testing.Short() {
		rounds = 5
	}
	for range rounds {
		at := rng.Int64N(int64(len(data)) + 1)
		r := &runningSums{at: at}
		for rest := data; len(rest) > 0; {
			n := min(len(rest), 1+rng.IntN(3*checksumSlice))
			r.Write(rest[:n])
			rest = rest[n:]
		}
		if r.n != int64(len(data)) || r.sum != checksums(data) || r.atSum != checksums(data[:at]) {
			t.Fatalf("prefix %d: sums %08x and %08x, want %08x and %08x", at, r.sum, r.atSum, checksums(data), checksums(data[:at]))
		}
		r.Reset()
		if r.n != 0 || r.at != at || r.sum != [2]uint32{} {
			t.Fatalf("Reset left %+v", r)
		}
	}
}
