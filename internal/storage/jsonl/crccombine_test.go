package jsonl

import (
	"hash/crc32"
	"math/rand/v2"
	"testing"
)

func TestCombineJoinsTwoCRCs(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range 200 {
		a := make([]byte, rng.IntN(3000))
		b := make([]byte, rng.IntN(3000))
		for i := range a {
			a[i] = byte(rng.Uint32())
		}
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
		whole := append(append([]byte{}, a...), b...)
		for _, poly := range []struct {
			p   uint32
			tab *crc32.Table
		}{{crc32.Castagnoli, crc32.MakeTable(crc32.Castagnoli)}, {crc32.IEEE, crc32.IEEETable}} {
			got := CombineCRC(crc32.Checksum(a, poly.tab), crc32.Checksum(b, poly.tab), int64(len(b)), poly.p)
			if want := crc32.Checksum(whole, poly.tab); got != want {
				t.Fatalf("poly %08x, %d + %d bytes: combined %08x, want %08x", poly.p, len(a), len(b), got, want)
			}
		}
	}
}

// Lengths of many bits (a log's tail of megabytes) combine as short ones.
func TestCombineJoinsALongTail(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	whole := make([]byte, 9<<20+12345)
	for i := range whole {
		whole[i] = byte(rng.Uint32())
	}
	tab := crc32.MakeTable(crc32.Castagnoli)
	for _, cut := range []int{1, 4096, 1 << 20, len(whole) - 1} {
		a, b := whole[:cut], whole[cut:]
		got := CombineCRC(crc32.Checksum(a, tab), crc32.Checksum(b, tab), int64(len(b)), crc32.Castagnoli)
		if want := crc32.Checksum(whole, tab); got != want {
			t.Fatalf("%d + %d bytes: combined %08x, want %08x", len(a), len(b), got, want)
		}
	}
}
