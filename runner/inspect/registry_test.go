package inspect

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/cordiskit/cordiskit/catalog"
	"github.com/cordiskit/cordiskit/generated"
	"github.com/cordiskit/cordiskit/kit"
	"github.com/cordiskit/cordiskit/runner/page"
	"github.com/cordiskit/cordiskit/tooldecl/dynamic"
)

// clockCatalog is a runtime's own catalog: a service whose signature names a catalogued
// type (which names another), an abstract seam, and events, one of them the runner's own.
func clockCatalog() *catalog.Catalog {
	ref := func(n string) catalog.Ref { return catalog.Ref{Pkg: "example.com/rt", Name: n} }
	return &catalog.Catalog{
		Services: []catalog.Service{
			{Key: "clock", Var: ref("Clock"), Summary: "Clock tells the time.", Doc: "Clock tells the time.\n\nIt never goes back.",
				Methods: []catalog.Method{{Name: "Now", JSName: "now", Signature: "now(zone: Zone): Tick", Doc: "Now returns the current tick."}}},
			{Key: "my-seam", Var: ref("Seam"), Abstract: true, Summary: "Seam is implemented by a plugin.",
				Methods: []catalog.Method{{Name: "Ping", JSName: "ping", Signature: "ping(): string"}}},
		},
		Events: []catalog.Event{
			{Name: "clock/tick", Mode: catalog.ModeEmit, Var: ref("TickEvent"), Summary: "A tick happened.", Doc: "A tick happened.\n\nOnce a second.",
				Signature: "'clock/tick'(tick: Tick, late: boolean): void",
				Params:    []catalog.Field{{Name: "Tick", JSName: "tick", JS: "Tick", Doc: "The tick."}, {Name: "Late", JSName: "late", JS: "boolean", Optional: true}}},
			{Name: "clock/filter", Mode: catalog.ModeWaterfall, Var: ref("Filter"), Signature: "'clock/filter'(s: string, next: () => Promise<string>): Promise<string>"},
			{Name: "cordis/secret", Mode: catalog.ModeEmit, Var: ref("Secret"), Signature: "'cordis/secret'(): void"},
		},
		Types: []catalog.Type{
			{Name: "Tick", Go: ref("Tick"), Kind: catalog.TypeStruct, Decl: "interface Tick {\n  at: number\n  zone: Zone\n}", Refs: []string{"Zone"}, Summary: "A Tick is a moment."},
			{Name: "Zone", Go: ref("Zone"), Kind: catalog.TypeValue, Decl: "type Zone = string"},
			{Name: "Unused", Go: ref("Unused"), Kind: catalog.TypeValue, Decl: "type Unused = number"},
		},
	}
}

// query runs cordis_inspect_query as session s1 and decodes its data into out.
func (e *env) query(platform dynamic.InspectPlatform, provider, method, input string, out any) error {
	e.t.Helper()
	in := dynamic.InspectQueryInput{Platform: platform, Provider: provider, Method: method}
	if input != "" {
		in.Input = json.RawMessage(input)
	}
	res, err := e.reg.Query(as("s1"), "s1", in)
	if err != nil {
		return err
	}
	if res.Platform != platform || res.Provider != provider || res.Method != method {
		e.t.Errorf("InspectQuery answered %s %s.%s, want %s %s.%s", res.Platform, res.Provider, res.Method, platform, provider, method)
	}
	if out != nil {
		if err := json.Unmarshal(res.Data, out); err != nil {
			e.t.Fatalf("data %s: %v", res.Data, err)
		}
	}
	return nil
}

func providerIDs(out dynamic.InspectListOutput) string {
	var ids []string
	for _, p := range out.Providers {
		ids = append(ids, string(p.Platform)+":"+p.ID)
	}
	return strings.Join(ids, " ")
}

