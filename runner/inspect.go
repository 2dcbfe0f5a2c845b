package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/cordiskit/cordiskit/catalog"
	"github.com/cordiskit/cordiskit/tooldecl/dynamic"
)

// Refusal reasons of the inspect registry, besides ReasonInvalid (an unknown provider or
// method, or input its schema rejects), ReasonCancelled and ReasonClosed.
const (
	ReasonProviderError Reason = "provider-error" // the provider failed, or answered data its outputSchema rejects
	ReasonExpired       Reason = "expired"        // no page answered a client query before its deadline
)

// An InspectManifest describes an inspect provider: its id, what it reports and its
// methods with their input and output JSON Schemas. A host provider registers one with
// RegisterInspectProvider; a page publishes its client providers' with
// SyncInspectManifest.
type InspectManifest struct {
	ID          string                  `json:"id"`          // the provider id, such as "Slots"
	Description string                  `json:"description"` // what it reports
	Methods     []dynamic.InspectMethod `json:"methods"`     // its methods, with their input and output JSON Schemas
}

// An InspectCall is one query of a host provider's method.
type InspectCall struct {
	Method string
	// Input is valid against the method's inputSchema; "{}" when the query gave none.
	Input json.RawMessage
	// Session is the calling session.
	Session string
}

// An InspectProvider is a host inspect provider: its manifest and the function that
// answers its methods.
type InspectProvider struct {
	Manifest InspectManifest
	// Query answers call, a method of Manifest. It runs on the querying goroutine with the
	// tool call's ctx, and should return when ctx is done. The result is encoded as JSON (a
	// json.RawMessage as it is) and must satisfy the method's outputSchema; a panic is
	// recovered and reported as the provider's error.
	Query func(ctx context.Context, call InspectCall) (any, error)
}

// inspectRegistry holds the inspect providers of one Runner, which is one per process:
// the host providers (registered once, however many sessions use them) and the pages'
// client manifests, each kept only while its page is connected (inspect_client.go).
type inspectRegistry struct {
	cat *catalog.Catalog

	mu      sync.Mutex
	host    []*hostProvider // registration order
	pages   []*inspectPage  // connection order
	queries map[string]*clientQuery
	nextID  int // of client queries: "inspect-N"
	closed  bool
}

type hostProvider struct {
	*inspectEntry
	query func(context.Context, InspectCall) (any, error)
}

// Catalog returns the merged catalog the first-party inspect providers report from.
func (r *Runner) Catalog() *catalog.Catalog { return r.inspect.cat }

// RegisterInspectProvider adds a host inspect provider after the others. Its manifest is
// checked (docs/dynamic-plugins.md, "Inspect providers") and copied; an id already
// registered is refused. The returned func removes the provider, once: calling it again,
// or after another registration took the id, changes nothing. Host providers belong to the
// process, not to a session: register each once, beside the Runner, never per session.
func (r *Runner) RegisterInspectProvider(p InspectProvider) (unregister func(), err error) {
	if p.Query == nil {
		return nil, errors.New("runner: RegisterInspectProvider: Query is nil; give the function that answers the manifest's methods")
	}
	c, err := compileInspectManifest(p.Manifest, "runner: RegisterInspectProvider")
	if err != nil {
		return nil, err
	}
	reg := r.inspect
	h := &hostProvider{inspectEntry: c, query: p.Query}
	reg.mu.Lock()
	defer reg.mu.Unlock()
	if reg.closed {
		return nil, refuse(ReasonClosed, "runner: RegisterInspectProvider: the runner has been shut down")
	}
	if reg.hostProvider(c.manifest.ID) != nil {
		return nil, fmt.Errorf("runner: RegisterInspectProvider: host inspect provider %q is already registered; register each provider once per process (not per session), or unregister the old one first", c.manifest.ID)
	}
	reg.host = append(reg.host, h)
	return func() {
		reg.mu.Lock()
		defer reg.mu.Unlock()
		if i := slices.Index(reg.host, h); i >= 0 {
			reg.host = slices.Delete(reg.host, i, i+1)
		}
	}, nil
}

// hostProvider returns the host provider id, or nil. reg.mu held.
func (reg *inspectRegistry) hostProvider(id string) *hostProvider {
	for _, h := range reg.host {
		if h.manifest.ID == id {
			return h
		}
	}
	return nil
}

// InspectList is cordis_inspect_list (docs/dynamic-plugins.md, "cordis_inspect_list"):
// every host provider in registration order, then the client providers the connected pages
// publish. It needs no session and never fails.
func (r *Runner) InspectList(ctx context.Context, _ dynamic.InspectListInput) (dynamic.InspectListOutput, error) {
	reg := r.inspect
	reg.mu.Lock()
	defer reg.mu.Unlock()
	out := dynamic.InspectListOutput{Providers: []dynamic.InspectProvider{}}
	for _, h := range reg.host {
		out.Providers = append(out.Providers, h.view(dynamic.InspectHost))
	}
	for _, c := range reg.clientProviders() {
		out.Providers = append(out.Providers, c.view(dynamic.InspectClient))
	}
	return out, nil
}

