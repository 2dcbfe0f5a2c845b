package inspect

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/cordiskit/cordiskit/catalog"
	"github.com/cordiskit/cordiskit/generated"
	"github.com/cordiskit/cordiskit/kit"
	"github.com/cordiskit/cordiskit/tooldecl/dynamic"
)

// The first-party host providers (docs/dynamic-plugins.md, "Host providers"): Service,
// Event, Builtin and Tool, built from the merged catalog and the live runtime. They are
// registered once, when the Registry is made, so every session reads the same providers (the
// original registers them per session, and a second session's registration fails).

// withCoreTier merges the kit's core tier into cat. cat may already hold it (the merged
// catalog of a Toolset, toolset.Catalog()): entries declared by the same Go declaration as
// a core entry are taken once, so either catalog works; a different declaration of the
// same name is still the merge error.
func withCoreTier(cat *catalog.Catalog) (*catalog.Catalog, error) {
	if cat == nil {
		return catalog.Merge(generated.Catalog)
	}
	core := generated.Catalog
	coreVars := map[catalog.Ref]bool{}
	for _, e := range core.Events {
		coreVars[e.Var] = true
	}
	for _, s := range core.Services {
		coreVars[s.Var] = true
	}
	for _, t := range core.Tools {
		coreVars[t.Var] = true
	}
	own := &catalog.Catalog{}
	for _, e := range cat.Events {
		if !coreVars[e.Var] {
			own.Events = append(own.Events, e)
		}
	}
	for _, s := range cat.Services {
		if !coreVars[s.Var] {
			own.Services = append(own.Services, s)
		}
	}
	for _, t := range cat.Tools {
		if !coreVars[t.Var] {
			own.Tools = append(own.Tools, t)
		}
	}
	own.Types = cat.Types // Merge keeps a type both declare once when it is the same Go type
	return catalog.Merge(core, own)
}

// Schemas of the first-party methods. Inputs are closed objects; outputs are permissive
// (docs/dynamic-plugins.md, "Host providers"), with a description of the shape.
const (
	serviceInput  = `{"type":"object","properties":{"service":{"type":"string","description":"A catalogued service key, such as \"timer\". Omit it to list every catalogued service."}},"additionalProperties":false}`
	serviceOutput = `{"type":"object","description":"Without service: {mode:\"catalog\", services:[{key, description, abstract, running, methods:[{name, signature}]}]}. With service: {mode:\"service\", service:{key, description, abstract, running, provider, access:{inject, expression, note}, methods:[{name, signature, description}]}, referencedTypes:[{name, kind, declaration, description}]}."}`
	eventInput    = `{"type":"object","properties":{"event":{"type":"string","description":"A catalogued event name, such as \"tools/change\". Omit it to list every catalogued event."}},"additionalProperties":false}`
	eventOutput   = `{"type":"object","description":"Without event: {mode:\"catalog\", events:[{name, description, mode, signature}]}. With event: {mode:\"event\", event:{name, description, mode, signature, parameters:[{name, type, description, optional}], note}, referencedTypes:[{name, kind, declaration, description}]}."}`
	emptyInput    = `{"type":"object","properties":{},"additionalProperties":false}`
	builtinOutput = `{"type":"object","description":"{builtins:[{name, kind, signature, description}], referencedTypes:[]}: the globals and ctx verbs a host half has."}`
	toolOutput    = `{"type":"object","description":"{tools:[{name, description, inputSchema, outputSchema}]}: the tools registered now, in registration order."}`
)

func oneMethod(name, desc, in, out string) []dynamic.InspectMethod {
	return []dynamic.InspectMethod{{Name: name, Description: desc, InputSchema: json.RawMessage(in), OutputSchema: json.RawMessage(out)}}
}

// firstPartyProviders are Service, Event, Builtin and Tool, in that order.
func (reg *Registry) firstPartyProviders() []Provider {
	return []Provider{
		{Manifest: Manifest{ID: "Service", Description: "The catalogued services a host half can inject: their methods with JavaScript signatures, and for one service its documentation, how to reach it and the shapes of the types its signatures name.",
			Methods: oneMethod("listService", "List every catalogued service, or describe one ({service: key}) with its docs, access expression and referencedTypes. Call it before writing code that uses a service; never guess a method or a field.", serviceInput, serviceOutput)},
			Query: reg.queryService},
		{Manifest: Manifest{ID: "Event", Description: "The catalogued events a host half can listen to with ctx.on: dispatch mode and exact listener signature, and for one event its parameters and the shapes of the types they name.",
			Methods: oneMethod("listEvents", "List every catalogued event, or describe one ({event: name}) with its parameters and referencedTypes.", eventInput, eventOutput)},
			Query: reg.queryEvent},
		{Manifest: Manifest{ID: "Builtin", Description: "The globals a host half has (ctx verbs, harness, console, btoa/atob, TextEncoder/TextDecoder) and the Node.js APIs that throw and what to use instead.",
			Methods: oneMethod("listBuiltins", "List the host half's globals and ctx verbs.", emptyInput, builtinOutput)},
			Query: func(context.Context, Call) (any, error) {
				return builtinsOut{Builtins: hostBuiltins(), ReferencedTypes: []typeShape{}}, nil
			}},
		{Manifest: Manifest{ID: "Tool", Description: "The model-facing tools registered now, including those dynamic plugins registered: what you can call.",
			Methods: oneMethod("listTools", "List the registered tools with their input and output schemas.", emptyInput, toolOutput)},
			Query: reg.queryTools},
	}
}

