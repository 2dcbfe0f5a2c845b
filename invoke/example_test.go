package invoke_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/cordiskit/cordiskit/invoke"
	"github.com/cordiskit/cordiskit/kit"
)

type wordsIn struct {
	Text string `json:"text"`
}

type wordsOut struct {
	Words int `json:"words"`
}

// Words counts the words of a text.
var Words = kit.NewTool[wordsIn, wordsOut]("words")

// An agent loop offers Tools to its model and routes the model's calls to Invoke, which
// validates the arguments first.
func ExampleInvoker() {
	root := kit.New(nil)
	defer root.Fiber().Dispose(context.Background())
	tools, _ := kit.ToolsService.Get(root)
	root.Plugin(&kit.Plugin{Name: "words", Apply: func(c *kit.Context) error {
		_, err := tools.Register(c, Words.Bind(kit.ToolSchema{
			Description: "counts the words of a text",
			// Usually from the generated catalog.
			InputSchema: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`),
		}, func(ctx context.Context, in wordsIn) (wordsOut, error) {
			n, inWord := 0, false
			for _, r := range in.Text {
				if r == ' ' {
					inWord = false
				} else if !inWord {
					n, inWord = n+1, true
				}
			}
			return wordsOut{n}, nil
		}))
		return err
	}})

	inv, err := invoke.NewInvoker(root)
	if err != nil {
		panic(err)
	}
	defer inv.Close(context.Background())

	for _, t := range inv.Tools() {
		fmt.Printf("tool %s: %s\n", t.Name, t.Description)
	}
	out, err := inv.Invoke(context.Background(), "words", json.RawMessage(`{"text":"to be or not"}`))
	fmt.Println(string(out), err)
	_, err = inv.Invoke(context.Background(), "words", json.RawMessage(`{"text":42}`))
	fmt.Println(err)
	// Output:
	// tool words: counts the words of a text
	// {"words":4} <nil>
	// tool "words": invalid argument "text": type: 42 has type "integer", want "string"; call it again with arguments that match its input schema
}
