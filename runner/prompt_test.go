package runner

import (
	"path/filepath"
	"testing"
	"time"

	goldenfile "github.com/cordiskit/cordiskit/internal/golden"
)

func TestPromptSection(t *testing.T) {
	for name, c := range map[string]PromptConfig{
		"memory":  {},
		"durable": {Durable: true, ApproveHostHalves: true, ApprovalTimeout: time.Hour, InspectQueryTimeout: 10 * time.Second},
	} {
		t.Run(name, func(t *testing.T) {
			got := PromptSection(c)
			goldenfile.Check(t, filepath.Join("testdata", "prompt_"+name+".golden"), []byte(got))
		})
	}
}

func TestRunnerPromptSection(t *testing.T) {
	e := newEnv(t, &Options{Host: &fakeHost{}, Store: NewMemoryStore()}) // the memory store's wording, whichever store the suite runs on
	if got, want := e.r.PromptSection(), PromptSection(PromptConfig{}); got != want {
		t.Errorf("a runner with the memory store and default options:\n%s\nwant\n%s", got, want)
	}
	d := newEnv(t, &Options{Host: &fakeHost{}, Store: durableStore{NewMemoryStore()}, ApproveHostHalves: true, ApprovalTimeout: time.Hour, InspectQueryTimeout: 10 * time.Second})
	want := PromptSection(PromptConfig{Durable: true, ApproveHostHalves: true, ApprovalTimeout: time.Hour, InspectQueryTimeout: 10 * time.Second})
	if got := d.r.PromptSection(); got != want {
		t.Errorf("a runner with another Store and approval of host halves:\n%s\nwant\n%s", got, want)
	}
}

// durableStore stands for a Store other than the memory store's.
type durableStore struct{ Store }
