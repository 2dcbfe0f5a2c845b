package invoke_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/cordiskit/cordiskit/invoke"
	"github.com/cordiskit/cordiskit/kit"
)

// benchSchema is a typical tool's input schema: a few typed properties, a constraint, an
// enum, an array and a shared definition.
const benchSchema = `{"type":"object","properties":{
	"path":{"type":"string","description":"the file to read"},
	"limit":{"type":"integer","minimum":1,"maximum":1000},
	"mode":{"enum":["text","lines","bytes"]},
	"tags":{"type":"array","items":{"type":"string"}},
	"range":{"$ref":"#/$defs/range"}},
	"required":["path"],"additionalProperties":false,
	"$defs":{"range":{"type":"object","properties":{"from":{"type":"integer"},"to":{"type":"integer"}}}}}`

const benchArgs = `{"path":"a/b.txt","limit":20,"mode":"lines","tags":["x","y"],"range":{"from":1,"to":9}}`

func benchTool(schema string) kit.Tool {
	return kit.Tool{
		ToolSchema: kit.ToolSchema{Name: "read", Description: "reads a file", InputSchema: json.RawMessage(schema)},
		Execute: func(context.Context, json.RawMessage) (json.RawMessage, error) {
			return json.RawMessage(`"ok"`), nil
		},
	}
}

func benchRuntime(b *testing.B) (*kit.Context, *kit.Tools, *invoke.Invoker) {
	root := kit.New(nil)
	b.Cleanup(func() { _ = root.Fiber().Dispose(context.Background()) })
	tools, ok := kit.ToolsService.Get(root)
	if !ok {
		b.Fatal("no tools service")
	}
	inv, err := invoke.NewInvoker(root)
	if err != nil {
		b.Fatal(err)
	}
	return root, tools, inv
}

// BenchmarkRegisterTool registers a tool, calls it once (which resolves its schema for the
// invoker) and removes it; the floor does the same with a tool without a schema.
func BenchmarkRegisterTool(b *testing.B) {
	for _, c := range []struct{ name, schema string }{{"schema", benchSchema}, {"floor", ""}} {
		b.Run(c.name, func(b *testing.B) {
			root, tools, inv := benchRuntime(b)
			tool := benchTool(c.schema)
			b.ReportAllocs()
			for b.Loop() {
				unregister, err := tools.Register(root, tool)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := inv.Invoke(context.Background(), "read", json.RawMessage(benchArgs)); err != nil {
					b.Fatal(err)
				}
				unregister()
			}
		})
	}
}

// BenchmarkValidateCall calls a registered tool with typical arguments: the schema is
// resolved already, so the call validates; the floor's tool has no schema.
func BenchmarkValidateCall(b *testing.B) {
	for _, c := range []struct{ name, schema string }{{"schema", benchSchema}, {"floor", ""}} {
		b.Run(c.name, func(b *testing.B) {
			root, tools, inv := benchRuntime(b)
			if _, err := tools.Register(root, benchTool(c.schema)); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := inv.Invoke(context.Background(), "read", json.RawMessage(benchArgs)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
