package mcpkit_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cordiskit/cordiskit/kit"
	"github.com/cordiskit/cordiskit/mcpkit"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// oneShot is what a client piping its requests writes: the handshake and one tools/call
// of tool, after which its input ends.
func oneShot(tool string) string {
	return `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"pipe","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"` + tool + `","arguments":{}}}
`
}

// endedInput reads r and closes ended when it reaches the end.
type endedInput struct {
	r     io.Reader
	once  sync.Once
	ended chan struct{}
}

func (e *endedInput) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if err == io.EOF {
		e.once.Do(func() { close(e.ended) })
	}
	return n, err
}

// output collects what the server writes, safe for its concurrent writes.
type output struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (o *output) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.buf.Write(p)
}

func (o *output) Close() error { return nil }

// answers returns the results written for id, in order.
func (o *output) answers(t *testing.T, id int) []json.RawMessage {
	t.Helper()
	o.mu.Lock()
	defer o.mu.Unlock()
	var out []json.RawMessage
	for line := range strings.Lines(o.buf.String()) {
		var m struct {
			ID     *int            `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("the server wrote a line that is not JSON: %v: %q", err, line)
		}
		if m.ID != nil && *m.ID == id {
			if m.Error != nil {
				t.Fatalf("call %d got a protocol error %s; a tool call's failure must be a tool error", id, m.Error)
			}
			out = append(out, m.Result)
		}
	}
	return out
}

// newOneShot is the input of a client that sends oneShot(tool) and closes it.
func newOneShot(tool string) *endedInput {
	return &endedInput{r: strings.NewReader(oneShot(tool)), ended: make(chan struct{})}
}

// serveInput serves the tools of root over in and returns what the server wrote once
// Serve has returned.
func serveInput(t *testing.T, root *kit.Context, in *endedInput, opts *mcpkit.Options) *output {
	t.Helper()
	out := new(output)
	done := make(chan error, 1)
	go func() {
		done <- mcpkit.Serve(context.Background(), root, &mcp.IOTransport{Reader: io.NopCloser(in), Writer: out}, opts)
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Serve after the client closed its input: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Serve did not return after the client closed its input")
	}
	return out
}

// theAnswer returns the one answer written for the tools/call of oneShot.
func theAnswer(t *testing.T, out *output) *mcp.CallToolResult {
	t.Helper()
	got := out.answers(t, 2)
	if len(got) != 1 {
		t.Fatalf("the call running when the input ended got %d answers before Serve returned, want 1; the server wrote:\n%s", len(got), out.buf.String())
	}
	var res mcp.CallToolResult
	if err := json.Unmarshal(got[0], &res); err != nil {
		t.Fatalf("the answer is not a tool result: %v: %s", err, got[0])
	}
	return &res
}

var blocking = kit.NewTool[struct{}, string]("slow")

// slowTool runs until wait returns, then returns its result.
func slowTool(wait func(ctx context.Context) (string, error)) kit.Tool {
	return blocking.Bind(kit.ToolSchema{Description: "takes its time", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(ctx context.Context, _ struct{}) (string, error) { return wait(ctx) })
}

// A client that writes its requests and closes its input at once (a one-shot pipe) gets
// the answer of a call still running when the input ended, before Serve returns.
func TestServeAnswersCallsRunningWhenInputEnds(t *testing.T) {
	root := newRuntime(t)
	in := newOneShot("slow")
	mount(t, root, "host", slowTool(func(context.Context) (string, error) {
		<-in.ended // still running when the input ends
		return "done after the input ended", nil
	}))
	res := theAnswer(t, serveInput(t, root, in, nil))
	if res.IsError || text(res) != "done after the input ended" {
		t.Errorf("the slow call's answer: isError=%v %q, want its result", res.IsError, text(res))
	}
}

// A call that outlives Options.ShutdownTimeout after the input ended is answered with a
// cancellation error, its context is cancelled, and Serve returns.
func TestServeCancelsCallsPastShutdownTimeout(t *testing.T) {
	root := newRuntime(t)
	cancelled := make(chan error, 1)
	mount(t, root, "host", slowTool(func(ctx context.Context) (string, error) {
		<-ctx.Done()
		cancelled <- context.Cause(ctx)
		return "", ctx.Err()
	}))
	res := theAnswer(t, serveInput(t, root, newOneShot("slow"), &mcpkit.Options{ShutdownTimeout: 50 * time.Millisecond}))
	if !res.IsError || !strings.Contains(text(res), "was cancelled") || !strings.Contains(text(res), "ShutdownTimeout") {
		t.Errorf("the answer of a call past the shutdown timeout: isError=%v %q, want a tool error saying it was cancelled and how to avoid it", res.IsError, text(res))
	}
	select {
	case err := <-cancelled:
		if err == nil {
			t.Error("the call's context is done without a cause")
		}
	default:
		t.Error("Serve returned while the call past the shutdown timeout was still running: its context was not cancelled")
	}
}
