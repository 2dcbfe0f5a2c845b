package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cordiskit/cordiskit/examples/harness/agent"
	"github.com/cordiskit/cordiskit/examples/harness/cordisapi"
	"github.com/cordiskit/cordiskit/kit"
	"github.com/cordiskit/cordiskit/sandbox"
	"github.com/cordiskit/cordiskit/toolset"
)

// memFS is an in-memory fs written by a model: the abstract seam agent.FileSystem,
// implemented in JavaScript.
const memFS = `
const files = new Map();
const clean = (p) => p.split('/').filter((s) => s && s !== '.').join('/');
const info = (path) => {
	const p = clean(path);
	if (files.has(p)) return { name: p.split('/').pop(), path: p, size: files.get(p).length, dir: false };
	if (p === '' || [...files.keys()].some((k) => k.startsWith(p + '/'))) return { name: p.split('/').pop() || '.', path: p, size: 0, dir: true };
	throw new Error('fs: ' + path + ': no such file or directory');
};
return {
	name: 'memfs',
	apply(ctx) {
		ctx.provide('fs', {
			async readFile(path) {
				if (!files.has(clean(path))) throw new Error('fs: ' + path + ': no such file');
				return files.get(clean(path));
			},
			async writeFile(path, content) { files.set(clean(path), content) },
			async list(path) {
				const dir = clean(path), prefix = dir ? dir + '/' : '';
				const names = new Set([...files.keys()].filter((k) => k.startsWith(prefix)).map((k) => k.slice(prefix.length).split('/')[0]));
				return [...names].sort().map((n) => info(prefix + n));
			},
			async stat(path) { await null; return info(path) }, // settles in a later job
		});
	},
}`

// TestMountProvidesTheFSSeam has a mount implement the runtime's abstract fs seam in
// memory: Go code (a plugin that injects fs) gets it through agent.FS like the DirFS the
// runtime normally provides, another mount reads it through ctx.fs, and when the
// provider is unmounted the service goes and a value Go still holds fails clearly.
func TestMountProvidesTheFSSeam(t *testing.T) {
	ctx := context.Background()
	root := kit.New(&kit.Options{Logger: quiet()})
	ts, err := toolset.New(root, &toolset.Options{Catalog: cordisapi.Catalog, Facade: cordisapi.Facade, Logger: quiet(), Timeouts: &sandbox.Timeouts{Call: time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := ts.Dispose(ctx); err != nil {
			t.Error(err)
		}
		root.Fiber().Dispose(ctx)
	})
	tools, _ := kit.ToolsService.Get(root)
	call := func(tool string, args any) (string, error) {
		b, _ := json.Marshal(args)
		out, err := tools.Call(ctx, tool, b)
		return string(out), err
	}

	// The Go plugin calls the seam as it loads, which happens once the mount's apply has
	// returned: the mount's promise jobs can run, so an async method settles.
	loaded := make(chan agent.FileSystem, 1)
	indexer := root.Plugin(&kit.Plugin{Name: "indexer", Inject: []string{"fs"}, Apply: func(c *kit.Context) error {
		fs, ok := agent.FS.Get(c)
		if !ok {
			return errors.New("fs missing in apply")
		}
		if st, err := fs.Stat(context.Background(), "."); err != nil || !st.Dir {
			return fmt.Errorf("fs.Stat in apply = %+v, %v", st, err)
		}
		loaded <- fs
		return nil
	}})

	out, err := call("cordis_mount", map[string]string{"code": memFS})
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		ID       string
		State    string
		Provides []string
	}
	if err := json.Unmarshal([]byte(out), &m); err != nil || m.State != "active" || strings.Join(m.Provides, ",") != "fs" {
		t.Fatalf("cordis_mount = %s, %v", out, err)
	}
	var fs agent.FileSystem
	select {
	case fs = <-loaded:
	case <-time.After(5 * time.Second):
		t.Fatal("the Go plugin injecting fs did not load when the mount provided it")
	}

	if err := fs.WriteFile(ctx, "notes/todo.txt", "buy milk"); err != nil {
		t.Fatal(err)
	}
	if err := fs.WriteFile(ctx, "notes/done.txt", "ship it"); err != nil {
		t.Fatal(err)
	}
	if got, err := fs.ReadFile(ctx, "./notes/todo.txt"); got != "buy milk" || err != nil {
		t.Errorf("ReadFile = %q, %v", got, err)
	}
	list, err := fs.List(ctx, "notes")
	want := []agent.FileInfo{{Name: "done.txt", Path: "notes/done.txt", Size: 7}, {Name: "todo.txt", Path: "notes/todo.txt", Size: 8}}
	if err != nil || len(list) != 2 || list[0] != want[0] || list[1] != want[1] {
		t.Errorf("List = %+v, %v; want %+v", list, err, want)
	}
	if st, err := fs.Stat(ctx, "notes"); err != nil || !st.Dir {
		t.Errorf("Stat(notes) = %+v, %v", st, err)
	}
	if _, err := fs.ReadFile(ctx, "nope.txt"); err == nil || !strings.Contains(err.Error(), "fs.readFile, implemented in JavaScript: dyn-1: Error: fs: nope.txt: no such file") {
		t.Errorf("ReadFile(missing) = %v", err)
	}

	// Another mount uses the JavaScript fs through the same binding as the runtime's DirFS.
	reader := `return { name: 'reader', inject: ['fs'], apply(ctx) {
		ctx.tools.register({ name: 'probe', description: 'reads', parameters: { type: 'object' },
			execute: async () => (await ctx.fs.readFile('notes/done.txt')) + ' / ' + (await ctx.fs.list('')).map((f) => f.path + (f.dir ? '/' : '')).join() })
	} }`
	if _, err := call("cordis_mount", map[string]string{"code": reader}); err != nil {
		t.Fatal(err)
	}
	if got, err := call("probe", map[string]any{}); err != nil || got != `"ship it / notes/"` {
		t.Errorf("probe = %s, %v", got, err)
	}

	if _, err := call("cordis_unmount", map[string]string{"id": m.ID}); err != nil {
		t.Fatal(err)
	}
	if indexer.State() != kit.StatePending {
		t.Errorf("the Go plugin injecting fs is %v after the provider went, want pending", indexer.State())
	}
	if _, ok := agent.FS.Get(root); ok {
		t.Error("fs is still provided after its mount was unmounted")
	}
	if _, err := fs.ReadFile(ctx, "notes/todo.txt"); !errors.Is(err, sandbox.ErrClosed) || !strings.Contains(err.Error(), `the JavaScript implementation of service "fs" is gone`) {
		t.Errorf("ReadFile after unmount = %v, want the implementation gone", err)
	}
	if _, err := call("probe", map[string]any{}); err == nil {
		t.Error("the reader's tool still runs without fs")
	}
}
