package runner

import (
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"
)

var updatePrompt = flag.Bool("update-prompt", false, "rewrite testdata/prompt_*.golden")

func TestPromptSection(t *testing.T) {
	for name, c := range map[string]PromptConfig{
		"memory":  {},
		"durable": {Durable: true, ApproveHostHalves: true, ApprovalTimeout: time.Hour, InspectQueryTimeout: 10 * time.Second},
	} {
		t.Run(name, func(t *testing.T) {
			got := PromptSection(c)
			path := filepath.Join("testdata", "prompt_"+name+".golden")
			if *updatePrompt {
				if err := os.MkdirAll("testdata", 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test -run TestPromptSection -update-prompt)", err)
			}
			if got != string(want) {
				t.Errorf("PromptSection(%+v) differs from %s (run with -update-prompt and review the diff):\n%s", c, path, got)
			}
		})
	}
}

func TestRunnerPromptSection(t *testing.T) {
	e := newEnv(t, &Options{Host: &fakeHost{}})
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
