package scan

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// TestToolDurations: a time.Duration anywhere in a tool's types is refused at the tool,
// naming the field and the fix, since JavaScript and encoding/json read it in different
// units.
func TestToolDurations(t *testing.T) {
	_, err := Load(context.Background(), &Config{Dir: "../..", Patterns: []string{"./testdata/fixture/bad"}})
	var ds Diagnostics
	if !errors.As(err, &ds) {
		t.Fatalf("Load = %v, want Diagnostics", err)
	}
	var got []string
	for _, d := range ds {
		if strings.Contains(d.Message, "time.Duration") {
			got = append(got, d.String())
		}
	}
	want := []string{
		"testdata/fixture/bad/duration.go:10:5: [unsupported] the input of tool \"wait\" contains a time.Duration (at WaitIn.Delay), which JavaScript reads as milliseconds and encoding/json as nanoseconds, so its unit would change silently between a mount and the tool: declare an integer with the unit in its name instead (DelayMs int `json:\"delayMs\"`) and convert with time.Duration(x)*time.Millisecond",
		"testdata/fixture/bad/duration.go:10:5: [unsupported] the input of tool \"wait\" contains a time.Duration (at WaitIn.Steps), which JavaScript reads as milliseconds and encoding/json as nanoseconds, so its unit would change silently between a mount and the tool: declare an integer with the unit in its name instead (StepsMs []*int `json:\"stepsMs\"`) and convert with time.Duration(x)*time.Millisecond",
	}
	if len(got) != len(want) {
		t.Fatalf("duration diagnostics:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for i := range want {
		if !strings.HasSuffix(got[i], want[i]) {
			t.Errorf("diagnostic %d:\n\t%s\nwant it to end with\n\t%s", i, got[i], want[i])
		}
	}
}
