//go:build unix

package agent_test

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cordiskit/cordiskit/examples/harness/agent"
)

// fs refuses what is not a regular file or a directory, at once: opening a FIFO would
// wait for a writer (or a reader) forever, whatever the call's context says.
func TestDirFSRefusesSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	// A FIFO with a reader: a write's open succeeds, and must still be refused.
	if err := syscall.Mkfifo(filepath.Join(dir, "read-fifo"), 0o600); err != nil {
		t.Fatal(err)
	}
	r, err := os.OpenFile(filepath.Join(dir, "read-fifo"), os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if l, err := net.Listen("unix", filepath.Join(dir, "sock")); err == nil {
		defer l.Close()
	}
	if err := os.Symlink("fifo", filepath.Join(dir, "link-to-fifo")); err != nil {
		t.Fatal(err)
	}
	d, err := agent.OpenDirFS(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		call func() error
		want string
	}{
		{"read a FIFO", func() error { _, err := d.ReadFile(ctx, "fifo"); return err }, "named pipe"},
		{"read a link to a FIFO", func() error { _, err := d.ReadFile(ctx, "link-to-fifo"); return err }, "named pipe"},
		{"write a FIFO", func() error { return d.WriteFile(ctx, "fifo", "x") }, "named pipe"},
		{"write a FIFO with a reader", func() error { return d.WriteFile(ctx, "read-fifo", "x") }, "named pipe"},
		{"list a FIFO", func() error { _, err := d.List(ctx, "fifo"); return err }, "not a directory"},
		{"read a socket", func() error { _, err := d.ReadFile(ctx, "sock"); return err }, "sock"},
		{"read a directory", func() error { _, err := d.ReadFile(ctx, "."); return err }, "directory"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			done := make(chan error, 1)
			go func() { done <- tc.call() }()
			select {
			case err := <-done:
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("err = %v, want one naming %q", err, tc.want)
				}
				if strings.Contains(err.Error(), dir) {
					t.Errorf("the error shows the host path: %v", err)
				}
				if strings.Contains(tc.want, "pipe") && !errors.Is(err, agent.ErrNotRegular) {
					t.Errorf("err = %v, want ErrNotRegular", err)
				}
			case <-time.After(2 * time.Second):
				t.Fatal("the call blocked") // the goroutine stays blocked on the open: the test binary exits
			}
		})
	}
	if b := make([]byte, 1); func() bool { n, _ := r.Read(b); return n > 0 }() {
		t.Error("a refused write reached the FIFO's reader")
	}
	// Regular files still read and write.
	if err := d.WriteFile(ctx, "notes/a.txt", "hello"); err != nil {
		t.Fatal(err)
	}
	if s, err := d.ReadFile(ctx, "notes/a.txt"); s != "hello" || err != nil {
		t.Fatalf("ReadFile = %q, %v", s, err)
	}
}

// No error of fs shows where the work directory is on the host.
func TestDirFSErrorsHaveNoHostPath(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "file"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	d, err := agent.OpenDirFS(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	ctx := context.Background()
	for _, call := range []func() error{
		func() error { _, err := d.ReadFile(ctx, "missing"); return err },
		func() error { return d.WriteFile(ctx, "file/child", "x") },
		func() error { _, err := d.List(ctx, "file"); return err },
		func() error { _, err := d.Stat(ctx, "nope/nope"); return err },
	} {
		if err := call(); err == nil || strings.Contains(err.Error(), dir) {
			t.Errorf("err = %v: want an error without %s", err, dir)
		}
	}
}
