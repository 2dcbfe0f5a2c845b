package agent

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/cordiskit/cordiskit/kit"
)

// FS is the filesystem seam: files under the runtime's work directory. It is abstract —
// the runtime provides a DirFS, and a plugin may provide another FileSystem (an in-memory
// one for tests, a remote one) under the same key instead.
var FS = kit.NewService[FileSystem]("fs")

// FileSystem is the interface of the fs service. Paths are slash-separated and relative to
// the work directory ("notes/todo.txt"; "" or "." is the directory itself); a path that
// would leave it is an error. Contents are UTF-8 text.
type FileSystem interface {
	// ReadFile returns the content of the file at path.
	ReadFile(ctx context.Context, path string) (string, error)
	// WriteFile replaces the content of the file at path, creating it and its parent
	// directories as needed.
	WriteFile(ctx context.Context, path string, content string) error
	// List returns the entries of the directory at path, sorted by name.
	List(ctx context.Context, path string) ([]FileInfo, error)
	// Stat describes the file or directory at path.
	Stat(ctx context.Context, path string) (FileInfo, error)
}

// FileInfo describes one file or directory.
type FileInfo struct {
	// Name is the last element of the path.
	Name string `json:"name"`
	// Path is the slash-separated path relative to the work directory.
	Path string `json:"path"`
	// Size is the length in bytes of a file; 0 for a directory.
	Size int64 `json:"size"`
	// Dir reports whether this is a directory.
	Dir bool `json:"dir"`
}

// ErrOutsideRoot reports a path that leaves the work directory: absolute, climbing out
// with "..", or through a symbolic link that points outside.
var ErrOutsideRoot = errors.New("path is outside the work directory")

// MaxReadSize is the largest file DirFS.ReadFile returns.
const MaxReadSize = 4 << 20

// DirFS is the FileSystem the runtime provides: an operating-system directory, accessed
// through an os.Root so that no path — including one through a symbolic link — reaches
// outside it. It is safe for concurrent use.
type DirFS struct {
	root *os.Root
}

var _ FileSystem = (*DirFS)(nil)

// OpenDirFS opens the directory dir as a DirFS. Close releases it.
func OpenDirFS(dir string) (*DirFS, error) {
	r, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("fs: opening work directory: %w", err)
	}
	return &DirFS{root: r}, nil
}

// Close releases the directory. Later calls fail.
func (d *DirFS) Close() error { return d.root.Close() }

// ReadFile returns the content of the file at path. Files larger than MaxReadSize are an
// error.
func (d *DirFS) ReadFile(ctx context.Context, name string) (string, error) {
	p, err := clean(ctx, name)
	if err != nil {
		return "", err
	}
	f, err := openRegular(func(flag int) (*os.File, error) { return d.root.OpenFile(p, flag, 0) }, os.O_RDONLY)
	if err != nil {
		return "", fsErr("read", name, err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, MaxReadSize+1))
	if err != nil {
		return "", fsErr("read", name, err)
	}
	if len(b) > MaxReadSize {
		return "", fmt.Errorf("fs: read %q: the file is larger than %d bytes; read a smaller file or use exec (head, grep) to extract a part", name, MaxReadSize)
	}
	return string(b), nil
}

// WriteFile replaces the content of the file at path, creating it and its parent
// directories as needed.
func (d *DirFS) WriteFile(ctx context.Context, name string, content string) error {
	p, err := clean(ctx, name)
	if err != nil {
		return err
	}
	if p == "." {
		return fmt.Errorf("fs: write %q: that is the work directory itself; name a file inside it", name)
	}
	if dir := path.Dir(p); dir != "." {
		if err := d.root.MkdirAll(dir, 0o755); err != nil {
			return fsErr("write", name, err)
		}
	}
	f, err := openRegular(func(flag int) (*os.File, error) { return d.root.OpenFile(p, flag, 0o644) }, os.O_WRONLY|os.O_CREATE|os.O_TRUNC)
	if err != nil {
		return fsErr("write", name, err)
	}
	_, err = f.WriteString(content)
	return fsErr("write", name, errors.Join(err, f.Close()))
}

