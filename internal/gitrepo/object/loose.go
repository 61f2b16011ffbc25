package object

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/go-git/go-git/v5/plumbing/format/objfile"
)

// WriteLoose writes content as the loose object id (Hash(t, content))
// into the objects directory dir, as git does: a temporary file in the
// object's fan-out directory, compressed by go-git's object-file writer,
// made read-only and renamed into place, so that a reader sees the whole
// object or none. It does not look whether the object exists already (a
// pack may hold it): the caller does, before.
func WriteLoose(dir string, id ID, t Type, content []byte) error {
	name := id.String()
	dst := filepath.Join(dir, name[:2], name[2:])
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(dst), "tmp_obj_")
	if err != nil {
		return err
	}
	renamed := false
	defer func() {
		if !renamed {
			os.Remove(tmp.Name())
		}
	}()
	w := objfile.NewWriter(tmp)
	err = w.WriteHeader(t, int64(len(content)))
	if err == nil {
		_, err = w.Write(content)
	}
	if err == nil {
		err = w.Close()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if w.Hash() != id {
		return fmt.Errorf("hashed %s, wrote %s", id, w.Hash())
	}
	os.Chmod(tmp.Name(), 0o444)
	if err := os.Rename(tmp.Name(), dst); err != nil {
		return err
	}
	renamed = true
	return nil
}
