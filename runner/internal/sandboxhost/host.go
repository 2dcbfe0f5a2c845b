package sandboxhost

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/cordiskit/cordiskit/kit"
	"github.com/cordiskit/cordiskit/sandbox"
	"github.com/dop251/goja"
	"github.com/dop251/goja/ast"
)

// A Host runs host halves in the sandbox: a run is a mount. Start compiles the half,
// evaluates it in a fresh realm (sandbox.Sandbox.RunWith: the body, its promise and the
// plugin shape checked), starts the plugin as a child fiber of the fiber it is given
// (sandbox.Mount.Start: apply with the ctx façade, rolled back on failure) and reads the
// half's handler table through the realm. Every entry is bounded by the sandbox's
// Timeouts. A half runs in its Plugin's session's engine of the sandbox (Spec.Session as
// sandbox.RunOptions.Session; the sandbox package doc, "Engines per session"): its
// JavaScript waits for no other session's, and the engine goes when the session's last
// run (or mount of the same sandbox) stops.
type Host struct {
	sb *sandbox.Sandbox

	mu sync.Mutex
	// checked is the host half Check parsed last, handed to the Start that compiles the
	// same code (a define is usually followed by its run), so the code is parsed once.
	// One slot, not one per Package, and only for code up to handoffMaxBytes.
	checked *sandbox.Parsed
	// maxHandlers bounds one run's handler table (SetMaxHandlers).
	maxHandlers int
}

// handoffMaxBytes bounds the code whose syntax tree Check keeps for the next Start.
const handoffMaxBytes = 64 << 10

// New returns a Host on a sandbox of its own, configured by opts (nil means defaults: no
// façade), whose runs hold at most maxHandlers handlers each (see SetMaxHandlers). Close
// it after the runner that uses it.
func New(opts *sandbox.Options, maxHandlers int) *Host {
	h := &Host{sb: sandbox.New(opts)}
	h.SetMaxHandlers(maxHandlers)
	return h
}

// SetMaxHandlers bounds the handlers one run's harness.handle holds at once; a
// registration past it throws a TypeError in the half that says so. It applies to the
// runs started after it. It panics when n < 1: the runner gives its default for none.
func (h *Host) SetMaxHandlers(n int) {
	if n < 1 {
		panic(fmt.Sprintf("sandboxhost: SetMaxHandlers(%d): a run holds at least one handler", n))
	}
	h.mu.Lock()
	h.maxHandlers = n
	h.mu.Unlock()
}

// Close closes the host's sandbox; see sandbox.Sandbox.Close.
func (h *Host) Close(ctx context.Context) error { return h.sb.Close(ctx) }

// Sandbox returns the sandbox host halves run in.
func (h *Host) Sandbox() *sandbox.Sandbox { return h.sb }

// Check parses code as the body of an async function without compiling or running it,
// with the sandbox's own checks and teaching errors (sandbox.Sandbox.Parse). A let, const or
// class name declared twice in the body's own scope, or also as a var or function there,
// is an error the parser leaves to the compiler: such code is compiled, so the define
// answers with the error its run would give. A host half that
// declares `harness` in its function scope (var, let, const, function or class,
// destructuring too), where it would shadow the harness it is given, is refused here
// rather than failing obscurely at run time. The parsed host half is kept for a Start of
// the same code, which then compiles it without parsing it again.
func (h *Host) Check(half, code string) error {
	p, err := h.sb.Parse(half, code)
	if err != nil {
		return err
	}
	if redeclares(p.Func()) {
		// An early error only goja's compiler reports: compile to answer with its text.
		if _, err := h.sb.Compile(half, code); err != nil {
			return err
		}
	}
	if half != "code.host" {
		return nil
	}
	if declares(p.Func(), "harness") {
		return errors.New("code.host declares the name `harness`, which the host half is given (harness.handle registers a handler the client half calls with host.call); rename your variable")
	}
	if len(code) <= handoffMaxBytes {
		h.mu.Lock()
		h.checked = p
		h.mu.Unlock()
	}
	return nil
}

// compile compiles a host half for mount id: from the tree Check kept when it is of this
// code (taking it, so it compiles once), else from the source.
func (h *Host) compile(id, code string) (*sandbox.Program, error) {
	h.mu.Lock()
	p := h.checked
	if p != nil && p.Code() == code {
		h.checked = nil
	} else {
		p = nil
	}
	h.mu.Unlock()
	if p != nil {
		return h.sb.CompileParsed(id, p)
	}
	return h.sb.Compile(id, code)
}

// A Spec is what Start starts: the runner's HostSpec, as far as the sandbox reads it.
type Spec struct {
	PluginID string   // "clock-1": the mount id, which tags the half's console output
	Session  string   // the session that owns the Plugin (sandbox.RunOptions.Session)
	Shares   []string // the service keys the half provides to every session
	Code     string   // the host half
}

