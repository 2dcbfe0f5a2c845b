package scan

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// fuzzTypes is the menu of payload field types FuzzScan draws from: the supported ones
// and some that are not (a channel, an unexported type, a func other than a callback).
var fuzzTypes = []string{"string", "int", "int32", "uint8", "float64", "bool", "[]string",
	"map[string]int", "*Inner", "Inner", "time.Duration", "chan int", "inner", "func() int", "any"}

// fuzzModule writes a throwaway module that uses this repository through a replace
// directive to its root, found from this file's path, and returns its directory.
func fuzzModule(tb testing.TB) string {
	_, self, _, ok := runtime.Caller(0)
	if !ok {
		tb.Fatal("no caller")
	}
	root := filepath.Join(filepath.Dir(self), "..", "..")
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		tb.Fatal(err)
	}
	dir := tb.TempDir()
	mod := "module example.com/fz\n\ngo 1.26.0\n\nrequire github.com/cordiskit/cordiskit v0.0.0\n\nreplace github.com/cordiskit/cordiskit => " + root + "\n"
	for name, data := range map[string][]byte{"go.mod": []byte(mod), "go.sum": sum} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	return dir
}

// fuzzSource renders a package declaring, with the kit's constructors, one declaration
// of the kind kind (0 event, 1 service, 2 tool) named name, documented by doc, over a
// struct with one field of a type from fuzzTypes.
func fuzzSource(kind uint8, name, doc, field string, typ uint8) string {
	comment := func(s string) string {
		if s == "" {
			return ""
		}
		return "// " + strings.NewReplacer("\r", "\n// ", "\n", "\n// ").Replace(s) + "\n"
	}
	var b strings.Builder
	b.WriteString("// Package fz is fuzzed.\npackage fz\n\nimport (\n\t\"time\"\n\n\t\"github.com/cordiskit/cordiskit/kit\"\n)\n\nvar _ time.Duration\n\n")
	b.WriteString(comment(doc))
	switch kind % 3 {
	case 0:
		fmt.Fprintf(&b, "var Decl = kit.NewEvent[Payload](%s)\n\n", strconv.Quote(name))
	case 1:
		fmt.Fprintf(&b, "var Decl = kit.NewService[Svc](%s)\n\n// Svc is the service.\ntype Svc interface {\n\t// Do does.\n\tDo(p Payload) string\n}\n\n", strconv.Quote(name))
	case 2:
		fmt.Fprintf(&b, "var Decl = kit.NewTool[Payload, string](%s)\n\n", strconv.Quote(name))
	}
	fmt.Fprintf(&b, "// Payload is the payload.\ntype Payload struct {\n\t%s%s %s `json:\"f\"`\n}\n\n", comment(doc), field, fuzzTypes[int(typ)%len(fuzzTypes)])
	b.WriteString("// Inner is nested.\ntype Inner struct {\n\t// N is n.\n\tN int `json:\"n\"`\n}\n\ntype inner struct{ N int }\n")
	return b.String()
}

// FuzzScan scans generated Go sources: it must never panic, and either succeed with a
// catalog holding exactly the declaration written, or fail with positioned diagnostics.
// Each input is one real load (about a second); the seeds in testdata/fuzz/FuzzScan run
// with plain go test, skipped by -short.
func FuzzScan(f *testing.F) {
	if testing.Short() {
		f.Skip("runs the go command")
	}
	f.Add(uint8(0), "rt/hello", "Hello is emitted on hello.", "Name", uint8(0))
	f.Add(uint8(1), "svc", "Svc is a service.", "Items", uint8(6))
	f.Add(uint8(2), "echo_tool", "Echo echoes.", "Ch", uint8(11))
	dir := fuzzModule(f)
	env := append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOSUMDB=off", "GOTOOLCHAIN=local")
	f.Fuzz(func(t *testing.T, kind uint8, name, doc, field string, typ uint8) {
		src := fuzzSource(kind, name, doc, field, typ)
		if err := os.WriteFile(filepath.Join(dir, "fz.go"), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		res, err := Load(context.Background(), &Config{Dir: dir, Env: env})
		var ds Diagnostics
		switch {
		case errors.As(err, &ds):
			for _, d := range ds {
				if d.Path == "" || d.Rule == "" || d.Message == "" {
					t.Errorf("diagnostic without a position, rule or message: %+v\n%s", d, src)
				}
			}
			return
		case err != nil:
			t.Fatalf("Load = %v, want a catalog or diagnostics\n%s", err, src)
		}
		c := res.Catalog
		var found bool
		switch kind % 3 {
		case 0:
			_, found = c.Event(name)
		case 1:
			_, found = c.Service(name)
		case 2:
			_, found = c.Tool(name)
		}
		if n := len(c.Events) + len(c.Services) + len(c.Tools); !found || n != 1 {
			t.Errorf("catalog has %d entries, declaration %q found %v\n%s", n, name, found, src)
		}
		if _, ok := c.Type("Payload"); !ok && kind%3 != 0 { // an event's payload is flattened
			t.Errorf("Payload is not catalogued\n%s", src)
		}
	})
}
