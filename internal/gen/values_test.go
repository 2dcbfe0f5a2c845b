package gen

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// TestValues generates the values fixture (testdata/fixture/values) and runs
// testdata/values_behavior_test.go against it, as a runtime author would: JavaScript
// mounted through the toolset, Go emitting events and holding the services. It covers how
// values cross between Go and JavaScript — what a serial or bail listener returns to pass,
// an enum's zero value, the fields an object leaves out, and durations.
func TestValues(t *testing.T) {
	files, err := Generate(context.Background(), &Config{Dir: "../../testdata/fixture/values", Patterns: []string{"."}, Out: "api", Docs: "docs", Facade: true})
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "values/events-and-services.md.golden", files["docs/events-and-services.md"])
	src, err := os.ReadFile(filepath.Join("testdata", "values_behavior_test.go"))
	if err != nil {
		t.Fatal(err)
	}
	runs(t, "testdata/fixture/values/api", map[string][]byte{
		"catalog_gen.go":          files["api/catalog_gen.go"],
		"facade_gen.go":           files["api/facade_gen.go"],
		"values_behavior_test.go": src,
	})
}