// Start evaluates spec.Code and starts the plugin it returns as a child fiber of parent,
// returning once it settled: active, or pending while an injected service is missing. The
// half gets `harness` natively (sandbox.RunOptions.Globals): its handle records into this
// run's handler table. A failure leaves nothing behind.
func (h *Host) Start(ctx context.Context, parent *kit.Context, spec Spec) (*Run, error) {
	prog, err := h.compile(spec.PluginID, spec.Code)
	if err != nil {
		return nil, err
	}
	tab := h.newHandlerTable()
	m, err := h.sb.RunWith(ctx, prog, &sandbox.RunOptions{Globals: tab.harnessGlobals(), Session: spec.Session, Shares: spec.Shares})
	if err != nil {
		return nil, err
	}
	f, err := m.Start(ctx, parent) // a failure disposes the fiber and closes the mount
	if err != nil {
		return nil, teachStartFailure(err)
	}
	return &Run{mount: m, fiber: f, handlers: tab}, nil
}

// teachStartFailure adds the next step to a name collision.
func teachStartFailure(err error) error {
	if errors.Is(err, kit.ErrDuplicate) {
		return fmt.Errorf("%w. Another Plugin already holds that name: cordis_stop the Plugin that registered it (cordis_inspect_self lists yours), or pick another name, then cordis_run again", err)
	}
	return err
}

// A Run is one started host half: a mount, its fiber and its handler table.
type Run struct {
	mount    *sandbox.Mount
	fiber    *kit.Fiber
	handlers *handlerTable
}

// ErrMethodNotFound is what Run.Invoke returns for a method the handler table lacks (the
// runner's ErrMethodNotFound).
var ErrMethodNotFound = errors.New("runner: no such host method")

// WaitingFor returns the injected services that are missing (the run is parked).
func (s *Run) WaitingFor() []string { return s.fiber.WaitingFor() }

// Provides returns the services the half provides, sorted.
func (s *Run) Provides() []string { return s.fiber.Provides() }

// Stop disposes the fiber (at quiescence), releases the realm and drops the handlers.
func (s *Run) Stop(ctx context.Context) error {
	err := errors.Join(s.fiber.Dispose(ctx), s.mount.Close(ctx))
	s.handlers.clear()
	return err
}

// Handlers returns the methods of the run's handler table, sorted.
func (s *Run) Handlers(context.Context) []string { return s.handlers.names() }

// Invoke calls a handler of the table with args (JSON), awaits its promise and converts its
// result to JSON, strictly. The entry is bounded by the sandbox's CallTimeout. A method the
// table lacks is ErrMethodNotFound.
func (s *Run) Invoke(ctx context.Context, method string, args json.RawMessage) (json.RawMessage, error) {
	r := s.mount.Realm()
	var missing, badResult bool
	var out json.RawMessage
	fn := func(goja.Value, ...goja.Value) (goja.Value, error) {
		handler := s.handlers.lookup(method)
		if handler == nil {
			missing = true
			return goja.Undefined(), nil
		}
		return handler(goja.Undefined(), sandbox.FromJSON(r, args))
	}
	err := r.Deliver(ctx, fn, nil, func(res goja.Value) error {
		if missing {
			return nil
		}
		defer func() {
			if x := recover(); x != nil {
				badResult = true
				panic(x)
			}
		}()
		out = sandbox.ToJSON(r, res, "result")
		return nil
	})
	switch {
	case missing:
		return nil, ErrMethodNotFound
	case err != nil && badResult:
		return nil, fmt.Errorf("harness.handle(%q) must return lossless JSON data (a plain object, an array, a string, a finite number, a boolean) or `return null`: %w", method, err)
	case err != nil:
		return nil, err
	}
	return out, nil
}

// redeclares reports whether fn's own scope declares a let, const or class name (a plain
// name, not one inside a destructuring pattern) twice, or also as a var or a function.
func redeclares(fn *ast.FunctionLiteral) bool {
	var lexical []string
	for _, st := range fn.Body.List {
		switch st := st.(type) {
		case *ast.LexicalDeclaration:
			for _, b := range st.List {
				if id, ok := b.Target.(*ast.Identifier); ok {
					lexical = append(lexical, id.Name.String())
				}
			}
		case *ast.ClassDeclaration:
			if n := st.Class.Name; n != nil {
				lexical = append(lexical, n.Name.String())
			}
		}
	}
	for i, name := range lexical {
		if slices.Contains(lexical[:i], name) || declaresVarOrFunction(fn, name) {
			return true
		}
	}
	return false
}

// declaresVarOrFunction reports whether fn's own scope declares name with var or as a
// function.
func declaresVarOrFunction(fn *ast.FunctionLiteral, name string) bool {
	for _, d := range fn.DeclarationList {
		if bindsAny(d.List, name) {
			return true
		}
	}
	for _, st := range fn.Body.List {
		if f, ok := st.(*ast.FunctionDeclaration); ok && f.Function.Name != nil && f.Function.Name.Name.String() == name {
			return true
		}
	}
	return false
}
