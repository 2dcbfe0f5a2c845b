// This file is overlaid into testdata/fixture/values/api by TestValues, next to the
// generated catalog and façade, and run there with go test: JavaScript mounted through the
// toolset against the fixture's Go events and services, as a runtime author sees it.

package api_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/cordiskit/cordiskit/kit"
	"github.com/cordiskit/cordiskit/testdata/fixture/values"
	"github.com/cordiskit/cordiskit/testdata/fixture/values/api"
	"github.com/cordiskit/cordiskit/tooldecl/cordis"
	"github.com/cordiskit/cordiskit/toolset"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// records is a slog handler that keeps every record at Warn or above.
type records struct {
	mu   sync.Mutex
	msgs []string
}

func (h *records) Enabled(_ context.Context, l slog.Level) bool { return l >= slog.LevelWarn }
func (h *records) Handle(_ context.Context, r slog.Record) error {
	var b strings.Builder
	b.WriteString(r.Message)
	r.Attrs(func(a slog.Attr) bool { b.WriteString(" " + a.String()); return true })
	h.mu.Lock()
	h.msgs = append(h.msgs, b.String())
	h.mu.Unlock()
	return nil
}
func (h *records) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h *records) WithGroup(string) slog.Handler      { return h }

func (h *records) take() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := h.msgs
	h.msgs = nil
	return out
}

// runtime is a root with the tasks service and the toolset over the generated façade.
type runtime struct {
	t     *testing.T
	root  *kit.Context
	ts    *toolset.Toolset
	store *values.Store
	logs  *records
}

func newRuntime(t *testing.T) *runtime {
	logs := &records{}
	logger := slog.New(logs)
	rt := &runtime{t: t, root: kit.New(&kit.Options{Logger: logger}), store: &values.Store{}, logs: logs}
	rt.root.Plugin(&kit.Plugin{Name: "tasks", Apply: func(c *kit.Context) error { return values.Tasks.Provide(c, rt.store) }})
	ts, err := toolset.New(rt.root, &toolset.Options{Catalog: api.Catalog, Facade: api.Facade, Logger: logger})
	if err != nil {
		t.Fatal(err)
	}
	rt.ts = ts
	t.Cleanup(func() {
		if err := ts.Dispose(context.Background()); err != nil {
			t.Errorf("toolset Dispose: %v", err)
		}
		rt.root.Fiber().Dispose(context.Background())
	})
	return rt
}

func (rt *runtime) mount(code string) string {
	rt.t.Helper()
	out, err := rt.ts.Mount(context.Background(), cordis.MountInput{Code: code})
	if err != nil || out.State != "active" {
		rt.t.Fatalf("mount: %+v, %v", out, err)
	}
	return out.ID
}

func (rt *runtime) unmount(id string) {
	rt.t.Helper()
	if _, err := rt.ts.Unmount(context.Background(), cordis.UnmountInput{ID: id}); err != nil {
		rt.t.Fatal(err)
	}
}

// call runs a tool a mount registered and decodes its JSON result into out.
func (rt *runtime) call(name string, out any) {
	rt.t.Helper()
	tools, _ := kit.ToolsService.Get(rt.root)
	res, err := tools.Call(context.Background(), name, json.RawMessage(`{}`))
	if err != nil {
		rt.t.Fatalf("%s: %v", name, err)
	}
	if err := json.Unmarshal(res, out); err != nil {
		rt.t.Fatalf("%s: %v in %s", name, err, res)
	}
}