// serviceSummary is a service in Service.listService's catalog mode.
type serviceSummary struct {
	Key         string      `json:"key"`
	Description string      `json:"description"`
	Abstract    bool        `json:"abstract"`
	Running     bool        `json:"running"`
	Methods     []methodSig `json:"methods"`
}

type methodSig struct {
	Name        string `json:"name"`
	Signature   string `json:"signature"`
	Description string `json:"description,omitempty"`
}

// serviceDetail is one service in Service.listService's service mode.
type serviceDetail struct {
	serviceSummary
	Provider string `json:"provider,omitempty"`
	Access   access `json:"access"`
}

// access says how a host half reaches a service.
type access struct {
	Inject     []string `json:"inject"`
	Expression string   `json:"expression"`
	Note       string   `json:"note"`
}

// typeShape is a catalogued type a signature names.
type typeShape struct {
	Name        string `json:"name"`
	Kind        string `json:"kind"`
	Declaration string `json:"declaration"`
	Description string `json:"description,omitempty"`
}

type serviceCatalogOut struct {
	Mode     string           `json:"mode"`
	Services []serviceSummary `json:"services"`
}

type serviceOut struct {
	Mode            string        `json:"mode"`
	Service         serviceDetail `json:"service"`
	ReferencedTypes []typeShape   `json:"referencedTypes"`
}

func (reg *Registry) queryService(ctx context.Context, call Call) (any, error) {
	var in struct {
		Service *string `json:"service"`
	}
	if err := json.Unmarshal(call.Input, &in); err != nil {
		return nil, err
	}
	cat, live := reg.cat, liveServices(ctx, reg.host())
	if in.Service == nil {
		out := serviceCatalogOut{Mode: "catalog", Services: []serviceSummary{}}
		for i := range cat.Services {
			out.Services = append(out.Services, summarize(&cat.Services[i], live, false))
		}
		return out, nil
	}
	svc, ok := cat.Service(*in.Service)
	if !ok {
		keys := make([]string, len(cat.Services))
		for i, s := range cat.Services {
			keys[i] = s.Key
		}
		return nil, fmt.Errorf("no catalogued Service named %q; catalogued services: %s (a service a dynamic plugin provides has no catalog entry: read its Package with cordis_inspect_self)", *in.Service, idsOrNone(keys))
	}
	d := serviceDetail{serviceSummary: summarize(svc, live, true), Provider: live[svc.Key], Access: accessOf(svc)}
	names := slices.Clone(svc.Types)
	for _, m := range svc.Methods {
		names = append(names, m.Types...)
	}
	return serviceOut{Mode: "service", Service: d, ReferencedTypes: referencedTypes(cat, names, svc.Signatures())}, nil
}

// summarize is svc in Service.listService; full adds the whole doc and the method docs.
func summarize(svc *catalog.Service, live map[string]string, full bool) serviceSummary {
	s := serviceSummary{Key: svc.Key, Description: svc.Summary, Abstract: svc.Abstract, Methods: []methodSig{}}
	_, s.Running = live[svc.Key]
	if full {
		s.Description = strings.TrimSpace(svc.Doc)
	}
	for _, m := range svc.Methods {
		sig := methodSig{Name: m.JSName, Signature: m.Signature}
		if full {
			sig.Description = strings.TrimSpace(m.Doc)
		}
		s.Methods = append(s.Methods, sig)
	}
	return s
}

var jsIdent = regexp.MustCompile(`^[A-Za-z_$][A-Za-z0-9_$]*$`)

// accessOf says how a host half reaches svc. The sandbox's ctx.get needs the key in inject
// too (there is no optional lookup of an undeclared service, unlike the original), so the
// only access is a declared one; tools is on ctx without inject.
func accessOf(svc *catalog.Service) access {
	expr := "ctx." + svc.Key
	if !jsIdent.MatchString(svc.Key) {
		expr = fmt.Sprintf("ctx[%q]", svc.Key)
	}
	if svc.Key == kit.ToolsService.Key() {
		return access{Inject: []string{}, Expression: expr, Note: "present on every ctx without inject."}
	}
	note := fmt.Sprintf("declare inject: [%q] (ctx.get(%q) is the same lookup and needs it too); the plugin waits, pending, until the service runs, and returns to pending if it stops.", svc.Key, svc.Key)
	if svc.Abstract {
		note += fmt.Sprintf(" It is an abstract seam: a plugin implements it with ctx.provide(%q, {…its methods}).", svc.Key)
	}
	return access{Inject: []string{svc.Key}, Expression: expr, Note: note}
}

