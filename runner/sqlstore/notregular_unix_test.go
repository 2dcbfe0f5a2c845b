//go:build unix

package sqlstore

import (
	"bytes"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cordiskit/cordiskit/runner/storetest"
)

// openBound is how long a child's Open may take before the test calls it blocked and
// kills it; openQuick is how long a refusal may take. Both are far above the few
// milliseconds a refusal takes, so a loaded machine does not fail them.
const (
	openBound = 20 * time.Second
	openQuick = 5 * time.Second
)

// TestOpenNotRegular: a FIFO, socket, device or directory at the database path, or at
// the path of one of SQLite's side files, or a symlink to one, is refused at once with
// ErrRefused and an error naming the path, what it is and the fix; the thing is left as
// it was, and once it is moved aside the store opens with its definitions. Each Open runs
// in a child process with a deadline, so an Open that blocks fails its case instead of
// hanging the suite.
func TestOpenNotRegular(t *testing.T) {
	const fixMain = ", not a regular file; a definition store is a regular SQLite file. Move it aside (it is left as it was) to start an empty definition store there, or give the runtime another path"
	fixSide := func(role string) string {
		return ", where SQLite keeps the " + role + " of PATH, is WHAT, not a regular file. Move it aside (it is left as it was; it holds no part of the definition store), then open the store again, or give the runtime another path"
	}
	for _, c := range []struct {
		name   string
		stored bool   // a definition store is at PATH (closed) before the thing is made
		at     string // the suffix of PATH the thing is made at
		make   func(t *testing.T, p string)
		want   string // PATH stands for the database path, AT for where the thing is
	}{
		{"fifo", false, "", mkfifo, "PATH is a named pipe (FIFO)" + fixMain},
		{"directory", false, "", mkdir, "PATH is a directory" + fixMain},
		{"socket", false, "", mksocket, "PATH is a Unix socket" + fixMain},
		{"symlink to a fifo", false, "", symlinkTo(mkfifo), "PATH is a symlink to AT.target, a named pipe (FIFO)" + fixMain},
		{"symlink to a device", false, "", symlinkToDevNull, "PATH is a symlink to /dev/null, a character device" + fixMain},
		{"symlink to a directory", false, "", symlinkTo(mkdir), "PATH is a symlink to AT.target, a directory" + fixMain},
		{"fifo at the write-ahead log", true, "-wal", mkfifo, "AT" + strings.ReplaceAll(fixSide("write-ahead log"), "WHAT", "a named pipe (FIFO)")},
		{"fifo at the write-ahead log of a new store", false, "-wal", mkfifo, "AT" + strings.ReplaceAll(fixSide("write-ahead log"), "WHAT", "a named pipe (FIFO)")},
		{"fifo at the WAL index", true, "-shm", mkfifo, "AT" + strings.ReplaceAll(fixSide("WAL index"), "WHAT", "a named pipe (FIFO)")},
		{"fifo at the rollback journal", true, "-journal", mkfifo, "AT" + strings.ReplaceAll(fixSide("rollback journal"), "WHAT", "a named pipe (FIFO)")},
		{"directory at the write-ahead log", true, "-wal", mkdir, "AT" + strings.ReplaceAll(fixSide("write-ahead log"), "WHAT", "a directory")},
		{"symlink to a fifo at the write-ahead log", true, "-wal", symlinkTo(mkfifo), "AT" + strings.ReplaceAll(fixSide("write-ahead log"), "WHAT", "a symlink to AT.target, a named pipe (FIFO)")},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(shortTempDir(t), "definitions.db")
			if c.stored {
				s := open(t, path, nil)
				storetest.MustDefine(t, s, storetest.Def("s1", "clock", ""))
				if err := s.Close(); err != nil {
					t.Fatal(err)
				}
			}
			at := path + c.at
			c.make(t, at)
			before := dirEntries(t, filepath.Dir(path))
			out, took := openInChild(t, path)
			want := ErrRefused.Error() + ": " + strings.NewReplacer("PATH", path, "AT", at).Replace(c.want)
			if out != want {
				t.Fatalf("Open:\n%s\nwant:\n%s", out, want)
			}
			if took > openQuick {
				t.Errorf("the refusal took %v, want under %v", took, openQuick)
			}
			if after := dirEntries(t, filepath.Dir(path)); after != before {
				t.Fatalf("a refused Open changed the directory:\n%s\nwas:\n%s", after, before)
			}
			// The fix the error gives works, and the definitions are still there.
			if err := os.RemoveAll(at); err != nil {
				t.Fatal(err)
			}
			s := open(t, path, nil)
			if _, err := s.Plugin(bg, "clock-1"); c.stored && err != nil {
				t.Fatalf("after moving %s aside: %v", at, err)
			}
		})
	}
}