func TestInspectListFirstParty(t *testing.T) {
	e := newEnv(t, nil)
	out := e.reg.List() // needs no session
	if got, want := providerIDs(out), "host:Service host:Event host:Builtin host:Tool"; got != want {
		t.Fatalf("providers = %q, want %q", got, want)
	}
	for _, p := range out.Providers {
		if len(p.Methods) != 1 || p.Description == "" || p.Methods[0].Description == "" {
			t.Errorf("provider %s: %+v", p.ID, p)
		}
		for _, s := range []json.RawMessage{p.Methods[0].InputSchema, p.Methods[0].OutputSchema} {
			if !json.Valid(s) {
				t.Errorf("provider %s: schema %s is not JSON", p.ID, s)
			}
		}
	}
	// Every session reads the same providers: they belong to the process.
	for _, s := range []string{"s1", "s2"} {
		if _, err := e.inspectQuery(as(s), dynamic.InspectQueryInput{Platform: dynamic.InspectHost, Provider: "Builtin", Method: "listBuiltins"}); err != nil {
			t.Errorf("session %s: %v", s, err)
		}
	}
}

func TestInspectQueryChecksInOrder(t *testing.T) {
	e := newEnv(t, nil)
	e.register(Provider{
		Manifest: manifest("Odd", "bad", "nan", "strict", "panic"),
		Query: func(_ context.Context, c Call) (any, error) {
			switch c.Method {
			case "bad":
				return nil, errors.New("the disk is gone")
			case "nan":
				return math.NaN(), nil
			case "strict":
				return map[string]any{"other": 1}, nil
			case "panic":
				panic("provider bug")
			}
			return nil, nil
		},
	})
	cancelled, cancel := context.WithCancel(as("s1"))
	cancel()
	for _, tc := range []struct {
		name                    string
		ctx                     context.Context
		platform                dynamic.InspectPlatform
		provider, method, input string
		reason                  page.Reason
		want                    string
	}{
		{"platform", nil, "server", "Service", "listService", "", page.ReasonInvalid, `platform must be "host" or "client", got "server"`},
		{"provider", nil, "host", "Services", "listService", "", page.ReasonInvalid, `host inspect provider "Services" is not registered; host providers: Service, Event, Builtin, Tool, Odd. Call cordis_inspect_list`},
		{"provider before method", nil, "host", "Nope", "nope", `{"x":1}`, page.ReasonInvalid, `"Nope" is not registered`},
		{"method", nil, "host", "Service", "listServices", "", page.ReasonInvalid, `host inspect provider Service has no method "listServices"; its methods: listService`},
		{"input type", nil, "host", "Service", "listService", `{"service":5}`, page.ReasonInvalid, "host inspect provider Service.listService rejected input:"},
		{"input closed", nil, "host", "Event", "listEvents", `{"name":"x"}`, page.ReasonInvalid, "rejected input:"},
		{"input not an object", nil, "host", "Tool", "listTools", `[1]`, page.ReasonInvalid, "rejected input:"},
		{"cancelled", cancelled, "host", "Service", "listService", "", page.ReasonCancelled, "inspect query Service.listService was cancelled"},
		{"provider error", nil, "host", "Odd", "bad", "", page.ReasonProviderError, "host inspect provider Odd.bad failed: the disk is gone"},
		{"not JSON", nil, "host", "Odd", "nan", "", page.ReasonProviderError, "Odd.nan returned a non-JSON value"},
		{"invalid output", nil, "host", "Odd", "strict", "", page.ReasonProviderError, "Odd.strict returned invalid output"},
		{"panic", nil, "host", "Odd", "panic", "", page.ReasonProviderError, "Odd.panic failed: panic: provider bug"},
		{"unknown service", nil, "host", "Service", "listService", `{"service":"clocks"}`, page.ReasonProviderError, `no catalogued Service named "clocks"; catalogued services: clock, my-seam, timer, tools`},
		{"hidden event", nil, "host", "Event", "listEvents", `{"event":"cordis/secret"}`, page.ReasonProviderError, `no catalogued Event named "cordis/secret"; catalogued events: clock/filter, clock/tick, tools/change`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := tc.ctx
			if ctx == nil {
				ctx = as("s1")
			}
			in := dynamic.InspectQueryInput{Platform: tc.platform, Provider: tc.provider, Method: tc.method}
			if tc.input != "" {
				in.Input = json.RawMessage(tc.input)
			}
			_, err := e.inspectQuery(ctx, in)
			if page.ReasonOf(err) != tc.reason || err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v (reason %q), want %q containing %q", err, page.ReasonOf(err), tc.reason, tc.want)
			}
		})
	}
	// An absent input and a null one are checked as {}.
	for _, in := range []string{"", "null", " {} "} {
		if err := e.query("host", "Tool", "listTools", in, nil); err != nil {
			t.Errorf("input %q: %v", in, err)
		}
	}
}

