package mapfile

import "bytes"

// EachWindow hands fn data a window of whole lines at a time, from the
// start: a window ends at the last line end within its first size bytes
// (a line longer than size is a window of its own, and an unterminated
// last line ends the last window). Each window is
// faulted in at once (Populate) and, when forget is not nil, handed to it
// after fn, to drop its pages (Forget, for a mapping): a reader of a
// mapped file of any size holds a window of it. fn gets where the window
// starts in data, and stops the walk by returning false.
func EachWindow(data []byte, size int, forget func([]byte), fn func(at int, w []byte) bool) {
	for at := 0; at < len(data); {
		end := len(data)
		if at+size < len(data) {
			if i := bytes.LastIndexByte(data[at:at+size], '\n'); i >= 0 {
				end = at + i + 1
			} else if i = bytes.IndexByte(data[at+size:], '\n'); i >= 0 {
				end = at + size + i + 1
			}
		}
		w := data[at:end]
		Populate(w)
		if !fn(at, w) {
			return
		}
		if forget != nil {
			forget(w)
		}
		at = end
	}
}
