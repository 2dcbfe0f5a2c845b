package runner

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/cordiskit/cordiskit/kit"
)

// toolCalls subscribes to ToolCall on e's root and returns what it heard so far.
func (e *env) toolCalls() func() []ToolCallEvent {
	e.t.Helper()
	var mu sync.Mutex
	var got []ToolCallEvent
	f := e.root.Plugin(&kit.Plugin{Name: "tool-call-recorder", Apply: func(c *kit.Context) error {
		_, err := ToolCall.On(c, func(p ToolCallEvent) { mu.Lock(); got = append(got, p); mu.Unlock() })
		return err
	}})
	if err := f.Err(); err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { _ = f.Dispose(context.Background()) })
	return func() []ToolCallEvent { mu.Lock(); defer mu.Unlock(); return append([]ToolCallEvent(nil), got...) }
}

// The registered tools announce each call of the four that change what a person sees,
// when it starts and when it answers; the reading tools are not announced.
func TestToolCallAnnouncesTheModelsCalls(t *testing.T) {
	e := newEnv(t, &Options{Host: &fakeHost{}})
	heard := e.toolCalls()
	tools, _ := kit.ToolsService.Get(e.root)
	args := defineArgs(`{"kind":"new","idPrefix":"clock"}`, `"Clock"`, `"Shows the time."`, `{"host":"return () => {}"}`)
	out, err := tools.Call(as("s1"), "cordis_define", json.RawMessage(args))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tools.Call(as("s1"), "cordis_inspect_self", nil); err != nil {
		t.Fatal(err)
	}
	_, stopErr := tools.Call(as("s1"), "cordis_stop", json.RawMessage(`{"pluginId":"nope-1"}`))
	if stopErr == nil {
		t.Fatal("stopping an unknown Plugin succeeded")
	}

	got := heard()
	if len(got) != 4 {
		t.Fatalf("heard %d ToolCall events, want 4 (define start and answer, stop start and answer): %+v", len(got), got)
	}
	start, answer := got[0], got[1]
	if start.Tool != "cordis_define" || start.Session != "s1" || start.Args != args || start.Result != nil || start.Error != "" || start.Interrupted {
		t.Errorf("the define's start = %+v", start)
	}
	if answer.Seq != start.Seq || string(answer.Result) != string(out) || answer.Error != "" || answer.Args != args {
		t.Errorf("the define's answer = %+v, want seq %d and result %s", answer, start.Seq, out)
	}
	stop := got[3]
	if got[2].Tool != "cordis_stop" || stop.Seq != got[2].Seq || stop.Seq <= start.Seq || stop.Error != stopErr.Error() || stop.Result != nil {
		t.Errorf("the stop's events = %+v, %+v; want a later seq and the error %q", got[2], stop, stopErr)
	}
}

// A call whose context ended before it answered is announced as interrupted; a success
// with no value answers with JSON null.
func TestToolCallInterruptedAndEmpty(t *testing.T) {
	e := newEnv(t, &Options{Host: &fakeHost{}})
	heard := e.toolCalls()
	cut := e.r.announce(kit.Tool{ToolSchema: kit.ToolSchema{Name: "cordis_undefine"}, Execute: func(ctx context.Context, _ json.RawMessage) (json.RawMessage, error) {
		return nil, ctx.Err()
	}})
	ctx, cancel := context.WithCancel(as("s1"))
	cancel()
	if _, err := cut.Execute(ctx, json.RawMessage(`{"pluginId":"clock-1"}`)); !errors.Is(err, context.Canceled) {
		t.Fatal(err)
	}
	empty := e.r.announce(kit.Tool{ToolSchema: kit.ToolSchema{Name: "cordis_stop"}, Execute: func(context.Context, json.RawMessage) (json.RawMessage, error) {
		return nil, nil
	}})
	if _, err := empty.Execute(as("s1"), nil); err != nil {
		t.Fatal(err)
	}
	got := heard()
	if len(got) != 4 || !got[1].Interrupted || got[1].Error != "" || string(got[3].Result) != "null" {
		t.Fatalf("heard %+v; want an interrupted undefine, then a stop answered with null", got)
	}
}

// While nobody listens a call is not announced: no event is built and no seq is taken.
func TestToolCallUnheardCostsNothing(t *testing.T) {
	e := newEnv(t, &Options{Host: &fakeHost{}})
	tools, _ := kit.ToolsService.Get(e.root)
	before := toolCallSeq.Load()
	if _, err := tools.Call(as("s1"), "cordis_stop", json.RawMessage(`{"pluginId":"nope-1"}`)); err == nil || !strings.Contains(err.Error(), "nope-1") {
		t.Fatalf("stopping an unknown Plugin = %v", err)
	}
	if after := toolCallSeq.Load(); after != before {
		t.Fatalf("an unheard call took seq %d", after)
	}
}

// A runtime that serves Tools itself, not through the tools registry, has the same calls
// announced.
func TestToolCallAnnouncesToolsServedDirectly(t *testing.T) {
	e := newEnv(t, &Options{Host: &fakeHost{}})
	heard := e.toolCalls()
	i := slices.IndexFunc(e.r.Tools(), func(t kit.Tool) bool { return t.Name == "cordis_stop" })
	stop := e.r.Tools()[i]
	_, err := stop.Execute(as("s1"), json.RawMessage(`{"pluginId":"nope-1"}`))
	if err == nil {
		t.Fatal("stopping an unknown Plugin succeeded")
	}
	got := heard()
	if len(got) != 2 || got[0].Tool != "cordis_stop" || got[0].Session != "s1" || got[1].Error != err.Error() {
		t.Fatalf("heard %+v; want the stop's start and its answer with the error %q", got, err)
	}
}
