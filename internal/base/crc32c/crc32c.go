// Package crc32c computes CRC-32C (Castagnoli), the checksum of git-queen's
// log indexes and caches, at a cost a short-lived process can afford.
//
// hash/crc32 makes its Castagnoli tables the first time they are asked
// for, by hashing 1.5 MB: 0.2 ms, a twentieth of a `msg send`, which
// checksums a few kilobytes of index. So the first budget bytes a process
// checksums go through a slicing-by-8 table made in a few microseconds;
// past that, hash/crc32's hardware path, whose making then pays for
// itself. Both give the same sums.
package crc32c

import (
	"encoding/binary"
	"hash/crc32"
	"sync"
	"sync/atomic"
)

// budget is how many bytes a process checksums in software before it
// makes hash/crc32's tables: about what the software path hashes in the
// time those tables take to make.
const budget = 128 << 10

var (
	hardware = sync.OnceValue(func() *crc32.Table { return crc32.MakeTable(crc32.Castagnoli) })
	software = sync.OnceValue(slicingTables)
	used     atomic.Int64
)

// Checksum is the CRC-32C of b.
func Checksum(b []byte) uint32 { return Update(0, b) }

// Update is the CRC-32C of the bytes whose CRC-32C is crc, followed by b.
func Update(crc uint32, b []byte) uint32 {
	if n := int64(len(b)); n <= budget && used.Load() < budget {
		used.Add(n)
		return slicingUpdate(crc, software(), b)
	}
	return crc32.Update(crc, hardware(), b)
}

// slicingTables are the eight tables of the slicing-by-8 algorithm for
// the Castagnoli polynomial: t[0] is the classic byte table, t[k][i] the
// sum of byte i followed by k zero bytes.
func slicingTables() *[8][256]uint32 {
	t := new([8][256]uint32)
	for i := range 256 {
		crc := uint32(i)
		for range 8 {
			if crc&1 == 1 {
				crc = crc>>1 ^ crc32.Castagnoli
			} else {
				crc >>= 1
			}
		}
		t[0][i] = crc
	}
	for i := range 256 {
		crc := t[0][i]
		for k := 1; k < 8; k++ {
			crc = t[0][crc&0xff] ^ crc>>8
			t[k][i] = crc
		}
	}
	return t
}

func slicingUpdate(crc uint32, t *[8][256]uint32, b []byte) uint32 {
	crc = ^crc
	for len(b) >= 8 {
		crc ^= binary.LittleEndian.Uint32(b)
		hi := binary.LittleEndian.Uint32(b[4:])
		crc = t[7][crc&0xff] ^ t[6][crc>>8&0xff] ^ t[5][crc>>16&0xff] ^ t[4][crc>>24] ^
			t[3][hi&0xff] ^ t[2][hi>>8&0xff] ^ t[1][hi>>16&0xff] ^ t[0][hi>>24]
		b = b[8:]
	}
	for _, c := range b {
		crc = t[0][byte(crc)^c] ^ crc>>8
	}
	return ^crc
}
