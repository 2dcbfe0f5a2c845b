package agent_test

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/cordiskit/cordiskit/examples/harness/agent"
)

func openFS(t *testing.T) (*agent.DirFS, string) {
	t.Helper()
	dir := t.TempDir()
	d, err := agent.OpenDirFS(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d, dir
}

func TestDirFSReadWrite(t *testing.T) {
	d, dir := openFS(t)
	ctx := context.Background()
	tests := []struct {
		name, path, content string
		read                string // the path to read back; defaults to path
	}{
		{name: "top level", path: "a.txt", content: "hello"},
		{name: "creates parents", path: "notes/2026/todo.md", content: "- ship"},
		{name: "overwrites", path: "a.txt", content: "again"},
		{name: "empty content", path: "empty", content: ""},
		{name: "dot segments inside", path: "notes/./x/../y.txt", content: "y", read: "notes/y.txt"},
		{name: "backslash-free unicode", path: "ünï/cödé.txt", content: "ok ✓"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := d.WriteFile(ctx, tt.path, tt.content); err != nil {
				t.Fatal(err)
			}
			read := tt.read
			if read == "" {
				read = tt.path
			}
			got, err := d.ReadFile(ctx, read)
			if err != nil || got != tt.content {
				t.Fatalf("ReadFile(%q) = %q, %v; want %q", read, got, err, tt.content)
			}
			onDisk, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(read)))
			if err != nil || string(onDisk) != tt.content {
				t.Fatalf("on disk: %q, %v", onDisk, err)
			}
		})
	}
}

func TestDirFSListStat(t *testing.T) {
	d, _ := openFS(t)
	ctx := context.Background()
	for _, p := range []string{"b.txt", "a/inner.txt", "c/d/e.txt"} {
		if err := d.WriteFile(ctx, p, "12345"); err != nil {
			t.Fatal(err)
		}
	}
	for _, root := range []string{"", ".", "./", "a/.."} {
		list, err := d.List(ctx, root)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, e := range list {
			got = append(got, e.Path+map[bool]string{true: "/"}[e.Dir])
		}
		if strings.Join(got, " ") != "a/ b.txt c/" {
			t.Errorf("List(%q) = %v", root, got)
		}
	}
	list, err := d.List(ctx, "c/d")
	if err != nil || len(list) != 1 || list[0] != (agent.FileInfo{Name: "e.txt", Path: "c/d/e.txt", Size: 5}) {
		t.Errorf("List(c/d) = %+v, %v", list, err)
	}

	tests := []struct {
		path string
		want agent.FileInfo
	}{
		{"b.txt", agent.FileInfo{Name: "b.txt", Path: "b.txt", Size: 5}},
		{"c/d", agent.FileInfo{Name: "d", Path: "c/d", Dir: true}},
		{"", agent.FileInfo{Name: ".", Path: ".", Dir: true}},
	}
	for _, tt := range tests {
		if got, err := d.Stat(ctx, tt.path); err != nil || got != tt.want {
			t.Errorf("Stat(%q) = %+v, %v; want %+v", tt.path, got, err, tt.want)
		}
	}
}

func TestDirFSErrors(t *testing.T) {
	d, dir := openFS(t)
	ctx := context.Background()
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "secret"), []byte("s3cret"), 0o644); err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS != "windows" {
		if err := os.Symlink(outside, filepath.Join(dir, "link")); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(filepath.Join(outside, "secret"), filepath.Join(dir, "secret-link")); err != nil {
			t.Fatal(err)
		}
	}
	if err := d.WriteFile(ctx, "file.txt", "x"); err != nil {
		t.Fatal(err)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()

	type op func(ctx context.Context, p string) error
	read := func(ctx context.Context, p string) error { _, err := d.ReadFile(ctx, p); return err }
	write := func(ctx context.Context, p string) error { return d.WriteFile(ctx, p, "pwned") }
	list := func(ctx context.Context, p string) error { _, err := d.List(ctx, p); return err }
	stat := func(ctx context.Context, p string) error { _, err := d.Stat(ctx, p); return err }

	tests := []struct {
		name    string
		op      op
		ctx     context.Context
		path    string
		want    error
		symlink bool
	}{
		{name: "parent", op: read, path: "../secret", want: agent.ErrOutsideRoot},
		{name: "climbs after descending", op: read, path: "a/../../secret", want: agent.ErrOutsideRoot},
		{name: "absolute", op: read, path: filepath.Join(outside, "secret"), want: agent.ErrOutsideRoot},
		{name: "absolute slash", op: stat, path: "/etc/passwd", want: agent.ErrOutsideRoot},
		{name: "write outside", op: write, path: "../x.txt", want: agent.ErrOutsideRoot},
		{name: "list outside", op: list, path: "..", want: agent.ErrOutsideRoot},
		{name: "through a dir symlink", op: read, path: "link/secret", want: agent.ErrOutsideRoot, symlink: true},
		{name: "through a file symlink", op: read, path: "secret-link", want: agent.ErrOutsideRoot, symlink: true},
		{name: "write through a symlink", op: write, path: "link/new.txt", want: agent.ErrOutsideRoot, symlink: true},
		{name: "missing file", op: read, path: "nope.txt", want: fs.ErrNotExist},
		{name: "stat missing", op: stat, path: "no/such", want: fs.ErrNotExist},
		{name: "list a file", op: list, path: "file.txt"},
		{name: "read a directory", op: read, path: "."},
		{name: "write the root", op: write, path: ""},
		{name: "cancelled", op: read, ctx: cancelled, path: "file.txt", want: context.Canceled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.symlink && runtime.GOOS == "windows" {
				t.Skip("symbolic links need privileges on Windows")
			}
			c := tt.ctx
			if c == nil {
				c = ctx
			}
			err := tt.op(c, tt.path)
			if err == nil || (tt.want != nil && !errors.Is(err, tt.want)) {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
		})
	}
	if b, _ := os.ReadFile(filepath.Join(outside, "secret")); string(b) != "s3cret" {
		t.Fatal("a write escaped the root")
	}
	if _, err := os.Stat(filepath.Join(outside, "new.txt")); err == nil {
		t.Fatal("a write through a symlink escaped the root")
	}
}

func TestDirFSReadLimit(t *testing.T) {
	d, dir := openFS(t)
	if err := os.WriteFile(filepath.Join(dir, "big"), make([]byte, agent.MaxReadSize+1), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := d.ReadFile(context.Background(), "big"); err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Fatalf("err = %v", err)
	}
}
