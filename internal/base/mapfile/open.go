package mapfile

import (
	"fmt"
	"io"
	"os"

	"github.com/git-queen/git-queen/internal/base/regular"
)

// Map maps a file read-only (Range of all of it; where mmap is not
// available, it reads the file). Mapping is what makes reads of large files
// cheap: a fresh process pays a page fault per 4 KiB of heap it touches,
// which for a 50 MB os.ReadFile costs more than scanning the file. With
// populate, where the system can, the mapping is filled at once, which
// costs far less than faulting the pages in one by one when all of them
// will be read; without it, only the pages touched are read (a large
// pack of which a few objects are wanted).
func Map(f *os.File, size int64, populate bool) ([]byte, func(), error) {
	return Range(f, 0, size, populate)
}

// Open maps a whole file read-only by its path. The bytes stay valid until
// release is called, even if the file is replaced by a rename meanwhile.
// Empty files and failed mappings are read instead; a file that is not a
// regular one (a pipe, which never ends) is a *regular.NotRegularError.
func Open(path string, populate bool) (data []byte, release func(), err error) {
	data, _, release, err = OpenInfo(path, populate)
	return data, release, err
}

// OpenInfo is Open, and the stat of the file whose bytes were mapped (nil
// when they were read instead): for a caller that trusts a remembered stat
// to vouch for those bytes.
func OpenInfo(path string, populate bool) (data []byte, info os.FileInfo, release func(), err error) {
	f, err := regular.Open(path)
	if err != nil {
		return nil, nil, nil, err
	}
	defer f.Close()
	info, err = f.Stat()
	if err != nil {
		return nil, nil, nil, err
	}
	if info.Size() > 0 && info.Size() == int64(int(info.Size())) {
		if data, release, err := Map(f, info.Size(), populate); err == nil {
			return data, info, release, nil
		}
	}
	data, err = io.ReadAll(f)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("read %s: %w", path, err)
	}
	return data, nil, func() {}, nil
}