// passCode registers, for every serial and bail event of the fixture, listeners that
// return each value that passes — undefined, null, false (sync and from a promise) and the
// zero value of the result type — and then one that answers, and one after it that must
// not run.
const passCode = `
	const ran = [];
	const chain = (ctx, event, passes, answer) => {
		passes.forEach((p, i) => ctx.on(event, (task) => { ran.push(event + ' ' + i); return p }));
		ctx.on(event, (task) => { ran.push(event + ' answer'); return answer(task) });
		ctx.on(event, () => { ran.push(event + ' late'); return answer({ id: 'late' }) });
	};
	return { name: 'passes', apply(ctx) {
		const common = [undefined, null, false];
		chain(ctx, 'task/verdict', [...common, '', Promise.resolve(false), Promise.resolve(null), Promise.resolve('')], (t) => 'approved ' + t.id);
		chain(ctx, 'task/rank', [...common, '', Promise.resolve(false)], () => 'high');
		chain(ctx, 'task/review', [...common, {}, { text: '', priority: '' }, { text: '' }, Promise.resolve(false)], (t) => ({ text: 'lgtm ' + t.id, priority: 'high' }));
		chain(ctx, 'task/label', [...common, ''], (t) => 'label ' + t.id);
		chain(ctx, 'task/score', [...common, 0], () => 7);
		ctx.tools.register({ name: 'ran', description: 'Lists the listeners that ran, and forgets them.', parameters: { type: 'object' },
			execute: () => ran.splice(0) });
	} }`

// TestListenerPasses: undefined, null, false and the zero value of the result type all
// pass in a serial or bail chain; the next listener's answer wins, and nothing is logged.
func TestListenerPasses(t *testing.T) {
	rt := newRuntime(t)
	rt.mount(passCode)
	ctx := context.Background()
	ev := values.TaskEvent{Task: values.Task{ID: "t1"}}

	verdict, err := values.Verdict.Emit(ctx, rt.root, ev)
	if verdict != "approved t1" || err != nil {
		t.Errorf("task/verdict = %q, %v; want the answer after the passes", verdict, err)
	}
	rank, err := values.Rank.Emit(ctx, rt.root, ev)
	if rank != values.PriorityHigh || err != nil {
		t.Errorf("task/rank = %q, %v", rank, err)
	}
	note, err := values.Review.Emit(ctx, rt.root, ev)
	if want := (values.Note{Text: "lgtm t1", Priority: values.PriorityHigh}); note != want || err != nil {
		t.Errorf("task/review = %+v, %v, want %+v", note, err, want)
	}
	if label := values.Label.Emit(rt.root, ev); label != "label t1" {
		t.Errorf("task/label = %q", label)
	}
	if score := values.Score.Emit(rt.root, ev); score != 7 {
		t.Errorf("task/score = %d", score)
	}

	var ran []string
	rt.call("ran", &ran)
	want := []string{
		"task/verdict 0", "task/verdict 1", "task/verdict 2", "task/verdict 3", "task/verdict 4", "task/verdict 5", "task/verdict 6", "task/verdict answer",
		"task/rank 0", "task/rank 1", "task/rank 2", "task/rank 3", "task/rank 4", "task/rank answer",
		"task/review 0", "task/review 1", "task/review 2", "task/review 3", "task/review 4", "task/review 5", "task/review 6", "task/review answer",
		"task/label 0", "task/label 1", "task/label 2", "task/label 3", "task/label answer",
		"task/score 0", "task/score 1", "task/score 2", "task/score 3", "task/score answer",
	}
	if !reflect.DeepEqual(ran, want) {
		t.Errorf("listeners that ran:\n\t%v\nwant\n\t%v", ran, want)
	}
	if logs := rt.logs.take(); len(logs) > 0 {
		t.Errorf("passing listeners logged:\n%s", strings.Join(logs, "\n"))
	}
}

