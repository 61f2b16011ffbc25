package mapfile

import (
	"fmt"
	"os"
)

// Open maps a whole file read-only by its path. The bytes stay valid until
// release is called, even if the file is replaced by a rename meanwhile.
// Empty or special files, and failed mappings, are read instead.
func Open(path string, populate bool) (data []byte, release func(), err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	if info.Size() > 0 && info.Mode().IsRegular() && info.Size() == int64(int(info.Size())) {
		if data, release, err := Map(f, info.Size(), populate); err == nil {
			return data, release, nil
		}
	}
	data, err = os.ReadFile(path)
	if err != nil {
		return nil, nil, fmt.Errorf("read %s: %w", path, err)
	}
	return data, func() {}, nil
}
