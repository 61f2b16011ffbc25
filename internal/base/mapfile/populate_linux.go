package mapfile

import "syscall"

// mapPopulate asks Linux to fault the whole mapping in with the mmap call.
const mapPopulate = syscall.MAP_POPULATE
