package main

import (
	"context"
	"io"
	"strings"
	"testing"

	"github.com/cordiskit/cordiskit/runner"
)

// TestPrompt: the prompt command prints the runtime's own part and then the runner's
// section for this runtime (definitions in memory, the default deadlines), whole.
func TestPrompt(t *testing.T) {
	var stdout, stderr strings.Builder
	if code := run(context.Background(), []string{"prompt"}, io.NopCloser(strings.NewReader("")), &stdout, &stderr); code != 0 {
		t.Fatalf("harness prompt: exit %d, stderr %q", code, stderr.String())
	}
	want := basePrompt + "\n\n" + runner.PromptSection(runner.PromptConfig{})
	if got := stdout.String(); got != want {
		t.Errorf("harness prompt printed something else than the runtime's part and the runner's section:\n%s", lineDiff(want, got))
	}
}

// TestUserTurnReferences: a user's message that mentions Plugins gets one reference block
// per Plugin, in the session of the turn: the session's own Plugin with its state,
// another session's as unavailable.
func TestUserTurnReferences(t *testing.T) {
	ctx := context.Background()
	h, err := boot(t.TempDir(), t.TempDir(), quiet())
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := h.Close(ctx); err != nil {
			t.Error(err)
		}
	}()
	if _, err := h.rt.CallTool(ctx, "alice", "cordis_define", []byte(`{"plugin":{"kind":"new","idPrefix":"clock"},"name":"Clock","purpose":"Shows the time.","code":{"host":"return (ctx) => {}"}}`)); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		session string
		want    string
	}{
		{"alice", `The user referenced dynamic Plugin @clock-1. Its state now`},
		{"bob", `The user referenced dynamic Plugin @clock-1, but it is not available in this session`},
	} {
		turn, blocks := h.userTurn(ctx, tc.session, "请修改@clock-1的显示 (and not mail@clock-1)")
		if turn != 1 || len(blocks) != 1 || !strings.Contains(blocks[0], tc.want) {
			t.Errorf("%s: turn %d, blocks %q; want turn 1 and one block with %q", tc.session, turn, blocks, tc.want)
		}
	}
}
