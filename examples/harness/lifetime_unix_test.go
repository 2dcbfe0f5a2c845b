//go:build unix

package main

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// processGone reports whether pid has ended (a zombie waiting to be reaped counts),
// waiting up to two seconds for a kill to land.
func processGone(pid int) bool {
	for deadline := time.Now().Add(2 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) {
			return true
		}
		if b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); err == nil {
			if i := strings.LastIndexByte(string(b), ')'); i > 0 && strings.HasPrefix(string(b[i+1:]), " Z") {
				return true
			}
		}
	}
	syscall.Kill(pid, syscall.SIGKILL) // do not leave it behind
	return false
}

// What a mount starts ends with it: the background child of a command that already
// exited is gone, and a command it left running (with its children) is killed when the
// mount is unmounted, which does not wait for it.
func TestUnmountEndsTheMountsCommands(t *testing.T) {
	work := t.TempDir()
	h := bootIn(t, work)
	id := h.mustMount(t, `return { name: 'bg', inject: ['exec'], async apply(ctx) {
		await ctx.exec.shell('sleep 100 >/dev/null 2>&1 & echo $! > orphan')
		ctx.exec.run({ program: 'sh', args: ['-c', 'sleep 100 & echo $! > child; echo $$ > pid; wait'] })
	} }`)
	pids := map[string]int{}
	for deadline := time.Now().Add(5 * time.Second); len(pids) < 3; time.Sleep(10 * time.Millisecond) {
		for _, f := range []string{"pid", "child", "orphan"} {
			if b, err := os.ReadFile(filepath.Join(work, f)); err == nil && strings.HasSuffix(string(b), "\n") {
				pids[f], _ = strconv.Atoi(strings.TrimSpace(string(b)))
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the command did not start: %v", pids)
		}
	}
	start := time.Now()
	if _, err := h.callTool(t, "cordis_unmount", map[string]string{"id": id}); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("unmount took %v", d)
	}
	for name, pid := range pids {
		if !processGone(pid) {
			t.Errorf("the mount's %s process %d outlived the unmount", name, pid)
		}
	}
}

// A mount reading a FIFO gets an error at once, instead of a call that blocks (and an
// unmount that waits for it while holding the toolset's lock).
func TestMountReadingAFIFOFailsFast(t *testing.T) {
	work := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(work, "fifo"), 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	h := bootIn(t, work)
	id := h.mustMount(t, `return { name: 'fifo', inject: ['fs'], apply(ctx) {
		ctx.fs.readFile('fifo') // left pending on purpose: the unmount must not wait for it
		ctx.tools.register({ name: 'probe', description: 'reads the FIFO', parameters: { type: 'object' },
			async execute() { try { return await ctx.fs.readFile('fifo') } catch (e) { return 'refused: ' + e.message } } })
	} }`)
	start := time.Now()
	out, err := h.callTool(t, "probe", map[string]any{})
	if err != nil || !strings.Contains(out, "refused") || !strings.Contains(out, "named pipe") || strings.Contains(out, work) {
		t.Fatalf("probe = %s, %v; want a refusal naming the FIFO, without the host path", out, err)
	}
	if _, err := h.callTool(t, "cordis_unmount", map[string]string{"id": id}); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("the read and the unmount took %v", d)
	}
}