// InspectQuery is cordis_inspect_query (docs/dynamic-plugins.md, "cordis_inspect_query"):
// it checks, in order, that the provider exists on the platform, that it has the method
// and that the input (absent: {}) satisfies the method's inputSchema, then asks the
// provider. A host provider answers on this goroutine; a client query is sent to the pages
// that publish the method and waits, at most Options.InspectQueryTimeout, for one of them
// to answer.
func (r *Runner) InspectQuery(ctx context.Context, in dynamic.InspectQueryInput) (dynamic.InspectQueryOutput, error) {
	session, err := r.session(ctx)
	if err != nil {
		return dynamic.InspectQueryOutput{}, err
	}
	input := in.Input
	if t := bytes.TrimSpace(input); len(t) == 0 || string(t) == "null" {
		input = json.RawMessage("{}")
	}
	var data json.RawMessage
	switch in.Platform {
	case dynamic.InspectHost:
		data, err = r.queryHost(ctx, session, in.Provider, in.Method, input)
	case dynamic.InspectClient:
		data, err = r.queryClient(ctx, session, in.Provider, in.Method, input, in.Input)
	default:
		err = refuse(ReasonInvalid, `cordis_inspect_query: platform must be "host" or "client", got %q; cordis_inspect_list shows each provider's platform`, in.Platform)
	}
	if err != nil {
		return dynamic.InspectQueryOutput{}, err
	}
	return dynamic.InspectQueryOutput{Platform: in.Platform, Provider: in.Provider, Method: in.Method, Data: data}, nil
}

// queryHost runs a host provider's method (docs/dynamic-plugins.md, "Host providers").
func (r *Runner) queryHost(ctx context.Context, session, provider, method string, input json.RawMessage) (json.RawMessage, error) {
	reg := r.inspect
	reg.mu.Lock()
	h := reg.hostProvider(provider)
	var ids []string
	for _, x := range reg.host {
		ids = append(ids, x.manifest.ID)
	}
	reg.mu.Unlock()
	if h == nil {
		return nil, refuse(ReasonInvalid, "host inspect provider %q is not registered; host providers: %s. Call cordis_inspect_list and use an id it lists", provider, idsOrNone(ids))
	}
	m, err := checkInspectCall(h.inspectEntry, "host", method, input)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, queryCancelled(provider, method, err)
	}
	v, err := callProvider(ctx, h.query, InspectCall{Method: method, Input: input, Session: session})
	if err != nil {
		return nil, &Error{Reason: ReasonProviderError, Message: fmt.Sprintf("host inspect provider %s.%s failed: %v", provider, method, err), Err: err}
	}
	if err := ctx.Err(); err != nil {
		return nil, queryCancelled(provider, method, err)
	}
	data, err := providerJSON(v)
	if err != nil {
		return nil, refuse(ReasonProviderError, "host inspect provider %s.%s returned a non-JSON value (%v); this is a bug of the provider, not of the query", provider, method, err)
	}
	if err := m.out.validate(data); err != nil {
		return nil, refuse(ReasonProviderError, "host inspect provider %s.%s returned invalid output (%v); this is a bug of the provider, not of the query", provider, method, err)
	}
	return data, nil
}

// checkInspectCall finds method on c and checks input against its inputSchema.
func checkInspectCall(c *inspectEntry, platform, method string, input json.RawMessage) (*inspectMethodSchemas, error) {
	id := c.manifest.ID
	m, ok := c.method(method)
	if !ok {
		return nil, refuse(ReasonInvalid, "%s inspect provider %s has no method %q; its methods: %s", platform, id, method, c.methodNames())
	}
	if err := m.in.validate(input); err != nil {
		var schema string
		for _, dm := range c.manifest.Methods {
			if dm.Name == method {
				schema = string(dm.InputSchema)
			}
		}
		return nil, refuse(ReasonInvalid, "%s inspect provider %s.%s rejected input: %v; give input that satisfies its inputSchema %s", platform, id, method, err, schema)
	}
	return m, nil
}

func queryCancelled(provider, method string, err error) *Error {
	return &Error{Reason: ReasonCancelled, Message: fmt.Sprintf("inspect query %s.%s was cancelled: %v", provider, method, err), Err: err}
}

// callProvider runs a host provider's query, turning a panic into its error: a provider is
// the runtime's Go code, and one faulty provider must not take the host down.
func callProvider(ctx context.Context, q func(context.Context, InspectCall) (any, error), call InspectCall) (v any, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v\n%s", p, debug.Stack())
		}
	}()
	return q(ctx, call)
}

// snapshot encodes a provider's result as compact JSON.
func providerJSON(v any) (json.RawMessage, error) {
	var b []byte
	switch v := v.(type) {
	case json.RawMessage:
		b = v
	default:
		var err error
		if b, err = json.Marshal(v); err != nil {
			return nil, err
		}
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, b); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func idsOrNone(s []string) string {
	if len(s) == 0 {
		return "(none)"
	}
	return strings.Join(s, ", ")
}

// Default bounds of the inspect registry's Options.
const (
	DefaultInspectQueryTimeout = 30 * time.Second
	DefaultMaxInspectMethods   = 256
)
