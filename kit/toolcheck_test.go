package kit_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/cordiskit/cordiskit/kit"
)

// AddCheck refuses registrations while its fiber lives, with the check's error.
func TestToolsAddCheck(t *testing.T) {
	root := newRoot(t, nil)
	tools, _ := kit.ToolsService.Get(root)
	errTooLong := errors.New("description too long for the adapter; shorten it")
	checker := listen(t, root, "adapter", func(c *kit.Context) error {
		return tools.AddCheck(c, func(_ string, s kit.ToolSchema) error {
			if len(s.Description) > 10 {
				return errTooLong
			}
			return nil
		})
	})
	register := func(name, desc string) error {
		tool := echoTool(name)
		tool.Description = desc
		var err error
		f := listen(t, root, "p-"+name, func(c *kit.Context) error {
			_, err = tools.Register(c, tool)
			return nil
		})
		t.Cleanup(func() { f.Dispose(context.Background()) })
		return err
	}
	if err := register("short", "fine"); err != nil {
		t.Fatalf("a tool that passes the check: %v", err)
	}
	err := register("long", strings.Repeat("d", 11))
	if !errors.Is(err, errTooLong) || !strings.Contains(err.Error(), `kit: tool "long": description too long`) {
		t.Fatalf("a tool that fails the check: %v", err)
	}
	if _, ok := tools.Get("long"); ok {
		t.Fatal("the refused tool is registered")
	}
	checker.Dispose(context.Background())
	if err := register("long2", strings.Repeat("d", 11)); err != nil {
		t.Fatalf("after the checker's fiber is disposed: %v", err)
	}
	if err := tools.AddCheck(root, nil); err == nil {
		t.Error("AddCheck(nil) succeeded")
	}
}
