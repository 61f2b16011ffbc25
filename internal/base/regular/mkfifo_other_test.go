//go:build !unix

package regular

import "errors"

// mkfifo fails where there are no named pipes: the tests skip that case.
func mkfifo(string) error { return errors.New("no named pipes here") }