// manifest is a provider with methods that take anything and return an object with "ok".
func manifest(id string, methods ...string) Manifest {
	m := Manifest{ID: id, Description: id + " reports things."}
	for _, name := range methods {
		m.Methods = append(m.Methods, dynamic.InspectMethod{Name: name, Description: "Returns " + name + ".",
			InputSchema: json.RawMessage(`{"type":"object"}`), OutputSchema: json.RawMessage(`{"type":"object","required":["ok"]}`)})
	}
	return m
}

// register registers a host provider and fails the test on error.
func (e *env) register(p Provider) func() {
	e.t.Helper()
	unregister, err := e.reg.Register(p)
	if err != nil {
		e.t.Fatal(err)
	}
	return unregister
}

func TestRegisterInspectProvider(t *testing.T) {
	e := newEnv(t, nil)
	ok := func(context.Context, Call) (any, error) { return map[string]bool{"ok": true}, nil }
	bad := func(f func(*Manifest)) Manifest { m := manifest("P", "get"); f(&m); return m }
	for _, tc := range []struct {
		name string
		p    Provider
		want string
	}{
		{"no query", Provider{Manifest: manifest("P", "get")}, "Query is nil"},
		{"blank id", Provider{Manifest: bad(func(m *Manifest) { m.ID = "  " }), Query: ok}, "the provider id is empty"},
		{"no description", Provider{Manifest: bad(func(m *Manifest) { m.Description = "" }), Query: ok}, `provider "P" has no description`},
		{"no methods", Provider{Manifest: Manifest{ID: "P", Description: "d"}, Query: ok}, `provider "P" has no methods`},
		{"blank method", Provider{Manifest: bad(func(m *Manifest) { m.Methods[0].Name = "" }), Query: ok}, `method 0 has no name`},
		{"repeated method", Provider{Manifest: manifest("P", "get", "get"), Query: ok}, `lists method "get" twice`},
		{"method description", Provider{Manifest: bad(func(m *Manifest) { m.Methods[0].Description = " " }), Query: ok}, `method "get" has no description`},
		{"no input schema", Provider{Manifest: bad(func(m *Manifest) { m.Methods[0].InputSchema = nil }), Query: ok}, `P.get.inputSchema is missing`},
		{"schema not JSON", Provider{Manifest: bad(func(m *Manifest) { m.Methods[0].OutputSchema = json.RawMessage(`{`) }), Query: ok}, `P.get.outputSchema`},
		{"unsupported schema", Provider{Manifest: bad(func(m *Manifest) {
			m.Methods[0].InputSchema = json.RawMessage(`{"type":"object","properties":{"n":{"type":"int"}}}`)
		}), Query: ok}, `P.get.inputSchema.properties.n.type must be one of string, number, integer, boolean, null, object, array; got "int"`},
		// A $ref cycle that stays on one value would overflow the validator's stack.
		{"unbounded schema", Provider{Manifest: bad(func(m *Manifest) { m.Methods[0].InputSchema = json.RawMessage(`{"$ref":"#"}`) }), Query: ok}, `P.get.inputSchema`},
		{"taken id", Provider{Manifest: manifest("Service", "get"), Query: ok}, `host inspect provider "Service" is already registered; register each provider once per process (not per session)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := e.reg.Register(tc.p)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want it to contain %q", err, tc.want)
			}
		})
	}

	// The disposer removes only its own registration, once.
	first := e.register(Provider{Manifest: manifest("P", "get"), Query: ok})
	if _, err := e.reg.Register(Provider{Manifest: manifest("P", "get"), Query: ok}); err == nil {
		t.Fatal("a second registration of P was accepted")
	}
	first()
	e.register(Provider{Manifest: manifest("P", "get"), Query: ok})
	first()
	if err := e.query("host", "P", "get", "", nil); err != nil {
		t.Fatalf("the second registration of P was removed by the first one's disposer: %v", err)
	}
	// The registry keeps a copy: changing the manifest afterwards changes nothing.
	m := manifest("Q", "get")
	e.register(Provider{Manifest: m, Query: ok})
	m.Methods[0].Name = "changed"
	if err := e.query("host", "Q", "get", "", nil); err != nil {
		t.Fatal(err)
	}
}

func TestServiceProvider(t *testing.T) {
	e := newEnv(t, nil)
	var all struct {
		Mode     string
		Services []struct {
			Key, Description  string
			Abstract, Running bool
			Methods           []struct{ Name, Signature string }
		}
	}
	if err := e.query("host", "Service", "listService", "", &all); err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, s := range all.Services {
		keys = append(keys, s.Key)
	}
	if all.Mode != "catalog" || strings.Join(keys, ",") != "clock,my-seam,timer,tools" {
		t.Fatalf("catalog mode = %s %v", all.Mode, keys)
	}
	if s := all.Services[0]; s.Description != "Clock tells the time." || s.Running || s.Methods[0].Signature != "now(zone: Zone): Tick" {
		t.Errorf("clock = %+v", s)
	}
	if s := all.Services[2]; !s.Running {
		t.Errorf("timer is provided by the kit root but reads as not running: %+v", s)
	}

	var one struct {
		Mode    string
		Service struct {
			Key, Description string
			Access           struct {
				Inject     []string
				Expression string
			}
			Methods []struct{ Name, Signature, Description string }
		}
		ReferencedTypes []struct{ Name, Kind, Declaration, Description string }
	}
	if err := e.query("host", "Service", "listService", `{"service":"clock"}`, &one); err != nil {
		t.Fatal(err)
	}
	if one.Mode != "service" || one.Service.Description != "Clock tells the time.\n\nIt never goes back." ||
		one.Service.Methods[0].Description != "Now returns the current tick." {
		t.Errorf("service mode = %+v", one)
	}
	if a := one.Service.Access; strings.Join(a.Inject, ",") != "clock" || a.Expression != "ctx.clock" {
		t.Errorf("access = %+v", a)
	}
	// The signature names Tick (the method records no Types), and Tick names Zone.
	var names []string
	for _, ty := range one.ReferencedTypes {
		names = append(names, ty.Name)
	}
	if strings.Join(names, ",") != "Tick,Zone" || one.ReferencedTypes[0].Declaration != "interface Tick {\n  at: number\n  zone: Zone\n}" ||
		one.ReferencedTypes[0].Kind != "struct" || one.ReferencedTypes[0].Description != "A Tick is a moment." {
		t.Errorf("referencedTypes = %+v, want Tick and Zone with their declarations", one.ReferencedTypes)
	}
	if err := e.query("host", "Service", "listService", `{"service":"my-seam"}`, &one); err != nil {
		t.Fatal(err)
	}
	if one.Service.Access.Expression != `ctx["my-seam"]` || len(one.ReferencedTypes) != 0 {
		t.Errorf("my-seam = %+v", one)
	}
	if err := e.query("host", "Service", "listService", `{"service":"tools"}`, &one); err != nil {
		t.Fatal(err)
	}
	if len(one.Service.Access.Inject) != 0 || one.Service.Access.Expression != "ctx.tools" {
		t.Errorf("tools needs no inject: %+v", one.Service.Access)
	}
}

func TestEventProvider(t *testing.T) {
	e := newEnv(t, nil)
	var all struct {
		Mode   string
		Events []struct{ Name, Description, Mode, Signature string }
	}
	if err := e.query("host", "Event", "listEvents", "", &all); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, ev := range all.Events {
		names = append(names, ev.Name)
	}
	if all.Mode != "catalog" || strings.Join(names, ",") != "clock/filter,clock/tick,tools/change" {
		t.Fatalf("events = %s %v (cordis/* events are the panel's, never the model's)", all.Mode, names)
	}
	var one struct {
		Mode  string
		Event struct {
			Name, Description, Mode, Signature, Note string
			Parameters                               []struct {
				Name, Type, Description string
				Optional                bool
			}
		}
		ReferencedTypes []struct{ Name string }
	}
	if err := e.query("host", "Event", "listEvents", `{"event":"clock/tick"}`, &one); err != nil {
		t.Fatal(err)
	}
	p := one.Event.Parameters
	if one.Mode != "event" || one.Event.Description != "A tick happened.\n\nOnce a second." || one.Event.Note != "" ||
		len(p) != 2 || p[0].Name != "tick" || p[0].Type != "Tick" || p[0].Description != "The tick." || !p[1].Optional {
		t.Errorf("clock/tick = %+v", one)
	}
	if len(one.ReferencedTypes) != 2 || one.ReferencedTypes[0].Name != "Tick" || one.ReferencedTypes[1].Name != "Zone" {
		t.Errorf("referencedTypes = %+v, want Tick, Zone", one.ReferencedTypes)
	}
	if err := e.query("host", "Event", "listEvents", `{"event":"clock/filter"}`, &one); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(one.Event.Note, "MUST call it") {
		t.Errorf("a waterfall event has no note about next(): %+v", one.Event)
	}
}

func TestBuiltinAndToolProviders(t *testing.T) {
	e := newEnv(t, nil)
	var b struct {
		Builtins        []builtin
		ReferencedTypes []json.RawMessage
	}
	if err := e.query("host", "Builtin", "listBuiltins", "", &b); err != nil {
		t.Fatal(err)
	}
	kinds := map[string]string{}
	for _, x := range b.Builtins {
		kinds[x.Name] = x.Kind
	}
	for name, kind := range map[string]string{"ctx": "object", "ctx.on/once": "ctx-verb", "harness.handle": "function", "console": "object",
		"TextEncoder": "constructor", "require": "trap", "setTimeout": "trap", "fetch": "trap", "process": "undefined", "Buffer": "undefined"} {
		if kinds[name] != kind {
			t.Errorf("builtin %s: kind %q, want %q", name, kinds[name], kind)
		}
	}
	if b.ReferencedTypes == nil || len(b.ReferencedTypes) != 0 {
		t.Errorf("referencedTypes = %v, want []", b.ReferencedTypes)
	}

	tools, _ := kit.ToolsService.Get(e.root)
	e.root.Plugin(&kit.Plugin{Name: "tooler", Apply: func(c *kit.Context) error {
		_, err := tools.Register(c, kit.Tool{ToolSchema: kit.ToolSchema{Name: "say_hi", Description: "Says hi."},
			Execute: func(context.Context, json.RawMessage) (json.RawMessage, error) { return json.RawMessage(`"hi"`), nil }})
		return err
	}})
	var tl struct{ Tools []kit.ToolSchema }
	if err := e.query("host", "Tool", "listTools", "{}", &tl); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, s := range tl.Tools {
		found = found || s.Name == "say_hi" && s.Description == "Says hi."
	}
	if !found {
		t.Errorf("tools = %+v, want say_hi among them", tl.Tools)
	}
}

func TestInspectCatalogOptions(t *testing.T) {
	// A Toolset's merged catalog already holds the core tier: it is taken once.
	merged, err := catalog.Merge(generated.Catalog, clockCatalog())
	if err != nil {
		t.Fatal(err)
	}
	for name, cat := range map[string]*catalog.Catalog{"own": clockCatalog(), "merged": merged} {
		e := newEnv(t, &Options{Catalog: cat})
		if got, want := len(e.reg.Catalog().Services), len(merged.Services); got != want {
			t.Errorf("%s: %d services, want %d", name, got, want)
		}
	}
	// A different declaration of a core name is the merge error, from New.
	clash := clockCatalog()
	clash.Services[0].Key = "timer"
	_, err = New(func() *kit.Context { return nil }, &Options{Catalog: clash})
	if err == nil || !strings.Contains(err.Error(), `service "timer" is declared by both`) {
		t.Fatalf("New with a clashing catalog: %v", err)
	}
	// A registry without the host it serves is a wiring fault, said at once.
	_, err = New(nil, nil)
	if err == nil || !strings.Contains(err.Error(), "host is nil") {
		t.Fatalf("New without a host: %v", err)
	}
}
