package gitrepo

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"sort"
	"strings"

	"github.com/git-queen/git-queen/internal/base/mapfile"
)

// packFile is a pack and its version 2 index: a fan-out table, the sorted
// object ids, their CRCs, and their offsets (large ones in a second table).
type packFile struct {
	path  string
	data  []byte
	count int
	idx   []byte
	unmap []func()
	// mapped says data is a mapping, whose pages Forget may drop (not
	// bytes read into memory, which it would lose).
	mapped bool
}

func openPack(idxPath string) (*packFile, error) {
	if !mapfile.Mapped {
		// Reading a pack of gigabytes for a few trees costs more than git.
		return nil, fmt.Errorf("%w: no mmap here", errUnsupported)
	}
	p := &packFile{path: strings.TrimSuffix(idxPath, ".idx") + ".pack"}
	// Both can be large, and a lookup touches a few pages of each.
	idx, unmapIdx, err := mapfile.Open(idxPath, false)
	if err != nil {
		return nil, err
	}
	p.unmap = append(p.unmap, unmapIdx)
	const header = 8 + 256*4
	if len(idx) < header || !bytes.Equal(idx[:8], []byte{0xff, 't', 'O', 'c', 0, 0, 0, 2}) {
		p.close()
		return nil, fmt.Errorf("%s: %w: pack index version", idxPath, errUnsupported)
	}
	p.idx, p.count = idx, int(binary.BigEndian.Uint32(idx[8+255*4:]))
	if len(idx) < header+p.count*(oidLen+4+4)+2*oidLen {
		p.close()
		return nil, fmt.Errorf("%s: pack index truncated", idxPath)
	}
	data, info, unmap, err := mapfile.OpenInfo(p.path, false)
	if err != nil {
		p.close()
		return nil, err
	}
	p.data, p.mapped, p.unmap = data, info != nil, append(p.unmap, unmap)
	return p, nil
}

// find returns the offset of oid in the pack.
func (p *packFile) find(oid []byte) (int64, bool) {
	const fanout = 8
	lo := 0
	if oid[0] > 0 {
		lo = int(binary.BigEndian.Uint32(p.idx[fanout+(int(oid[0])-1)*4:]))
	}
	hi := int(binary.BigEndian.Uint32(p.idx[fanout+int(oid[0])*4:]))
	if hi > p.count || lo > hi {
		return 0, false
	}
	ids := p.idx[fanout+256*4:]
	id := func(i int) []byte { return ids[i*oidLen : (i+1)*oidLen] }
	i := lo + sort.Search(hi-lo, func(i int) bool { return bytes.Compare(id(lo+i), oid) >= 0 })
	if i < hi && bytes.Equal(id(i), oid) {
		return p.offset(i)
	}
	return 0, false
}

// offset reads the i-th object's offset, from the large-offset table when
// its high bit says so.
func (p *packFile) offset(i int) (int64, bool) {
	offsets := 8 + 256*4 + p.count*(oidLen+4)
	off := binary.BigEndian.Uint32(p.idx[offsets+i*4:])
	if off&0x80000000 == 0 {
		return int64(off), int64(off) < int64(len(p.data))
	}
	large := offsets + p.count*4 + int(off&0x7fffffff)*8
	if large+8 > len(p.idx)-2*oidLen {
		return 0, false
	}
	big := int64(binary.BigEndian.Uint64(p.idx[large:]))
	return big, big >= 0 && big < int64(len(p.data))
}

func (p *packFile) close() {
	for _, unmap := range p.unmap {
		unmap()
	}
}
