package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/cordiskit/cordiskit/kit"
	"github.com/cordiskit/cordiskit/sandbox"
	"github.com/cordiskit/cordiskit/tooldecl/cordis"
	"github.com/cordiskit/cordiskit/toolset"
)

// A kitHost is a cordiskit runtime as a model drives it: a kit root, the bench services
// (Echo, and the tool registry again as bench-tools and bench-tools-by-hand) and a toolset whose façade adds
// bench/tick and their bindings. Mounts go through the
// registry's JSON tool calls, cordis_mount and cordis_unmount.
type kitHost struct {
	root   *kit.Context
	ts     *toolset.Toolset
	tools  *kit.Tools
	errors *errorCounter
}

func newKitHost() (*kitHost, error) {
	errs := &errorCounter{}
	logger := slog.New(errs)
	root := kit.New(&kit.Options{Logger: logger})
	svc := root.Plugin(&kit.Plugin{Name: "bench-services", Inject: []string{kit.ToolsService.Key()}, Apply: func(c *kit.Context) error {
		tools, _ := kit.ToolsService.Get(c)
		return errors.Join(EchoService.Provide(c, &Echo{}), BenchTools.Provide(c, tools), HandTools.Provide(c, tools))
	}})
	if err := svc.Err(); err != nil {
		_ = root.Fiber().Dispose(context.Background())
		return nil, err
	}
	// Generous call bound: a JS → Go batch runs for tens of milliseconds in one entry.
	ts, err := toolset.New(root, &toolset.Options{Facade: benchFacade, Logger: logger, Timeouts: &sandbox.Timeouts{Call: time.Minute}})
	if err != nil {
		_ = root.Fiber().Dispose(context.Background())
		return nil, err
	}
	tools, ok := kit.ToolsService.Get(root)
	if !ok {
		return nil, errors.New("the tools service is not running")
	}
	return &kitHost{root: root, ts: ts, tools: tools, errors: errs}, nil
}

// close unmounts everything and stops the runtime.
func (h *kitHost) close() error {
	ctx := context.Background()
	return errors.Join(h.ts.Dispose(ctx), h.root.Fiber().Dispose(ctx))
}

// mountInput is the cordis_mount arguments for body, built before any timing starts (a
// model's tool call arrives as JSON already).
func mountInput(body string) json.RawMessage {
	b, err := json.Marshal(cordis.MountInput{Code: body})
	if err != nil {
		panic(err) // a string always marshals
	}
	return b
}

func unmountInput(id string) json.RawMessage {
	b, err := json.Marshal(cordis.UnmountInput{ID: id})
	if err != nil {
		panic(err)
	}
	return b
}

// mount calls cordis_mount and returns its raw result; parse it with mountedID outside
// any timing.
func (h *kitHost) mount(ctx context.Context, in json.RawMessage) (json.RawMessage, error) {
	return h.tools.Call(ctx, cordis.Mount.Name(), in)
}

// mountedID checks a cordis_mount result: the plugin must be running.
func mountedID(out json.RawMessage) (string, error) {
	var res cordis.MountOutput
	if err := json.Unmarshal(out, &res); err != nil {
		return "", fmt.Errorf("decoding the cordis_mount result %s: %w", out, err)
	}
	if res.State != cordis.StateActive {
		return "", fmt.Errorf("mount %s is %s, not active (waiting for %v)", res.ID, res.State, res.WaitingFor)
	}
	return res.ID, nil
}

// mountID is mount followed by mountedID, for setup code that is not timed.
func (h *kitHost) mountID(ctx context.Context, body string) (string, error) {
	out, err := h.mount(ctx, mountInput(body))
	if err != nil {
		return "", err
	}
	return mountedID(out)
}

func (h *kitHost) unmount(ctx context.Context, in json.RawMessage) error {
	_, err := h.tools.Call(ctx, cordis.Unmount.Name(), in)
	return err
}

// failures reports the errors the runtime logged (a failed listener, a panic), if any.
func (h *kitHost) failures() error { return h.errors.err() }

// errorCounter is a slog.Handler that drops everything below Error and counts the rest,
// keeping the first: the bench's listeners must never fail.
type errorCounter struct {
	mu    sync.Mutex
	n     int
	first string
}

func (c *errorCounter) Enabled(_ context.Context, l slog.Level) bool { return l >= slog.LevelError }
func (c *errorCounter) WithAttrs([]slog.Attr) slog.Handler           { return c }
func (c *errorCounter) WithGroup(string) slog.Handler                { return c }

func (c *errorCounter) Handle(_ context.Context, r slog.Record) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n == 0 {
		var b strings.Builder
		b.WriteString(r.Message)
		r.Attrs(func(a slog.Attr) bool { fmt.Fprintf(&b, " %s=%v", a.Key, a.Value); return true })
		c.first = b.String()
	}
	c.n++
	return nil
}

func (c *errorCounter) err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n == 0 {
		return nil
	}
	return fmt.Errorf("the runtime logged %d error(s); the first: %s", c.n, c.first)
}
