package runner

import (
	"context"
	"testing"
	"time"

	"github.com/cordiskit/cordiskit/kit"
	"github.com/cordiskit/cordiskit/sandbox"
)

// newTestHost returns a sandbox host with short bounds and a kit runtime, both closed at
// the end of the test.
func newTestHost(t *testing.T) (*SandboxHost, *kit.Context) {
	t.Helper()
	root := kit.New(nil)
	h := NewSandboxHost(&sandbox.Options{Timeouts: &sandbox.Timeouts{VM: 300 * time.Millisecond, Mount: 300 * time.Millisecond, Call: 300 * time.Millisecond}})
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := root.Fiber().Dispose(ctx); err != nil {
			t.Errorf("dispose: %v", err)
		}
		if err := h.Close(ctx); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	return h, root
}

func startHost(t *testing.T, h *SandboxHost, root *kit.Context, code string) (HostRun, error) {
	t.Helper()
	return h.Start(context.Background(), root, HostSpec{PluginID: "clock-1", PackageID: "pkg-1", PluginRunID: "run-1", Code: code})
}
