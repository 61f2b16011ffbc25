package gitrepo

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/go-git/go-git/v5/plumbing/format/packfile"
)

// objectReader reads commits and trees from the object store (loose
// objects, packs and their deltas, alternates) without starting git. It
// is only as general as the staged diff needs, and says errUnsupported
// where git would have to be asked.
type objectReader struct {
	dirs []string // the objects directory, then its alternates
	// packs are listed on first use; read may then run concurrently.
	packs     []*packFile
	listPacks sync.Once
}

// inflaters are reused: a new zlib reader costs more than a small tree.
var inflaters sync.Pool

func newObjectReader(objectsDir string) *objectReader {
	r := &objectReader{dirs: []string{objectsDir}}
	r.addAlternates(objectsDir, 0)
	return r
}

// addAlternates follows objects/info/alternates (relative paths are
// relative to the objects directory that names them).
func (r *objectReader) addAlternates(dir string, depth int) {
	data, err := os.ReadFile(filepath.Join(dir, "info", "alternates"))
	if err != nil || depth > 5 {
		return
	}
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || line[0] == '#' || line[0] == '"' {
			continue
		}
		alternate := underDir(dir, line)
		r.dirs = append(r.dirs, alternate)
		r.addAlternates(alternate, depth+1)
	}
}

// read returns an object's type and content.
func (r *objectReader) read(oid []byte) (string, []byte, error) {
	if len(oid) != oidLen {
		return "", nil, errUnsupported
	}
	p, off, loose, name := r.locate(oid)
	switch {
	case p != nil:
		return r.readPacked(p, off, 0, true)
	case loose != nil:
		kind, _, content, err := readLoose(loose, name, true)
		return kind, content, err
	}
	// Missing (a partial clone, a pack written since we listed): git knows.
	return "", nil, fmt.Errorf("%w: object %s not found", errUnsupported, name)
}

// locate finds an object: in a pack (p and its offset), else as a loose
// object (an open file the caller closes), else nowhere (git may know:
// a pack written since the packs were listed). name is its hex id.
func (r *objectReader) locate(oid []byte) (p *packFile, off int64, loose *os.File, name string) {
	for _, p := range r.packList() {
		if off, ok := p.find(oid); ok {
			return p, off, nil, ""
		}
	}
	name = hex.EncodeToString(oid)
	for _, dir := range r.dirs {
		if f, err := os.Open(filepath.Join(dir, name[:2], name[2:])); err == nil {
			return nil, 0, f, name
		}
	}
	return nil, 0, nil, name
}

// packList opens the pack indexes on first use.
func (r *objectReader) packList() []*packFile {
	r.listPacks.Do(func() {
		for _, dir := range r.dirs {
			// A pattern within the directory: its path may hold glob characters.
			packDir := filepath.Join(dir, "pack")
			idxs, _ := fs.Glob(os.DirFS(packDir), "pack-*.idx")
			for _, idx := range idxs {
				if p, err := openPack(filepath.Join(packDir, idx)); err == nil {
					r.packs = append(r.packs, p)
				}
			}
		}
	})
	return r.packs
}

// zlibFrom is a pooled zlib reader reset onto src (a new zlib reader costs
// more than a small tree); give it back with inflaters.Put.
func zlibFrom(src io.Reader) (io.ReadCloser, error) {
	z, _ := inflaters.Get().(io.ReadCloser)
	if z == nil {
		return zlib.NewReader(src)
	}
	return z, z.(zlib.Resetter).Reset(src, nil)
}

// inflate decompresses a zlib stream of size bytes.
func (r *objectReader) inflate(src io.Reader, size int) ([]byte, error) {
	z, err := zlibFrom(src)
	if err != nil {
		return nil, err
	}
	defer inflaters.Put(z)
	out := make([]byte, size)
	if _, err := io.ReadFull(z, out); err != nil {
		return nil, err
	}
	return out, nil
}

// readLoose reads the loose object f (its hex id name), and closes it:
// its type and size from its header, inflating only those few bytes, and
// with content its content, inflated into one buffer of the size the
// header gives (reading it whole with a growing buffer copied a large blob
// many times over), or as it inflates past maxObjectSize.
func readLoose(f *os.File, name string, content bool) (kind string, size int64, data []byte, err error) {
	defer f.Close()
	var src io.Reader = f
	if !content {
		src = bufio.NewReaderSize(f, 512)
	}
	z, err := zlibFrom(src)
	if err == nil {
		defer inflaters.Put(z)
		var rest []byte
		kind, size, rest, err = readLooseHeader(z)
		if err == nil && content {
			data, err = readSized(io.MultiReader(bytes.NewReader(rest), z), size)
		}
	}
	if err != nil {
		return "", 0, nil, fmt.Errorf("loose object %s: %w", name, err)
	}
	return kind, size, data, nil
}

// readLooseHeader reads a loose object's header ("blob 123\0") from z,
// its inflated bytes: the type, the size, and the content bytes read with
// the header.
func readLooseHeader(z io.Reader) (kind string, size int64, rest []byte, err error) {
	head := make([]byte, 32) // "blob 18446744073709551615\0" fits
	n, err := io.ReadFull(z, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
		return "", 0, nil, err
	}
	header, rest, ok := bytes.Cut(head[:n], []byte{0})
	kind, sizeText, ok2 := strings.Cut(string(header), " ")
	size, err = strconv.ParseInt(sizeText, 10, 64)
	if !ok || !ok2 || err != nil || size < int64(len(rest)) || size > 1<<40 {
		return "", 0, nil, errors.New("bad header")
	}
	return kind, size, rest, nil
}