// TestListenerWrongResult: a value that is not a pass and not of the result type still
// fails, with the path — serial: the error ends the chain; bail: it is logged and the
// listener passes.
func TestListenerWrongResult(t *testing.T) {
	rt := newRuntime(t)
	rt.mount(`return { name: 'wrong', apply(ctx) {
		ctx.on('task/verdict', () => 42);
		ctx.on('task/rank', () => 'urgent');
		ctx.on('task/score', () => true);
		ctx.on('task/score', () => 3);
	} }`)
	ctx := context.Background()
	ev := values.TaskEvent{Task: values.Task{ID: "t1"}}
	if _, err := values.Verdict.Emit(ctx, rt.root, ev); err == nil || !strings.Contains(err.Error(), "the result of a listener of task/verdict: expected a string, got number") {
		t.Errorf("task/verdict answered 42: %v", err)
	}
	if _, err := values.Rank.Emit(ctx, rt.root, ev); err == nil || !strings.Contains(err.Error(), `expected one of "low", "normal", "high" (or "" for none), got "urgent"`) {
		t.Errorf("task/rank answered 'urgent': %v", err)
	}
	if score := values.Score.Emit(rt.root, ev); score != 3 {
		t.Errorf("task/score = %d, want the next listener's 3", score)
	}
	logs := rt.logs.take()
	if len(logs) != 1 || !strings.Contains(logs[0], "listener failed") || !strings.Contains(logs[0], "the result of a listener of task/score: expected an integer, got boolean") {
		t.Errorf("logs of a bail listener answering true: %q", logs)
	}
}

// TestEnumZero: a struct Go gives JavaScript with an enum field at its zero value ("")
// goes back to Go unchanged; a value outside the constants still fails.
func TestEnumZero(t *testing.T) {
	rt := newRuntime(t)
	rt.store.Put(values.Task{ID: "t0", Title: "unranked"})
	rt.mount(`return { name: 'enums', inject: ['tasks'], apply(ctx) {
		ctx.on('task/created', (task) => ctx.tasks.put(task));
		ctx.tools.register({ name: 'probe', description: 'Round-trips a task.', parameters: { type: 'object' }, execute: () => {
			const out = {};
			const t = ctx.tasks.get('t0');
			out.priority = t.priority;
			out.echo = ctx.tasks.echo(t).priority;
			try { ctx.tasks.put({ ...t, priority: 'urgent' }) } catch (e) { out.bad = e.message }
			try { ctx.tasks.put({ ...t, priority: 'LOW' }) } catch (e) { out.case = e.message }
			return out;
		} });
	} }`)
	values.Created.Emit(rt.root, values.TaskEvent{Task: values.Task{ID: "t1", Tags: []string{}, Labels: map[string]string{}}})
	puts := rt.store.Puts()
	if len(puts) != 2 || puts[1].ID != "t1" || puts[1].Priority != "" {
		t.Fatalf("the task a listener handed back: %+v", puts)
	}
	if logs := rt.logs.take(); len(logs) > 0 {
		t.Errorf("the round trip logged:\n%s", strings.Join(logs, "\n"))
	}
	var got map[string]string
	rt.call("probe", &got)
	want := map[string]string{
		"priority": "",
		"echo":     "",
		"bad":      `tasks.put: parameter task.priority: expected one of "low", "normal", "high" (or "" for none), got "urgent"`,
		"case":     `tasks.put: parameter task.priority: expected one of "low", "normal", "high" (or "" for none), got "LOW"`,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("probe = %q\nwant    %q", got, want)
	}
}

