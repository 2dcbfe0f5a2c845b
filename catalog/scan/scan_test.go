package scan

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/cordiskit/cordiskit/catalog"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

var (
	fixtureOnce sync.Once
	fixture     *Result
	fixtureErr  error
)

// loadFixture scans the fixture runtime once for all tests.
func loadFixture(t *testing.T) *Result {
	t.Helper()
	fixtureOnce.Do(func() {
		fixture, fixtureErr = Load(context.Background(), &Config{Dir: "../..", Patterns: []string{"./testdata/fixture/rt"}})
	})
	if fixtureErr != nil {
		t.Fatal(fixtureErr)
	}
	return fixture
}

func TestEvents(t *testing.T) {
	c := loadFixture(t).Catalog
	type event struct {
		Name      string
		Mode      catalog.Mode
		Signature string
		Session   string // the parameter that makes the event session-scoped
	}
	want := []event{
		{"agent/error", catalog.ModeEmit, "'agent/error'(agent: Agent, turn: number, step: number, error: Error): void", ""},
		// The fixture's own Session type is not the kit's: the event reaches every session.
		{"session/flush", catalog.ModeParallel, "'session/flush'(session: Session): Promise<void> | void", ""},
		// A kit.Session field is a plain string to JavaScript, and scopes the event.
		{"agent/pre-step", catalog.ModeSerial, "'agent/pre-step'(agent: Agent, fullSystemPrompt: string, caller: string): Promise<boolean | null | undefined> | boolean | null | undefined", "caller"},
		{"pick", catalog.ModeBail, "'pick'(): string | null | undefined | false", ""}, // what passes
		{"agent/request", catalog.ModeWaterfall, "'agent/request'(agent: Agent, options: Options, next: () => Promise<Options>): Promise<Options>", ""},
		{"session/changed", catalog.ModeEmit, "'session/changed'(): void", ""}, // via an alias and a wrapper
	}
	var got []event
	for _, e := range c.Events {
		got = append(got, event{e.Name, e.Mode, e.Signature, e.Session})
	}
	// Exactly these six: a re-export is not a declaration.
	if diff := cmp.Diff(want, got, cmpopts.SortSlices(func(a, b event) bool { return a.Name < b.Name })); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	e, _ := c.Event("agent/error")
	if e.Summary != "AgentError reports that a step or turn failed." || !strings.Contains(e.Doc, "in-turn position") {
		t.Errorf("agent/error doc: summary %q, doc %q", e.Summary, e.Doc)
	}
	if !strings.HasPrefix(e.Source, "testdata/fixture/rt/rt.go:") {
		t.Errorf("agent/error source %q is not module-relative", e.Source)
	}
}

func TestServices(t *testing.T) {
	c := loadFixture(t).Catalog
	fs, ok := c.Service("fs")
	if !ok || !fs.Abstract || fs.TypeName != "FileSystem" {
		t.Fatalf("fs = %+v", fs)
	}
	want := []string{
		"async readFile(path: string): Promise<string>",
		"stat(path: string): Info | undefined",
		"watch(path: string, fn: (change: Change, at: number) => void): () => void",
		"head(path: string, lines: number, opts: HeadOptions): string",
	}
	if diff := cmp.Diff(want, fs.Signatures()); diff != "" {
		t.Errorf("fs signatures (Close is internal) (-want +got):\n%s", diff)
	}
	watch, _ := fs.Method("watch")
	if watch.Params[0].Role != catalog.RoleKit || watch.Params[0].JSName != "" {
		t.Errorf("watch's *kit.Context is not supplied by the binding: %+v", watch.Params[0])
	}
	st, _ := c.Service("sessions")
	if st.Abstract || st.Type.Kind != catalog.KindNamed {
		t.Errorf("sessions: %+v", st)
	}
	var names []string
	for _, m := range st.Methods {
		names = append(names, m.JSName)
	}
	// Declaration order, with value- and pointer-receiver methods, without unexported ones.
	if diff := cmp.Diff([]string{"list", "get", "meta", "flush", "tags"}, names); diff != "" {
		t.Errorf("sessions methods (-want +got):\n%s", diff)
	}
	flush, _ := st.Method("flush")
	if !flush.Async || flush.Signature != "async flush(ids: SessionID[]): Promise<void>" {
		t.Errorf("flush = %+v", flush)
	}
	if diff := cmp.Diff([]string{"Session", "SessionID", "Tags"}, st.Types); diff != "" {
		t.Errorf("sessions types (-want +got):\n%s", diff)
	}
}

