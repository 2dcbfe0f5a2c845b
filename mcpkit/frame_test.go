package mcpkit_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/cordiskit/cordiskit/kit"
	"github.com/cordiskit/cordiskit/mcpkit"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// These tests run against the SDK's own client over its in-memory transport, whose frame
// limit (mcp.DefaultMaxLineLength, 16 MiB) is the one stdio clients have: a larger frame
// ends the session, and the model loses every tool.

// bigTool is a tool whose listing entry or result is large once JSON-encoded.
func bigTool(name, description string, result func() (any, error)) kit.Tool {
	t := rawTool(name, `{"type":"object"}`, "", func(map[string]any) (any, error) { return result() })
	t.Description = description
	return t
}

// rawResultTool returns result, a JSON document, as it is (rawTool would re-encode it).
func rawResultTool(name, result string) kit.Tool {
	return kit.Tool{
		ToolSchema: kit.ToolSchema{Name: name, Description: "returns a fixed result", InputSchema: json.RawMessage(`{"type":"object"}`)},
		Execute:    func(context.Context, json.RawMessage) (json.RawMessage, error) { return json.RawMessage(result), nil },
	}
}

// stillServes checks that the session survived: the list reads as want and echo answers.
func (c *client) stillServes(t *testing.T, want ...string) {
	t.Helper()
	res, err := c.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatalf("tools/list failed, the session is gone: %v", err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
	}
	slices.Sort(names)
	if strings.Join(names, " ") != strings.Join(want, " ") {
		t.Errorf("listed %v, want %v", names, want)
	}
	r, err := c.CallTool(context.Background(), &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "alive"}})
	if err != nil || r.IsError {
		t.Fatalf("echo after the big message: %v %+v", err, r)
	}
}

// TestServerResultTooLarge: a result under the sandbox's caps that JSON escaping grows past
// the frame limit ('<' in text content is sent as \u003c, six bytes), or that the
// structured copy doubles, is a tool error saying how big it was and how to return less.
func TestServerResultTooLarge(t *testing.T) {
	root := newRuntime(t)
	structured := rawTool("structured", `{"type":"object"}`, `{"type":"object"}`, func(map[string]any) (any, error) {
		return map[string]string{"data": strings.Repeat("x", 9<<19)}, nil
	})
	mount(t, root, "host", echo(), structured,
		rawResultTool("escaped", `"`+strings.Repeat("<", 3<<20)+`"`),
		bigTool("loud_error", "fails at length", func() (any, error) { return nil, errors.New(strings.Repeat("&", 3<<20)) }),
		rawResultTool("fits", `"`+strings.Repeat("<", 256<<10)+`"`))
	s, err := mcpkit.NewServer(root, nil)
	if err != nil {
		t.Fatal(err)
	}
	c := connect(t, s, protocols[0])
	for _, tc := range []struct {
		tool string
		want []string
	}{
		{"escaped", []string{`tool "escaped" returned a result too large to send: 18.0 MiB (`, ` bytes) once encoded for MCP, and one message carries at most 8.0 MiB (8384512 bytes); return less: take arguments that select a part`}},
		{"structured", []string{`tool "structured" returned a result too large to send: 9.0 MiB (`}},
		{"loud_error", []string{"&&&&", ` … (the error message was cut: the whole of it, 18.0 MiB (`}},
	} {
		r, err := c.CallTool(context.Background(), &mcp.CallToolParams{Name: tc.tool})
		if err != nil {
			t.Fatalf("%s: protocol error %v, want a tool error", tc.tool, err)
		}
		got := text(r)
		if !r.IsError || len(got) > 100<<10 {
			t.Errorf("%s: isError=%v, %d bytes; want a short tool error", tc.tool, r.IsError, len(got))
		}
		for _, w := range tc.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: %.300q…\nwant it to contain %q", tc.tool, got, w)
			}
		}
	}
	if r := c.call(t, "fits", nil); r.IsError || len(text(r)) != 256<<10 {
		t.Errorf("fits: isError=%v, %d bytes", r.IsError, len(text(r)))
	}
	c.stillServes(t, "echo", "escaped", "fits", "loud_error", "structured")
}

// logRecords collects the messages and tool attributes logged at error level.
type logRecords struct {
	mu   sync.Mutex
	seen []string
}

func (l *logRecords) Enabled(context.Context, slog.Level) bool { return true }
func (l *logRecords) WithAttrs([]slog.Attr) slog.Handler       { return l }
func (l *logRecords) WithGroup(string) slog.Handler            { return l }
func (l *logRecords) Handle(_ context.Context, r slog.Record) error {
	line := r.Message
	r.Attrs(func(a slog.Attr) bool { line += " " + a.String(); return true })
	l.mu.Lock()
	l.seen = append(l.seen, line)
	l.mu.Unlock()
	return nil
}

