//go:build unix && !linux

package mapfile

// mapPopulate is 0 where MAP_POPULATE does not exist.
const mapPopulate = 0
