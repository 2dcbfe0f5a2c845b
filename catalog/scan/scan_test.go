package scan

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/cordiskit/cordiskit/catalog"
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
	for _, tc := range []struct {
		name string
		mode catalog.Mode
		sig  string
	}{
		{"agent/error", catalog.ModeEmit, "'agent/error'(agent: Agent, turn: number, step: number, error: Error): void"},
		{"session/flush", catalog.ModeParallel, "'session/flush'(session: Session): Promise<void> | void"},
		{"agent/pre-step", catalog.ModeSerial, "'agent/pre-step'(agent: Agent, fullSystemPrompt: string): Promise<boolean | null | undefined> | boolean | null | undefined"},
		{"pick", catalog.ModeBail, "'pick'(): string | null | undefined | false"}, // what passes
		{"agent/request", catalog.ModeWaterfall, "'agent/request'(agent: Agent, options: Options, next: () => Promise<Options>): Promise<Options>"},
		{"session/changed", catalog.ModeEmit, "'session/changed'(): void"}, // via an alias and a wrapper
	} {
		e, ok := c.Event(tc.name)
		if !ok {
			t.Errorf("event %q not found", tc.name)
			continue
		}
		if e.Mode != tc.mode || e.Signature != tc.sig {
			t.Errorf("event %q: mode %s, signature\n\t%s\nwant %s,\n\t%s", tc.name, e.Mode, e.Signature, tc.mode, tc.sig)
		}
	}
	if len(c.Events) != 6 {
		t.Errorf("%d events, want 6 (a re-export is not a declaration)", len(c.Events))
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
	if got := fs.Signatures(); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("fs signatures (Close is internal):\n%s", strings.Join(got, "\n"))
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
	if got := strings.Join(names, ","); got != "list,get,meta,flush,tags" {
		t.Errorf("sessions methods = %s", got)
	}
	flush, _ := st.Method("flush")
	if !flush.Async || flush.Signature != "async flush(ids: SessionID[]): Promise<void>" {
		t.Errorf("flush = %+v", flush)
	}
	if got := strings.Join(st.Types, ","); got != "Session,SessionID,Tags" {
		t.Errorf("sessions types = %s", got)
	}
}

func TestTypes(t *testing.T) {
	c := loadFixture(t).Catalog
	status, _ := c.Type("Status")
	if status.Kind != catalog.TypeEnum || len(status.Enum) != 2 || status.Enum[1].Value != "running" || status.Enum[0].Doc != "waiting for a message" {
		t.Errorf("Status = %+v", status)
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
	var fields []string
	for _, f := range session.Fields {
		fields = append(fields, f.JSName+":"+f.JS)
	}
	// Base is embedded (promoted), Secret is //cordis:internal.
	if got := strings.Join(fields, ","); got != "id:SessionID,created:string,events:SessionEntry[]" {
		t.Errorf("Session fields = %s", got)
	}
	if got := strings.Join(session.Refs, ","); got != "SessionEntry,SessionID" {
		t.Errorf("Session refs = %s", got)
	}
	agent, _ := c.Type("Agent")
	if f := agent.Fields[2]; f.JSName != "httpProxy" || !f.Optional || f.JSONName != "HTTPProxy" {
		t.Errorf("Agent.HTTPProxy = %+v", f)
	}
	if want := "interface Agent {\n  // ID identifies the agent in the registry.\n  id: string\n"; !strings.Contains(agent.Decl, want) {
		t.Errorf("Agent decl:\n%s", agent.Decl)
	}
	if tags, _ := c.Type("Tags"); tags.Kind != catalog.TypeValue || tags.JS != "string[]" {
		t.Errorf("Tags = %+v", tags)
	}
	if got := names(c.TypeClosure("list(): Session[]")); got != "Session,SessionEntry,SessionID" {
		t.Errorf("closure of Session = %s", got)
	}
}

func names(ts []*catalog.Type) string {
	var out []string
	for _, t := range ts {
		out = append(out, t.Name)
	}
	return strings.Join(out, ",")
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
	if core.Inherited != nil || len(core.Catalog.Services) != 2 {
		t.Errorf("scanning the kit itself: inherited %v, %d services", core.Inherited, len(core.Catalog.Services))
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