func (l *logRecords) lines() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.seen, "\n")
}

// TestServerToolTooLarge: a tool whose entry in tools/list is too large is refused when it
// registers (the error says why and what to do), or, registered before the server
// attached, left out of the list and logged; the rest of the list still goes out.
func TestServerToolTooLarge(t *testing.T) {
	logs := &logRecords{}
	root := kit.New(&kit.Options{Logger: slog.New(logs)})
	t.Cleanup(func() { root.Fiber().Dispose(context.Background()) })
	reg, _ := kit.ToolsService.Get(root)
	mount(t, root, "host", echo())
	// 17 MiB: over the frame limit on its own.
	early := mount(t, root, "early", bigTool("huge_description", strings.Repeat("d", 17<<20), func() (any, error) { return 1, nil }))

	s, err := mcpkit.NewServer(root, nil)
	if err != nil {
		t.Fatal(err)
	}
	c := connect(t, s, protocols[0])
	c.stillServes(t, "echo")
	if got := logs.lines(); !strings.Contains(got, "mcpkit: tool not served over MCP tool=huge_description") || !strings.Contains(got, "this server lists at most 1.0 MiB") {
		t.Errorf("log:\n%s\nwant the left-out tool reported", got)
	}
	if _, err := reg.Call(context.Background(), "huge_description", json.RawMessage(`{}`)); err != nil {
		t.Errorf("the tool left out of the MCP list is still registered: %v", err)
	}
	early.Dispose(context.Background())

	// Registered later, it is refused with the reason.
	f := root.Plugin(&kit.Plugin{Name: "late", Apply: func(c *kit.Context) error {
		_, err := reg.Register(c, bigTool("late_description", strings.Repeat("<", 3<<20), func() (any, error) { return 1, nil }))
		return err
	}})
	if err := f.Err(); err == nil || !strings.Contains(err.Error(), `kit: tool "late_description": mcpkit: the tool's entry in the MCP tool list would be 3.0 MiB (3145805 bytes) once encoded, and this server lists at most 1.0 MiB (1048576 bytes) per tool; shorten its description or its parameters schema`) {
		t.Errorf("registering a 3 MiB description: %v", err)
	}
	c.stillServes(t, "echo")
}

// TestServerToolListTooLarge: tools that are each small enough but together too large for
// one message are served in registration order until the list is full; the others are
// left out (or refused, once the server is attached), and served when room is freed. The
// budgets are small here so the test is quick; TestServerToolTooLarge uses the defaults.
func TestServerToolListTooLarge(t *testing.T) {
	root := newRuntime(t)
	reg, _ := kit.ToolsService.Get(root)
	mount(t, root, "host", echo())
	var fibers []*kit.Fiber
	var all []string
	for i := range 20 { // 20 × 30 KiB: 600 KiB, over the 256 KiB a message may carry here
		name := fmt.Sprintf("wide%02d", i)
		all = append(all, name)
		fibers = append(fibers, mount(t, root, name, bigTool(name, strings.Repeat("w", 30<<10), func() (any, error) { return 1, nil })))
	}
	mount(t, root, "wider", bigTool("wider", strings.Repeat("w", 40<<10), func() (any, error) { return 1, nil }))
	s, err := mcpkit.NewServer(root, &mcpkit.Options{MaxMessageBytes: 256 << 10, MaxToolBytes: 32 << 10})
	if err != nil {
		t.Fatal(err)
	}
	c := connect(t, s, protocols[0])
	served := append([]string{"echo"}, all[:8]...) // 8 × 30 KiB fit in 256 KiB
	c.stillServes(t, served...)

	f := root.Plugin(&kit.Plugin{Name: "more", Apply: func(c *kit.Context) error {
		_, err := reg.Register(c, bigTool("more", strings.Repeat("m", 30<<10), func() (any, error) { return 1, nil }))
		return err
	}})
	if err := f.Err(); err == nil || !strings.Contains(err.Error(), "with this tool the MCP tool list would be") || !strings.Contains(err.Error(), "more than one message carries (256.0 KiB") {
		t.Errorf("registering one more: %v", err)
	}

	// Removing two served tools makes room for the next two left out (never for wider,
	// too large on its own).
	fibers[0].Dispose(context.Background())
	fibers[1].Dispose(context.Background())
	c.awaitList(t, append([]string{"echo"}, all[2:10]...)...)

	// A result is held to the same budget.
	mount(t, root, "result", rawResultTool("page", `"`+strings.Repeat("r", 300<<10)+`"`))
	c.awaitList(t, append([]string{"echo", "page"}, all[2:10]...)...)
	if r := c.call(t, "page", nil); !r.IsError || !strings.Contains(text(r), "one message carries at most 252.0 KiB") {
		t.Errorf("page: isError=%v %.200q", r.IsError, text(r))
	}
}
