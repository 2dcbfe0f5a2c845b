package inspect

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
	"github.com/cordiskit/cordiskit/kit"
	"github.com/cordiskit/cordiskit/runner/page"
	"github.com/cordiskit/cordiskit/tooldecl/dynamic"
)

// A Manifest describes an inspect provider: its id, what it reports and its methods with
// their input and output JSON Schemas. A host provider registers one with
// Registry.Register; a page publishes its client providers' with Registry.SyncManifest.
type Manifest struct {
	ID          string                  `json:"id"`          // the provider id, such as "Slots"
	Description string                  `json:"description"` // what it reports
	Methods     []dynamic.InspectMethod `json:"methods"`     // its methods, with their input and output JSON Schemas
}

// A Call is one query of a host provider's method.
type Call struct {
	Method string
	// Input is valid against the method's inputSchema; "{}" when the query gave none.
	Input json.RawMessage
	// Session is the calling session.
	Session string
}

// A Provider is a host inspect provider: its manifest and the function that answers its
// methods. Like an analysis.Analyzer it is a description; the Registry runs it.
type Provider struct {
	Manifest Manifest
	// Query answers call, a method of Manifest. It runs on the querying goroutine with the
	// tool call's ctx, and should return when ctx is done. The result is encoded as JSON (a
	// json.RawMessage as it is) and must satisfy the method's outputSchema; a panic is
	// recovered and reported as the provider's error.
	Query func(ctx context.Context, call Call) (any, error)
}

// Default bounds of Options.
const (
	DefaultQueryTimeout = 30 * time.Second
	DefaultMaxMethods   = 256
)

// Options configure a Registry. nil, and each zero field, mean the default.
type Options struct {
	// Catalog is what the Service and Event providers report: the runtime's catalog or a
	// Toolset's merged one; the kit's core tier is merged in either way. nil means the core
	// tier alone.
	Catalog *catalog.Catalog
	// QueryTimeout bounds how long a client query waits for a page to answer; the query
	// then fails and says it expired. Default DefaultQueryTimeout.
	QueryTimeout time.Duration
	// MaxMethods bounds the methods one page may publish over all its providers. Default
	// DefaultMaxMethods.
	MaxMethods int
}

// A Registry holds the inspect providers of one process: the host providers (registered
// once, however many sessions use them) and the pages' client manifests, each kept only
// while its page is connected (client.go). It is safe for concurrent use.
type Registry struct {
	cat  *catalog.Catalog
	host func() *kit.Context // the host's context: events go there, live services and tools come from it
	opts Options

	mu      sync.Mutex
	hosts   []*hostProvider  // registration order
	pages   []*connectedPage // connection order
	queries map[string]*clientQuery
	nextID  int // of client queries: "inspect-N"
	closed  bool
}

type hostProvider struct {
	*entry
	query func(context.Context, Call) (any, error)
}

// New returns a registry over o.Catalog merged with the kit's core tier, with the
// first-party host providers Service, Event, Builtin and Tool registered. host returns
// the context of the runtime the registry serves (the runner's fiber): the registry emits
// Query and QueryResolved there, and Service and Tool read the live services and tools
// from it. It is called only when a query needs it, so it may return a context made after
// New. Close the registry when the host goes away.
func New(host func() *kit.Context, o *Options) (*Registry, error) {
	if host == nil {
		return nil, errors.New("inspect: New: host is nil; pass the func that returns the kit context of the runtime the registry serves (the runner passes its fiber's)")
	}
	var opts Options
	if o != nil {
		opts = *o
	}
	if opts.QueryTimeout <= 0 {
		opts.QueryTimeout = DefaultQueryTimeout
	}
	if opts.MaxMethods <= 0 {
		opts.MaxMethods = DefaultMaxMethods
	}
	merged, err := withCoreTier(opts.Catalog)
	if err != nil {
		return nil, fmt.Errorf("inspect: Options.Catalog: %w", err)
	}
	reg := &Registry{cat: merged, host: host, opts: opts, queries: map[string]*clientQuery{}}
	for _, p := range reg.firstPartyProviders() {
		if _, err := reg.Register(p); err != nil {
			return nil, fmt.Errorf("inspect: first-party provider: %w", err)
		}
	}
	return reg, nil
}

// Catalog returns the merged catalog the first-party providers report from.
func (reg *Registry) Catalog() *catalog.Catalog { return reg.cat }

// Register adds a host inspect provider after the others. Its manifest is checked
// (docs/dynamic-plugins.md, "Inspect providers") and copied; an id already registered is
// refused. The returned func removes the provider, once: calling it again, or after
// another registration took the id, changes nothing. Host providers belong to the process,
// not to a session: register each once, beside the Runner, never per session.
func (reg *Registry) Register(p Provider) (unregister func(), err error) {
	if p.Query == nil {
		return nil, errors.New("inspect: Register: Query is nil; give the function that answers the manifest's methods")
	}
	c, err := compileManifest(p.Manifest, "inspect: Register")
	if err != nil {
		return nil, err
	}
	h := &hostProvider{entry: c, query: p.Query}
	reg.mu.Lock()
	defer reg.mu.Unlock()
	if reg.closed {
		return nil, page.Refuse(page.ReasonClosed, "inspect: Register: the runner has been shut down")
	}
	if reg.hostProvider(c.manifest.ID) != nil {
		return nil, fmt.Errorf("inspect: Register: host inspect provider %q is already registered; register each provider once per process (not per session), or unregister the old one first", c.manifest.ID)
	}
	reg.hosts = append(reg.hosts, h)
	return func() {
		reg.mu.Lock()
		defer reg.mu.Unlock()
		if i := slices.Index(reg.hosts, h); i >= 0 {
			reg.hosts = slices.Delete(reg.hosts, i, i+1)
		}
	}, nil
}

