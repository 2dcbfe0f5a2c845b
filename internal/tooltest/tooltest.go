// Package tooltest holds the test helpers the invoke and mcpkit tests share: a quiet runtime,
// tools with hand-written schemas, and a plugin that registers them as a mount would.
package tooltest

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"testing"

	"github.com/cordiskit/cordiskit/kit"
)

// NewRuntime starts a quiet runtime that is disposed when the test ends.
func NewRuntime(t *testing.T) *kit.Context {
	t.Helper()
	root := kit.New(&kit.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	t.Cleanup(func() { root.Fiber().Dispose(context.Background()) })
	return root
}

// RawTool is a tool with hand-written schemas, as a JavaScript mount would register one.
func RawTool(name, input, output string, run func(args map[string]any) (any, error)) kit.Tool {
	s := kit.ToolSchema{Name: name, Description: "test tool " + name}
	if input != "" {
		s.InputSchema = json.RawMessage(input)
	}
	if output != "" {
		s.OutputSchema = json.RawMessage(output)
	}
	return kit.Tool{ToolSchema: s, Execute: func(ctx context.Context, in json.RawMessage) (json.RawMessage, error) {
		var args map[string]any
		if err := json.Unmarshal(in, &args); err != nil {
			return nil, err
		}
		out, err := run(args)
		if err != nil {
			return nil, err
		}
		return json.Marshal(out)
	}}
}

// EchoInput and EchoOutput are the schemas of Echo.
const EchoInput = `{"type":"object","properties":{"text":{"type":"string"},"times":{"type":"integer","minimum":1}},"required":["text"],"additionalProperties":false}`
const EchoOutput = `{"type":"object","properties":{"text":{"type":"string"}}}`

// Echo returns its text argument; its schemas refuse anything else.
func Echo() kit.Tool {
	return RawTool("echo", EchoInput, EchoOutput, func(args map[string]any) (any, error) {
		return map[string]any{"text": args["text"]}, nil
	})
}

// Failing always fails with a teaching error.
func Failing() kit.Tool {
	return RawTool("fail", `{"type":"object"}`, "", func(map[string]any) (any, error) {
		return nil, errors.New("disk is full; free some space and call fail again")
	})
}

// Mount starts a plugin that registers tools, as a mount would; dispose it to remove them.
func Mount(t *testing.T, root *kit.Context, name string, tools ...kit.Tool) *kit.Fiber {
	t.Helper()
	reg, _ := kit.ToolsService.Get(root)
	f := root.Plugin(&kit.Plugin{Name: name, Apply: func(c *kit.Context) error {
		for _, tool := range tools {
			if _, err := reg.Register(c, tool); err != nil {
				return err
			}
		}
		return nil
	}})
	if err := f.Err(); err != nil {
		t.Fatalf("plugin %s: %v", name, err)
	}
	return f
}
