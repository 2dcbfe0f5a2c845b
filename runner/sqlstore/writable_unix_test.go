//go:build unix

package sqlstore

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"

	"github.com/cordiskit/cordiskit/runner/storetest"
)

// TestOpenNotWritable: a read-only file, a file in a read-only directory, and a new file
// in a read-only directory are refused with ErrNotWritable, an error naming the file and
// the fix, and nothing is changed. Root ignores permissions, so as root each Open runs in
// a child process as the user nobody.
func TestOpenNotWritable(t *testing.T) {
	fix := ". The store writes every change to the file and keeps its write-ahead log beside it: make the file and its directory writable by the user this runtime runs as (chmod u+w, or chown), or give the runtime another path; the file is left as it was"
	for _, c := range []struct {
		name             string
		create           bool
		fileMode, dirMod os.FileMode
		want             string // PATH stands for the file
	}{
		{"read-only file", true, 0o444, 0o777, "PATH cannot be opened for writing (permission denied)"},
		{"read-only directory", true, 0o666, 0o555, "the directory of PATH does not let this process create and remove files (permission denied)"},
		{"new file in a read-only directory", false, 0, 0o555, "the directory of PATH does not let this process create and remove files (permission denied)"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := reachable(t, t.TempDir())
			path := filepath.Join(dir, "definitions.db")
			if c.create {
				s := open(t, path, nil)
				storetest.MustDefine(t, s, storetest.Def("s1", "clock", ""))
				if err := s.Close(); err != nil {
					t.Fatal(err)
				}
				chmod(t, path, c.fileMode)
			}
			chmod(t, dir, c.dirMod)
			t.Cleanup(func() { _ = os.Chmod(dir, 0o700) }) // so TempDir can remove it
			before := dirFiles(t, dir)
			got := openAsUser(t, path)
			if want := ErrNotWritable.Error() + ": " + strings.ReplaceAll(c.want, "PATH", path) + fix; got != want {
				t.Fatalf("Open:\n%s\nwant:\n%s", got, want)
			}
			if after := dirFiles(t, dir); !reflect.DeepEqual(after, before) {
				t.Fatalf("a refused Open changed the directory: %v, was %v", after, before)
			}
		})
	}
}

// openAsUser opens the store at path as a user that permissions bind (this process, or
// a child as nobody when this one is root) and returns the error's text.
func openAsUser(t *testing.T, path string) string {
	t.Helper()
	if os.Geteuid() != 0 {
		s, err := Open(bg, path, nil)
		if err == nil {
			s.Close()
			t.Fatal("Open succeeded, want a refusal")
		}
		if !errors.Is(err, ErrNotWritable) {
			t.Errorf("%v is not ErrNotWritable", err)
		}
		return err.Error()
	}
	cmd := childCmd("open", path)
	cmd.Path = nobodyBinary(t)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("the child as nobody opened %s: %s", path, out)
	}
	return strings.TrimSuffix(string(out), "\n")
}

// nobodyBinary copies this test binary where the user nobody can run it.
func nobodyBinary(t *testing.T) string {
	t.Helper()
	src, err := os.Open(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	bin := filepath.Join(reachable(t, t.TempDir()), "sqlstore.test")
	dst, err := os.OpenFile(bin, os.O_CREATE|os.O_WRONLY, 0o755)
	if err == nil {
		_, err = io.Copy(dst, src)
		err = errors.Join(err, dst.Close())
	}
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

// reachable lets other users reach dir, a TempDir, through its parent (both are 0700).
func reachable(t *testing.T, dir string) string {
	t.Helper()
	chmod(t, filepath.Dir(dir), 0o755)
	chmod(t, dir, 0o755)
	return dir
}

func chmod(t *testing.T, path string, mode os.FileMode) {
	t.Helper()
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
}

// dirFiles maps each file of dir to its mode and content.
func dirFiles(t *testing.T, dir string) map[string]string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, e := range es {
		info, err := e.Info()
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = info.Mode().String() + " " + string(b)
	}
	return out
}