// List returns the entries of the directory at path, sorted by name.
func (d *DirFS) List(ctx context.Context, name string) ([]FileInfo, error) {
	p, err := clean(ctx, name)
	if err != nil {
		return nil, err
	}
	f, err := d.root.OpenFile(p, os.O_RDONLY|openNonblock, 0) // a FIFO's open must not wait for a writer
	if err != nil {
		return nil, fsErr("list", name, err)
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.IsDir() {
		return nil, fmt.Errorf("fs: list %q: not a directory; list its parent directory, or read it with readFile if it is a file", name)
	}
	entries, err := f.ReadDir(-1)
	if err != nil {
		return nil, fsErr("list", name, err)
	}
	out := make([]FileInfo, 0, len(entries))
	for _, e := range entries {
		fi, err := e.Info()
		if err != nil {
			continue // removed while listing
		}
		out = append(out, info(path.Join(p, e.Name()), fi))
	}
	slices.SortFunc(out, func(a, b FileInfo) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// Stat describes the file or directory at path.
func (d *DirFS) Stat(ctx context.Context, name string) (FileInfo, error) {
	p, err := clean(ctx, name)
	if err != nil {
		return FileInfo{}, err
	}
	fi, err := d.root.Stat(p)
	if err != nil {
		return FileInfo{}, fsErr("stat", name, err)
	}
	return info(p, fi), nil
}

func info(p string, fi fs.FileInfo) FileInfo {
	out := FileInfo{Name: path.Base(p), Path: p, Dir: fi.IsDir()}
	if !out.Dir {
		out.Size = fi.Size()
	}
	return out
}

// clean checks ctx and turns a model-supplied path into a clean slash path inside the
// root, rejecting the ones that leave it before the operating system is asked. (os.Root
// still stops symbolic links that point outside.)
func clean(ctx context.Context, name string) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	slash := filepath.ToSlash(name)
	p := "."
	if slash != "" {
		p = path.Clean(slash) // a climb out of the root leaves a leading ".."
	}
	if path.IsAbs(slash) || filepath.IsAbs(name) || (p != "." && !filepath.IsLocal(filepath.FromSlash(p))) {
		return "", fmt.Errorf("fs: %q: %w; use a path relative to it, such as \"notes/todo.txt\"", name, ErrOutsideRoot)
	}
	return p, nil
}

// ErrNotRegular reports a path that names something other than a regular file or a
// directory — a FIFO, a socket, a device — which fs neither reads nor writes: opening one
// could block the call forever or never end.
var ErrNotRegular = errors.New("not a regular file")

// openRegular opens a file without blocking (a FIFO's open would wait for its other end)
// and refuses anything but a regular file.
func openRegular(open func(flag int) (*os.File, error), flag int) (*os.File, error) {
	f, err := open(flag | openNonblock)
	if noPeer(err) {
		return nil, fmt.Errorf("it is a named pipe (FIFO), a socket or a device with nothing on its other end, %w", ErrNotRegular)
	}
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		kind := "a " + fileKind(fi.Mode())
		err = fmt.Errorf("it is %s, %w", kind, ErrNotRegular)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

func fileKind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "directory"
	case m&fs.ModeNamedPipe != 0:
		return "named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "socket"
	case m&fs.ModeDevice != 0:
		return "device"
	}
	return "special file"
}

// fsErr names the operation and path, and turns the operating system's errors into ones
// a model can act on. The operating system's path (which may be absolute) is dropped: the
// model knows the file by name, relative to the work directory.
func fsErr(op, name string, err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, ErrNotRegular):
		return fmt.Errorf("fs: %s %q: %w; fs reads and writes regular files only (use list for a directory)", op, name, err)
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("fs: %s %q: no such file or directory; list its parent directory to see what exists: %w", op, name, fs.ErrNotExist)
	case strings.Contains(err.Error(), "path escapes from parent"): // os.Root's unexported error
		return fmt.Errorf("fs: %s %q: %w (through a symbolic link); use a path inside the work directory", op, name, ErrOutsideRoot)
	}
	return fmt.Errorf("fs: %s %q: %w", op, name, bare(err))
}