// referencedTypes is every catalogued type the signatures name (as whole words, or as the
// scanner recorded in names), and transitively every type those name, sorted: the field
// shapes a reader needs before calling the verbs. The original's is always empty.
func referencedTypes(cat *catalog.Catalog, names, signatures []string) []typeShape {
	for _, t := range cat.TypeClosure(signatures...) {
		names = append(names, t.Name)
	}
	out := []typeShape{}
	for _, t := range cat.Closure(names...) {
		out = append(out, typeShape{Name: t.Name, Kind: string(t.Kind), Declaration: t.Decl, Description: t.Summary})
	}
	return out
}

// liveServices maps every service provided by an active fiber to its owner: the runtime's
// own, and those of the session on ctx (another session's services are not its to see).
func liveServices(ctx context.Context, c *kit.Context) map[string]string {
	session, _ := kit.SessionFrom(ctx)
	live := map[string]string{}
	for _, s := range c.Services() {
		if s.OwnerState == kit.StateActive && (s.Session == "" || s.Session == session) {
			live[s.Key] = s.Owner
		}
	}
	return live
}

type eventSummary struct {
	Name        string       `json:"name"`
	Description string       `json:"description"`
	Mode        catalog.Mode `json:"mode"`
	Signature   string       `json:"signature"`
}

type eventDetail struct {
	eventSummary
	Parameters []eventParam `json:"parameters"`
	Note       string       `json:"note,omitempty"`
}

type eventParam struct {
	Name        string `json:"name"`
	Type        string `json:"type"`
	Description string `json:"description,omitempty"`
	Optional    bool   `json:"optional,omitempty"`
}

type eventCatalogOut struct {
	Mode   string         `json:"mode"`
	Events []eventSummary `json:"events"`
}

type eventOut struct {
	Mode            string      `json:"mode"`
	Event           eventDetail `json:"event"`
	ReferencedTypes []typeShape `json:"referencedTypes"`
}

// hiddenEvent reports whether an event is kept from the model: the runner's own cordis/*
// events, which the panel consumes (docs/dynamic-plugins.md, "Events").
func hiddenEvent(name string) bool { return strings.HasPrefix(name, "cordis/") }

func (reg *Registry) queryEvent(_ context.Context, call Call) (any, error) {
	var in struct {
		Event *string `json:"event"`
	}
	if err := json.Unmarshal(call.Input, &in); err != nil {
		return nil, err
	}
	cat := reg.cat
	if in.Event == nil {
		out := eventCatalogOut{Mode: "catalog", Events: []eventSummary{}}
		for _, ev := range cat.Events {
			if !hiddenEvent(ev.Name) {
				out.Events = append(out.Events, eventSummary{Name: ev.Name, Description: ev.Summary, Mode: ev.Mode, Signature: ev.Signature})
			}
		}
		return out, nil
	}
	ev, ok := cat.Event(*in.Event)
	if !ok || hiddenEvent(ev.Name) {
		var names []string
		for _, e := range cat.Events {
			if !hiddenEvent(e.Name) {
				names = append(names, e.Name)
			}
		}
		return nil, fmt.Errorf("no catalogued Event named %q; catalogued events: %s", *in.Event, idsOrNone(names))
	}
	d := eventDetail{eventSummary: eventSummary{Name: ev.Name, Description: strings.TrimSpace(ev.Doc), Mode: ev.Mode, Signature: ev.Signature}, Parameters: []eventParam{}}
	for _, p := range ev.Params {
		d.Parameters = append(d.Parameters, eventParam{Name: p.JSName, Type: p.JS, Description: strings.TrimSpace(p.Doc), Optional: p.Optional})
	}
	if spec, _ := ev.Mode.Spec(); spec.ListenerNote != "" {
		d.Note = spec.ListenerNote
	}
	return eventOut{Mode: "event", Event: d, ReferencedTypes: referencedTypes(cat, slices.Clone(ev.Types), []string{ev.Signature})}, nil
}

type toolsOut struct {
	Tools []kit.ToolSchema `json:"tools"`
}

func (reg *Registry) queryTools(ctx context.Context, _ Call) (any, error) {
	tools, ok := kit.ToolsService.Get(reg.host())
	if !ok {
		return nil, fmt.Errorf("the tools registry is not running, so no tool can be listed or called now")
	}
	session, _ := kit.SessionFrom(ctx) // the runtime's own tools and the session's
	return toolsOut{Tools: tools.Session(session).Schemas()}, nil
}
