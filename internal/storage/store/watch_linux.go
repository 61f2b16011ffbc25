package store

import (
	"encoding/binary"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// watchNotify watches the directories of paths with inotify and calls
// changed after any write, creation or rename in them (a directory that
// does not exist yet is watched from its parent, and added once it
// appears). It reports false when inotify cannot be used.
func watchNotify(paths []string, changed func()) (func(), bool) {
	fd, err := unix.InotifyInit1(unix.IN_CLOEXEC | unix.IN_NONBLOCK)
	if err != nil {
		return nil, false
	}
	// IN_MOVE_SELF and IN_DELETE_SELF (and IN_IGNORED, always sent) say a
	// watched directory is gone: it is watched from its parent again,
	// and added once it is made anew (a store reset under a wait).
	const mask = unix.IN_MODIFY | unix.IN_CLOSE_WRITE | unix.IN_CREATE | unix.IN_MOVED_TO |
		unix.IN_MOVE_SELF | unix.IN_DELETE_SELF
	dirs := dirsOf(paths)
	pending := map[string]bool{} // directories to add once they exist
	add := func() bool {
		added := 0
		for _, d := range dirs {
			if _, err := unix.InotifyAddWatch(fd, d, mask|unix.IN_MASK_ADD); err == nil {
				added++
				delete(pending, d)
			} else {
				pending[d] = true
				// Its parent tells when it appears. IN_MASK_ADD: the parent
				// may be watched already (the store directory, for received/),
				// and a plain add would replace that watch's mask.
				_, _ = unix.InotifyAddWatch(fd, filepath.Dir(d), unix.IN_CREATE|unix.IN_MOVED_TO|unix.IN_MASK_ADD)
			}
		}
		return added > 0
	}
	if !add() {
		unix.Close(fd)
		return nil, false
	}
	f := os.NewFile(uintptr(fd), "inotify")
	go func() {
		buf := make([]byte, 64<<10)
		for {
			n, err := f.Read(buf)
			if err != nil || n <= 0 {
				return // closed
			}
			if dirGone(buf[:n]) {
				for _, d := range dirs {
					pending[d] = true
				}
			}
			if len(pending) > 0 {
				add()
			}
			changed()
		}
	}()
	return func() { f.Close() }, true
}

// dirGone reports whether the inotify events in buf say a watched
// directory was moved away or removed.
func dirGone(buf []byte) bool {
	for len(buf) >= unix.SizeofInotifyEvent {
		mask := binary.NativeEndian.Uint32(buf[4:8])
		if mask&(unix.IN_MOVE_SELF|unix.IN_DELETE_SELF|unix.IN_IGNORED) != 0 {
			return true
		}
		nameLen := int(binary.NativeEndian.Uint32(buf[12:16]))
		buf = buf[min(len(buf), unix.SizeofInotifyEvent+nameLen):]
	}
	return false
}