func TestTypes(t *testing.T) {
	c := loadFixture(t).Catalog
	status, _ := c.Type("Status")
	if status.Kind != catalog.TypeEnum {
		t.Errorf("Status is a %s, want an enum", status.Kind)
	}
	wantEnum := []catalog.EnumValue{
		{Name: "StatusIdle", Value: "idle", Doc: "waiting for a message"},
		{Name: "StatusRunning", Value: "running", Doc: "in a turn"},
	}
	if diff := cmp.Diff(wantEnum, status.Enum); diff != "" {
		t.Errorf("Status constants (-want +got):\n%s", diff)
	}
	// The constants' docs are in the shape cordis_inspect and the markdown print, and
	// so is the zero value '', which the façade accepts though no constant has it.
	if want := "// Status is an agent's lifecycle state.\ntype Status =\n  // waiting for a message\n  | 'idle'\n  // in a turn\n  | 'running'\n  // unset: Go's zero value\n  | ''"; status.Decl != want {
		t.Errorf("Status.Decl =\n%s\nwant\n%s", status.Decl, want)
	}
	style, _ := c.Type("Style")
	if want := "// Style is how Echo formats its output.\ntype Style =\n  | 'plain'\n  // upper case\n  | 'loud'\n  // unset: Go's zero value\n  | ''"; style.Decl != want {
		t.Errorf("Style.Decl =\n%s\nwant\n%s", style.Decl, want)
	}
	sid, _ := c.Type("SessionID")
	if want := "// SessionID names a session.\ntype SessionID = string"; sid.Decl != want {
		t.Errorf("SessionID.Decl = %q, want %q", sid.Decl, want)
	}
	session, _ := c.Type("Session")
	type field struct{ JSName, JS string }
	var fields []field
	for _, f := range session.Fields {
		fields = append(fields, field{f.JSName, f.JS})
	}
	// Base is embedded (promoted), Secret is //cordis:internal.
	wantFields := []field{{"id", "SessionID"}, {"created", "string"}, {"events", "SessionEntry[]"}}
	if diff := cmp.Diff(wantFields, fields); diff != "" {
		t.Errorf("Session fields (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"SessionEntry", "SessionID"}, session.Refs); diff != "" {
		t.Errorf("Session refs (-want +got):\n%s", diff)
	}
	agent, _ := c.Type("Agent")
	wantProxy := catalog.Field{Name: "HTTPProxy", JSName: "httpProxy", JSONName: "HTTPProxy", JS: "string", Optional: true, Doc: "HTTPProxy is the proxy its tools use, if any."}
	if len(agent.Fields) < 3 {
		t.Fatalf("Agent has %d fields, want HTTPProxy third: %+v", len(agent.Fields), agent.Fields)
	}
	// Go is the scanned type, which TestGoTypeString covers; the rest is what JavaScript sees.
	if diff := cmp.Diff(wantProxy, agent.Fields[2], cmpopts.IgnoreFields(catalog.Field{}, "Go")); diff != "" {
		t.Errorf("Agent.HTTPProxy (-want +got):\n%s", diff)
	}
	if want := "interface Agent {\n  // ID identifies the agent in the registry.\n  id: string\n"; !strings.Contains(agent.Decl, want) {
		t.Errorf("Agent decl:\n%s", agent.Decl)
	}
	if tags, _ := c.Type("Tags"); tags.Kind != catalog.TypeValue || tags.JS != "string[]" {
		t.Errorf("Tags = %+v", tags)
	}
	if diff := cmp.Diff([]string{"Session", "SessionEntry", "SessionID"}, names(c.TypeClosure("list(): Session[]"))); diff != "" {
		t.Errorf("closure of Session (-want +got):\n%s", diff)
	}
}

func names(ts []*catalog.Type) []string {
	var out []string
	for _, t := range ts {
		out = append(out, t.Name)
	}
	return out
}

func TestInherited(t *testing.T) {
	res := loadFixture(t)
	if res.Inherited == nil {
		t.Fatal("no inherited tier: the kit was not scanned alongside")
	}
	if _, ok := res.Inherited.Service("timer"); !ok {
		t.Error("the inherited tier lacks the timer service")
	}
	if _, ok := res.Catalog.Service("timer"); ok {
		t.Error("the kit's timer service leaked into the runtime's own catalog")
	}
	core, err := Load(context.Background(), &Config{Dir: "../..", Patterns: []string{"./kit"}})
	if err != nil {
		t.Fatal(err)
	}
	if core.Inherited != nil {
		t.Errorf("scanning the kit itself gave an inherited tier: %v", core.Inherited)
	}
	var keys []string
	for _, sv := range core.Catalog.Services {
		keys = append(keys, sv.Key)
	}
	if diff := cmp.Diff([]string{"timer", "tools"}, keys); diff != "" {
		t.Errorf("scanning the kit itself: services (-want +got):\n%s", diff)
	}
}

func TestProblems(t *testing.T) {
	_, err := Load(context.Background(), &Config{Dir: "../..", Patterns: []string{"./testdata/fixture/bad"}})
	var ds Diagnostics
	if !errors.As(err, &ds) {
		t.Fatalf("Load = %v, want Diagnostics", err)
	}
	rules := map[string]int{}
	for _, d := range ds {
		rules[d.Rule]++
	}
	for _, r := range []string{RuleDoc, RuleName, RuleType, RuleUnsupported, RuleDuplicate} {
		if rules[r] == 0 {
			t.Errorf("no %s diagnostic in\n%s", r, ds)
		}
	}
	_, err = Load(context.Background(), &Config{Dir: "../..", Patterns: []string{"./testdata/nothing-here"}})
	if err == nil {
		t.Error("a pattern without packages loaded")
	}
}
