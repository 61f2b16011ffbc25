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