// hostProvider returns the host provider id, or nil. reg.mu held.
func (reg *Registry) hostProvider(id string) *hostProvider {
	for _, h := range reg.hosts {
		if h.manifest.ID == id {
			return h
		}
	}
	return nil
}

// List is cordis_inspect_list (docs/dynamic-plugins.md, "cordis_inspect_list"): every host
// provider in registration order, then the client providers the connected pages publish.
func (reg *Registry) List() dynamic.InspectListOutput {
	reg.mu.Lock()
	defer reg.mu.Unlock()
	out := dynamic.InspectListOutput{Providers: []dynamic.InspectProvider{}}
	for _, h := range reg.hosts {
		out.Providers = append(out.Providers, h.view(dynamic.InspectHost))
	}
	for _, c := range reg.clientProviders() {
		out.Providers = append(out.Providers, c.view(dynamic.InspectClient))
	}
	return out
}

// Query is cordis_inspect_query for session (docs/dynamic-plugins.md,
// "cordis_inspect_query"): it checks, in order, that the provider exists on the platform,
// that it has the method and that the input (absent: {}) satisfies the method's
// inputSchema, then asks the provider. A host provider answers on this goroutine; a client
// query is sent to the pages that publish the method and waits, at most
// Options.QueryTimeout, for one of them to answer.
func (reg *Registry) Query(ctx context.Context, session string, in dynamic.InspectQueryInput) (dynamic.InspectQueryOutput, error) {
	input := in.Input
	if t := bytes.TrimSpace(input); len(t) == 0 || string(t) == "null" {
		input = json.RawMessage("{}")
	}
	var data json.RawMessage
	var err error
	switch in.Platform {
	case dynamic.InspectHost:
		data, err = reg.queryHost(ctx, session, in.Provider, in.Method, input)
	case dynamic.InspectClient:
		data, err = reg.queryClient(ctx, session, in.Provider, in.Method, input, in.Input)
	default:
		err = page.Refuse(page.ReasonInvalid, `cordis_inspect_query: platform must be "host" or "client", got %q; cordis_inspect_list shows each provider's platform`, in.Platform)
	}
	if err != nil {
		return dynamic.InspectQueryOutput{}, err
	}
	return dynamic.InspectQueryOutput{Platform: in.Platform, Provider: in.Provider, Method: in.Method, Data: data}, nil
}

// queryHost runs a host provider's method (docs/dynamic-plugins.md, "Host providers").
func (reg *Registry) queryHost(ctx context.Context, session, provider, method string, input json.RawMessage) (json.RawMessage, error) {
	reg.mu.Lock()
	h := reg.hostProvider(provider)
	var ids []string
	for _, x := range reg.hosts {
		ids = append(ids, x.manifest.ID)
	}
	reg.mu.Unlock()
	if h == nil {
		return nil, page.Refuse(page.ReasonInvalid, "host inspect provider %q is not registered; host providers: %s. Call cordis_inspect_list and use an id it lists", provider, idsOrNone(ids))
	}
	m, err := checkCall(h.entry, "host", method, input)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, queryCancelled(provider, method, err)
	}
	v, err := callProvider(ctx, h.query, Call{Method: method, Input: input, Session: session})
	if err != nil {
		return nil, &page.Error{Reason: page.ReasonProviderError, Message: fmt.Sprintf("host inspect provider %s.%s failed: %v", provider, method, err), Err: err}
	}
	if err := ctx.Err(); err != nil {
		return nil, queryCancelled(provider, method, err)
	}
	data, err := providerJSON(v)
	if err != nil {
		return nil, page.Refuse(page.ReasonProviderError, "host inspect provider %s.%s returned a non-JSON value (%v); this is a bug of the provider, not of the query", provider, method, err)
	}
	if err := m.out.validate(data); err != nil {
		return nil, page.Refuse(page.ReasonProviderError, "host inspect provider %s.%s returned invalid output (%v); this is a bug of the provider, not of the query", provider, method, err)
	}
	return data, nil
}

// checkCall finds method on c and checks input against its inputSchema.
func checkCall(c *entry, platform, method string, input json.RawMessage) (*methodSchemas, error) {
	id := c.manifest.ID
	m, ok := c.method(method)
	if !ok {
		return nil, page.Refuse(page.ReasonInvalid, "%s inspect provider %s has no method %q; its methods: %s", platform, id, method, c.methodNames())
	}
	if err := m.in.validate(input); err != nil {
		var schema string
		for _, dm := range c.manifest.Methods {
			if dm.Name == method {
				schema = string(dm.InputSchema)
			}
		}
		return nil, page.Refuse(page.ReasonInvalid, "%s inspect provider %s.%s rejected input: %v; give input that satisfies its inputSchema %s", platform, id, method, err, schema)
	}
	return m, nil
}

func queryCancelled(provider, method string, err error) *page.Error {
	return &page.Error{Reason: page.ReasonCancelled, Message: fmt.Sprintf("inspect query %s.%s was cancelled: %v", provider, method, err), Err: err}
}

// callProvider runs a host provider's query, turning a panic into its error: a provider is
// the runtime's Go code, and one faulty provider must not take the host down.
func callProvider(ctx context.Context, q func(context.Context, Call) (any, error), call Call) (v any, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v\n%s", p, debug.Stack())
		}
	}()
	return q(ctx, call)
}

// providerJSON encodes a provider's result as compact JSON.
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