// TestOpenNotRegularInProcess: the check runs before anything is opened, so a FIFO
// refused in this process returns ErrRefused (the child cases above only see text).
func TestOpenNotRegularInProcess(t *testing.T) {
	path := filepath.Join(t.TempDir(), "definitions.db")
	mkfifo(t, path)
	done := make(chan error, 1)
	go func() {
		s, err := Open(bg, path, nil)
		if err == nil {
			s.Close()
		}
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), path+" is a named pipe (FIFO)") {
			t.Fatalf("Open of a FIFO: %v, want ErrRefused naming it", err)
		}
	case <-time.After(openBound):
		// Unblock the open (a writer end) so the goroutine ends before goleak looks.
		if f, err := os.OpenFile(path, os.O_WRONLY, 0); err == nil {
			f.Close()
		}
		t.Fatalf("Open of a FIFO blocked for %v", openBound)
	}
}

// openInChild opens the store at path in a child process (mode "open" of TestMain),
// killed after openBound, and returns its output and how long it took.
func openInChild(t *testing.T, path string) (string, time.Duration) {
	t.Helper()
	cmd := childCmd("open", path)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	killed := make(chan struct{})
	timer := time.AfterFunc(openBound, func() { close(killed); _ = cmd.Process.Kill() })
	err := cmd.Wait()
	took := time.Since(start)
	timer.Stop()
	select {
	case <-killed:
		t.Fatalf("Open of %s blocked: the child was killed after %v\n%s", path, openBound, out.String())
	default:
	}
	if err == nil {
		t.Fatalf("the child opened %s: %s", path, out.String())
	}
	return strings.TrimSuffix(out.String(), "\n"), took
}

// shortTempDir is a TempDir with a short path: a Unix socket's path has a length limit.
func shortTempDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "sq")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	return dir
}

func mkfifo(t *testing.T, p string) {
	t.Helper()
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Fatal(err)
	}
}

func mkdir(t *testing.T, p string) {
	t.Helper()
	if err := os.Mkdir(p, 0o700); err != nil {
		t.Fatal(err)
	}
}

func mksocket(t *testing.T, p string) {
	t.Helper()
	l, err := net.Listen("unix", p)
	if err != nil {
		t.Fatal(err)
	}
	l.(*net.UnixListener).SetUnlinkOnClose(false)
	t.Cleanup(func() { l.Close() })
}

// symlinkTo makes p a symlink to p+".target", made by mk.
func symlinkTo(mk func(t *testing.T, p string)) func(t *testing.T, p string) {
	return func(t *testing.T, p string) {
		t.Helper()
		mk(t, p+".target")
		if err := os.Symlink(p+".target", p); err != nil {
			t.Fatal(err)
		}
	}
}

func symlinkToDevNull(t *testing.T, p string) {
	t.Helper()
	if err := os.Symlink("/dev/null", p); err != nil {
		t.Fatal(err)
	}
}

// dirEntries lists dir's entries with their modes and sizes, reading no file (a FIFO
// would block a read).
func dirEntries(t *testing.T, dir string) string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, e := range es {
		info, err := os.Lstat(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		size := info.Size()
		if info.IsDir() {
			size = 0
		}
		b.WriteString(e.Name() + " " + info.Mode().String() + " " + itoa(size) + "\n")
	}
	return b.String()
}

// TestOpenNotRegularBesideSymlinkTarget: SQLite keeps the side files of a symlinked
// database beside its target, so a FIFO there is refused too.
func TestOpenNotRegularBesideSymlinkTarget(t *testing.T) {
	dir := t.TempDir()
	path, target := filepath.Join(dir, "definitions.db"), filepath.Join(dir, "real.db")
	s := open(t, target, nil)
	storetest.MustDefine(t, s, storetest.Def("s1", "clock", ""))
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, path); err != nil {
		t.Fatal(err)
	}
	mkfifo(t, target+"-journal")
	out, _ := openInChild(t, path)
	want := ErrRefused.Error() + ": " + target + "-journal, where SQLite keeps the rollback journal of " + path + ", is a named pipe (FIFO), not a regular file. Move it aside (it is left as it was; it holds no part of the definition store), then open the store again, or give the runtime another path"
	if out != want {
		t.Fatalf("Open:\n%s\nwant:\n%s", out, want)
	}
	if err := os.Remove(target + "-journal"); err != nil {
		t.Fatal(err)
	}
	if _, err := open(t, path, nil).Plugin(bg, "clock-1"); err != nil {
		t.Fatalf("through the symlink once the FIFO is gone: %v", err)
	}
}