// maxObjectSize bounds the commits and trees read (a damaged size must
// not allocate gigabytes); anything larger is left to git.
const maxObjectSize = 1 << 28

// readSized reads n bytes from r. A size an object claims is trusted
// only as far as its bytes arrive: no more than maxObjectSize is
// allocated before they do, so a damaged header that claims a terabyte
// is an error at the end of its few bytes, not a process out of memory.
func readSized(r io.Reader, n int64) ([]byte, error) {
	data := make([]byte, 0, min(n, maxObjectSize))
	for int64(len(data)) < n {
		if len(data) == cap(data) {
			data = slices.Grow(data, int(min(n-int64(len(data)), int64(len(data)))))
		}
		m, err := io.ReadFull(r, data[len(data):min(int64(cap(data)), n)])
		data = data[:len(data)+m]
		if errors.Is(err, io.EOF) {
			return nil, io.ErrUnexpectedEOF
		}
		if err != nil {
			return nil, err
		}
	}
	return data, nil
}

// maxDeltaDepth bounds delta chains (git's own limit is 4095).
const maxDeltaDepth = 10000

var packTypes = map[byte]string{1: "commit", 2: "tree", 3: "blob", 4: "tag"}

// readPacked reads the object at off in p: its type (a delta's is its
// base's, found by following the chain) and, with content, its content,
// deltas applied.
func (r *objectReader) readPacked(p *packFile, off int64, depth int, content bool) (string, []byte, error) {
	if depth > maxDeltaDepth {
		return "", nil, fmt.Errorf("%s: delta chain too deep", p.path)
	}
	typ, size, br, err := p.entryHeader(off)
	if err != nil {
		return "", nil, err
	}
	if content && size > maxObjectSize {
		// Commits and trees are never this large; a damaged header might be.
		return "", nil, fmt.Errorf("%s at %d: %w: object of %d bytes", p.path, off, errUnsupported, size)
	}
	var baseKind string
	var base, data []byte
	if typ == 6 || typ == 7 {
		baseOff, baseOID, err := p.deltaBase(br, off, typ)
		if err != nil {
			return "", nil, err
		}
		switch {
		case baseOID == nil:
			baseKind, base, err = r.readPacked(p, baseOff, depth+1, content)
		case content:
			baseKind, base, err = r.read(baseOID)
		default:
			baseKind, _, err = r.header(baseOID, true)
		}
		if err != nil || !content {
			return baseKind, nil, err
		}
	}
	if content {
		if data, err = r.inflate(br, size); err != nil {
			return "", nil, fmt.Errorf("%s at %d: %w", p.path, off, err)
		}
	}
	if typ == 6 || typ == 7 {
		data, err = applyDelta(base, data)
		if err != nil {
			return "", nil, fmt.Errorf("%s at %d: %w", p.path, off, err)
		}
		return baseKind, data, nil
	}
	kind, ok := packTypes[typ]
	if !ok {
		return "", nil, fmt.Errorf("%s at %d: unknown object type %d", p.path, off, typ)
	}
	return kind, data, nil
}

// entryHeader reads the header of the pack entry at off: its type, its
// size (of the delta, for a delta), and a reader at what follows.
func (p *packFile) entryHeader(off int64) (typ byte, size int, br *bytes.Reader, err error) {
	if off < 0 || off >= int64(len(p.data)) {
		return 0, 0, nil, fmt.Errorf("%s: offset %d out of range", p.path, off)
	}
	br = bytes.NewReader(p.data[off:])
	c, err := br.ReadByte()
	if err != nil {
		return 0, 0, nil, fmt.Errorf("%s: %w", p.path, err)
	}
	typ, size, shift := (c>>4)&7, int(c&15), 4
	for c&0x80 != 0 {
		if c, err = br.ReadByte(); err != nil || shift > 56 {
			return 0, 0, nil, fmt.Errorf("%s: bad object header", p.path)
		}
		size |= int(c&0x7f) << shift
		shift += 7
	}
	return typ, size, br, nil
}

// deltaBase reads where a delta's base is, from br just after the entry
// header at off: an earlier offset in this pack (OFS_DELTA, type 6), or an
// object id (REF_DELTA, type 7; baseOID set).
func (p *packFile) deltaBase(br *bytes.Reader, off int64, typ byte) (baseOff int64, baseOID []byte, err error) {
	if typ == 7 {
		oid := make([]byte, oidLen)
		if _, err := io.ReadFull(br, oid); err != nil {
			return 0, nil, fmt.Errorf("%s: %w", p.path, err)
		}
		return 0, oid, nil
	}
	c, err := br.ReadByte()
	rel := int64(c & 0x7f)
	for err == nil && c&0x80 != 0 {
		c, err = br.ReadByte()
		rel = (rel+1)<<7 | int64(c&0x7f)
	}
	if err != nil || rel <= 0 || rel > off {
		return 0, nil, fmt.Errorf("%s: bad delta base offset", p.path)
	}
	return off - rel, nil, nil
}

// applyDelta rebuilds an object from its base and a git delta with
// go-git's packfile.PatchDelta, once the result size the delta declares
// is known to be within maxObjectSize: a damaged size must not make a
// result of gigabytes, which the copy instructions of a small delta can.
func applyDelta(base, delta []byte) ([]byte, error) {
	_, n := binary.Uvarint(delta)
	if dstSize, m := binary.Uvarint(delta[max(n, 0):]); n <= 0 || m <= 0 || dstSize > maxObjectSize {
		return nil, errors.New("bad delta size")
	}
	return packfile.PatchDelta(base, delta)
}

func (r *objectReader) close() {
	for _, p := range r.packs {
		p.close()
	}
}