// TestMissingFields: a field an object leaves out, or sets to undefined or null, is Go's
// zero value, as encoding/json decodes it (null is nil for a slice, map or pointer, and the
// zero value for anything else); a field of the wrong type fails with its path.
func TestMissingFields(t *testing.T) {
	rt := newRuntime(t)
	rt.mount(`return { name: 'fields', inject: ['tasks'], apply(ctx) {
		ctx.tools.register({ name: 'probe', description: 'Puts partial tasks.', parameters: { type: 'object' }, execute: () => {
			const tries = {
				title: () => ctx.tasks.put({ title: 'only a title' }),
				nulls: () => ctx.tasks.put({ id: 'n', title: null, priority: null, tags: null, labels: null, parent: null, estimate: null, done: null, count: null, note: null }),
				undefs: () => ctx.tasks.put({ id: 'u', title: undefined, tags: undefined, parent: undefined, count: undefined }),
				parent: () => ctx.tasks.put({ id: 'p', parent: {}, tags: ['a'] }),
				tag: () => ctx.tasks.put({ tags: ['a', 'b', 3] }),
				count: () => ctx.tasks.put({ count: '3' }),
				parentType: () => ctx.tasks.put({ parent: 'p' }),
				nested: () => ctx.tasks.put({ parent: { id: 7 } }),
				none: () => ctx.tasks.put(),
				nullTask: () => ctx.tasks.put(null),
			};
			const out = {};
			for (const [k, f] of Object.entries(tries)) {
				try { f(); out[k] = 'ok' } catch (e) { out[k] = e.name + ': ' + e.message }
			}
			return out;
		} });
	} }`)
	var got map[string]string
	rt.call("probe", &got)
	want := map[string]string{
		"title":      "ok",
		"nulls":      "ok",
		"undefs":     "ok",
		"parent":     "ok",
		"tag":        "TypeError: tasks.put: parameter task.tags[2]: expected a string, got number",
		"count":      "TypeError: tasks.put: parameter task.count: expected an integer, got string",
		"parentType": "TypeError: tasks.put: parameter task.parent: expected an object, got string",
		"nested":     "TypeError: tasks.put: parameter task.parent.id: expected a string, got number",
		"none":       "TypeError: tasks.put: parameter task: expected an object, got undefined",
		"nullTask":   "TypeError: tasks.put: parameter task: expected an object, got null",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("probe:\n%s", diffMaps(got, want))
	}
	puts := rt.store.Puts()
	wantPuts := []values.Task{
		{Title: "only a title"},
		{ID: "n"},
		{ID: "u"},
		{ID: "p", Parent: &values.Ref{}, Tags: []string{"a"}},
	}
	if !reflect.DeepEqual(puts, wantPuts) {
		t.Errorf("tasks put:\n\t%+v\nwant\n\t%+v", puts, wantPuts)
	}
}

// TestDurations: a time.Duration is a number of milliseconds in JavaScript, both ways,
// and the docs say so where the field is shown.
func TestDurations(t *testing.T) {
	rt := newRuntime(t)
	rt.mount(`return { name: 'durations', inject: ['tasks'], apply(ctx) {
		ctx.on('task/created', (task) => ctx.tasks.put({ id: 'twice', estimate: task.estimate * 2 }));
	} }`)
	values.Created.Emit(rt.root, values.TaskEvent{Task: values.Task{ID: "t1", Estimate: 1500 * time.Millisecond}})
	puts := rt.store.Puts()
	if len(puts) != 1 || puts[0].Estimate != 3*time.Second {
		t.Errorf("twice an estimate of 1.5 s: %+v", puts)
	}
	task, ok := api.Catalog.Type("Task")
	if !ok || !strings.Contains(task.Decl, "  estimate: number // milliseconds\n") {
		t.Errorf("the shape of Task does not say its duration is in milliseconds:\n%s", task.Decl)
	}
}

// TestPassSignatures: the catalog's signatures of serial and bail events say what passes.
func TestPassSignatures(t *testing.T) {
	for name, want := range map[string]string{
		"task/verdict": "'task/verdict'(task: Task): Promise<string | null | undefined | false> | string | null | undefined | false",
		"task/rank":    "'task/rank'(task: Task): Promise<Priority | null | undefined | false> | Priority | null | undefined | false",
		"task/label":   "'task/label'(task: Task): string | null | undefined | false",
		"task/score":   "'task/score'(task: Task): number | null | undefined | false",
	} {
		e, ok := api.Catalog.Event(name)
		if !ok || e.Signature != want {
			t.Errorf("%s: signature\n\t%s\nwant\n\t%s", name, e.Signature, want)
		}
	}
}

func diffMaps(got, want map[string]string) string {
	var b strings.Builder
	for k, w := range want {
		if g := got[k]; g != w {
			b.WriteString("\t" + k + ": " + g + "\n\t" + strings.Repeat(" ", len(k)) + "  want " + w + "\n")
		}
	}
	for k, g := range got {
		if _, ok := want[k]; !ok {
			b.WriteString("\t" + k + ": " + g + " (unexpected)\n")
		}
	}
	return b.String()
}
