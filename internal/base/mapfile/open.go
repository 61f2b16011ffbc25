package mapfile

import (
	"fmt"
	"os"
)

// Open maps a whole file read-only by its path. The bytes stay valid until
// release is called, even if the file is replaced by a rename meanwhile.
// Empty or special files, and failed mappings, are read instead.
func Open(path string, populate bool) (data []byte, release func(), err error) {
	data, _, release, err = OpenInfo(path, populate)
	return data, release, err
}

// OpenInfo is Open, and the stat of the file whose bytes were mapped (nil
// when they were read instead): for a caller that trusts a remembered stat
// to vouch for those bytes.
func OpenInfo(path string, populate bool) (data []byte, info os.FileInfo, release func(), err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, nil, err
	}
	defer f.Close()
	info, err = f.Stat()
	if err != nil {
		return nil, nil, nil, err
	}
	if info.Size() > 0 && info.Mode().IsRegular() && info.Size() == int64(int(info.Size())) {
		if data, release, err := Map(f, info.Size(), populate); err == nil {
			return data, info, release, nil
		}
	}
	data, err = os.ReadFile(path)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("read %s: %w", path, err)
	}
	return data, nil, func() {}, nil
}
