package toolset_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/cordiskit/cordiskit/catalog"
	"github.com/cordiskit/cordiskit/kit"
	"github.com/cordiskit/cordiskit/toolset"
)

// seamCatalog has a concrete service (notes), an abstract seam the host provides (fs)
// and one nobody provides (summarizer).
func seamCatalog() *catalog.Catalog {
	method := func(js, sig string) catalog.Method {
		return catalog.Method{Name: strings.ToUpper(js[:1]) + js[1:], JSName: js, Doc: js + " does it.", Signature: sig}
	}
	return &catalog.Catalog{Services: []catalog.Service{
		{Key: "fs", Abstract: true, Summary: "FS is the filesystem seam.", Doc: "FS is the filesystem seam.",
			Methods: []catalog.Method{method("readFile", "async readFile(path: string): Promise<string>")}},
		{Key: "notes", Summary: "Notes keeps notes.", Doc: "Notes keeps notes.",
			Methods: []catalog.Method{method("add", "add(text: string): void")}},
		{Key: "summarizer", Abstract: true, Summary: "Summarizer shortens text.", Doc: "Summarizer shortens text.\n\nImplement it in a plugin.",
			Methods: []catalog.Method{method("summarize", "async summarize(text: string): Promise<string>")}},
	}}
}

// inspectWith starts a toolset on cat, provides keys from the host and returns a
// cordis_inspect caller that reports errors.
func inspectWith(t *testing.T, cat *catalog.Catalog, keys ...string) func(args string) (string, error) {
	t.Helper()
	root := kit.New(&kit.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	t.Cleanup(func() { root.Fiber().Dispose(context.Background()) })
	ts, err := toolset.New(root, &toolset.Options{Catalog: cat})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ts.Dispose(context.Background()) })
	for _, k := range keys {
		if err := root.Provide(k, struct{}{}); err != nil {
			t.Fatal(err)
		}
	}
	tools, _ := kit.ToolsService.Get(root)
	return func(args string) (string, error) {
		out, err := tools.Call(context.Background(), "cordis_inspect", json.RawMessage(args))
		if err != nil {
			return "", err
		}
		var s string
		if err := json.Unmarshal(out, &s); err != nil {
			t.Fatal(err)
		}
		return s, nil
	}
}

// TestInspectMarksAbstractSeams checks that the api section tells an abstract seam from
// a service the runtime provides, says how a mount implements one, and shows the
// interface of a seam nobody provides (it is what a mount must implement).
func TestInspectMarksAbstractSeams(t *testing.T) {
	inspect := inspectWith(t, seamCatalog(), "fs", "notes")
	broad, err := inspect(`{"what":"api"}`)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"- fs (abstract seam: an interface implemented by a plugin, now by root; inject it to call it) — FS is the filesystem seam.\n    async readFile(path: string): Promise<string>",
		"- notes — Notes keeps notes.\n    add(text: string): void",
		"abstract seams no plugin provides yet (what:\"api\" with the name adds each method's doc):\n" +
			"- summarizer (abstract seam: implemented by a plugin, and none provides it now; provide it with ctx.provide('summarizer', { …the methods below })) — Summarizer shortens text.\n" +
			"    async summarize(text: string): Promise<string>",
	} {
		if !strings.Contains(broad, want) {
			t.Errorf("broad api section lacks\n%s\nin:\n%s", want, broad)
		}
	}
	if strings.Contains(broad, "not running") {
		t.Errorf("an abstract seam is listed as not running, want it among the seams to implement:\n%s", broad)
	}

	named, err := inspect(`{"what":"api","name":"summarizer"}`)
	if err != nil {
		t.Fatalf("named view of an unprovided abstract seam: %v (want its interface, to implement it)", err)
	}
	want := `## api
- summarizer (abstract seam: implemented by a plugin, and none provides it now; provide it with ctx.provide('summarizer', { …the methods below })) — Summarizer shortens text.
    // Summarizer shortens text.
    //
    // Implement it in a plugin.

    // summarize does it.
    async summarize(text: string): Promise<string>`
	if named != want {
		t.Errorf("named seam view:\n%s\nwant:\n%s", named, want)
	}
	if named, _ := inspect(`{"what":"api","name":"fs"}`); !strings.HasPrefix(named, "## api\n- fs (abstract seam: an interface implemented by a plugin, now by root;") {
		t.Errorf("named view of a provided seam is not marked:\n%s", named)
	}
	if named, _ := inspect(`{"what":"api","name":"notes"}`); !strings.HasPrefix(named, "## api\n- notes — Notes keeps notes.\n") {
		t.Errorf("named view of a concrete service:\n%s", named)
	}
}

// TestInspectConcreteNotRunning checks that a concrete service without a provider still
// reads as not running, in the list and by name: only a seam is a mount's to implement.
func TestInspectConcreteNotRunning(t *testing.T) {
	inspect := inspectWith(t, seamCatalog(), "fs")
	broad, err := inspect(`{"what":"api"}`)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(broad, "not running (loadable services with no live provider): notes") {
		t.Errorf("notes is not listed as not running:\n%s", broad)
	}
	_, err = inspect(`{"what":"api","name":"notes"}`)
	if err == nil || !strings.Contains(err.Error(), `catalogued service "notes" is not running`) {
		t.Errorf("named view of a stopped concrete service: err = %v", err)
	}
}
