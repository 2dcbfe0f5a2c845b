package sqlstore

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// sideFiles are the files SQLite keeps beside a database, by suffix: Open checks them
// like the database itself, since SQLite opens them too (a FIFO at the rollback journal
// blocks the first read; one at the write-ahead log takes the log's pages and gives back
// others).
var sideFiles = []struct{ suffix, role string }{
	{"-wal", "write-ahead log"},
	{"-shm", "WAL index"},
	{"-journal", "rollback journal"},
}

// checkRegular refuses, without opening anything, a database path or side file that
// exists and is not a regular file (or a symlink to one): SQLite would block forever
// opening or reading a FIFO, and fail on a directory, socket or device with an error
// that does not say why. SQLite resolves a symlinked database to its target and keeps
// the side files beside the target, so those are checked too.
func checkRegular(path string) error {
	if err := regularOrAbsent(path); err != nil {
		return refusedNotRegular(path, "", "", err)
	}
	bases := []string{path}
	if real, err := filepath.EvalSymlinks(path); err == nil && real != path {
		bases = append(bases, real)
	}
	for _, base := range bases {
		for _, f := range sideFiles {
			if err := regularOrAbsent(base + f.suffix); err != nil {
				return refusedNotRegular(path, base+f.suffix, f.role, err)
			}
		}
	}
	return nil
}

// notRegular says what a path that is not a regular file is.
type notRegular struct{ what string }

func (e *notRegular) Error() string { return e.what }

// regularOrAbsent returns nil for a path that does not exist, a regular file, a symlink
// to one and a dangling symlink (SQLite creates its target), and otherwise a *notRegular
// or the error of the lstat or stat. It never opens p.
func regularOrAbsent(p string) error {
	info, err := os.Lstat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if info.Mode()&fs.ModeSymlink == 0 {
		if info.Mode().IsRegular() {
			return nil
		}
		return &notRegular{kind(info.Mode())}
	}
	target, err := os.Stat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return &notRegular{fmt.Sprintf("a symlink that cannot be followed (%v)", osReason(err))}
	}
	if target.Mode().IsRegular() {
		return nil
	}
	dest, err := os.Readlink(p)
	if err != nil {
		return err
	}
	return &notRegular{"a symlink to " + dest + ", " + kind(target.Mode())}
}

// kind names the type of a file that is not regular.
func kind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "a Unix socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	}
	return "a file of an irregular type (" + m.Type().String() + ")"
}

// refusedNotRegular is Open's error for a database path (side "") or a side file of it
// that is not a regular file, or could not be checked.
func refusedNotRegular(path, side, role string, err error) error {
	var nr *notRegular
	if !errors.As(err, &nr) {
		at := path
		if side != "" {
			at = side
		}
		return fmt.Errorf("sqlstore: %s cannot be checked (%v): make its directory reachable by the user this runtime runs as, or give the runtime another path", at, osReason(err))
	}
	if side == "" {
		return fmt.Errorf("%w: %s is %s, not a regular file; a definition store is a regular SQLite file. Move it aside (it is left as it was) to start an empty definition store there, or give the runtime another path", ErrRefused, path, nr.what)
	}
	return fmt.Errorf("%w: %s, where SQLite keeps the %s of %s, is %s, not a regular file. Move it aside (it is left as it was; it holds no part of the definition store), then open the store again, or give the runtime another path", ErrRefused, side, role, path, nr.what)
}

// openNoBlock opens path with flag, never waiting for a FIFO's other end (a FIFO put
// there after checkRegular looked), and refuses what is not a regular file.
func openNoBlock(path string, flag int) (*os.File, error) {
	f, err := os.OpenFile(path, flag|nonBlock, 0)
	if err != nil {
		return nil, err
	}
	info, err := f.Stat()
	if err == nil && !info.Mode().IsRegular() {
		err = refusedNotRegular(path, "", "", &notRegular{kind(info.Mode())})
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}
