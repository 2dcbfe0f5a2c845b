package cordiskit_test

import (
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestREADMEShowsTheExample keeps the README's "Embedding cordiskit in your runtime"
// runnable: its code is Example's body, which go test runs and checks.
func TestREADMEShowsTheExample(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(readme), "\n## Embedding cordiskit in your runtime\n")
	if !ok {
		t.Fatal(`README.md has no section "## Embedding cordiskit in your runtime"`)
	}
	_, code, ok := strings.Cut(section, "\n```go\n")
	code, _, ok2 := strings.Cut(code, "\n```\n")
	if !ok || !ok2 {
		t.Fatal("the README's section has no go code block")
	}
	src, err := os.ReadFile("example_test.go")
	if err != nil {
		t.Fatal(err)
	}
	_, body, ok := strings.Cut(string(src), "\nfunc Example() {\n")
	body, _, ok2 = strings.Cut(body, "\n\t// Output:\n")
	if !ok || !ok2 {
		t.Fatal("example_test.go has no func Example with an Output comment")
	}
	var lines []string
	for line := range strings.SplitSeq(strings.TrimRight(body, "\n"), "\n") {
		lines = append(lines, strings.TrimPrefix(line, "\t"))
	}
	if diff := cmp.Diff(strings.Join(lines, "\n"), code); diff != "" {
		t.Errorf("the README's code is not Example's body; copy it over (-Example +README):\n%s", diff)
	}
}
