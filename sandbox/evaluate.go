package sandbox

import (
	"context"
	"errors"
	"fmt"
	"github.com/cordiskit/cordiskit/sandbox/internal/conv"
	"slices"
	"strings"

	"github.com/cordiskit/cordiskit/kit"
	"github.com/cordiskit/cordiskit/sandbox/internal/jslex"
	"github.com/dop251/goja"
	"github.com/dop251/goja/ast"
	"github.com/dop251/goja/file"
	"github.com/dop251/goja/parser"
)

// Mount code is the body of an async function. The prefix shares the first line with the
// code so line numbers need no adjusting (only columns on line 1 do).
const (
	wrapPrefix = "(async function () {"
	wrapSuffix = "\n})"
)

// A Mount is evaluated mount code: a realm and the plugin its body returned. Plugin turns
// it into a kit.Plugin; Close releases the realm once the plugin's fiber is disposed.
type Mount struct {
	realm   *Realm
	name    string
	session string   // RunOptions.Session
	shares  []string // RunOptions.Shares
	inject  []string
	this    goja.Value    // the plugin object (undefined for the function form)
	apply   goja.Callable // the function called with the ctx façade
}

// Evaluate runs code — the body of an async function that must return a plugin, either
// (ctx) => {…} or { name?, inject?, apply(ctx) {…} } — in a fresh realm for mount id
// ("dyn-3"). The synchronous run is bounded by Timeouts.VM, the returned promise by
// Timeouts.Mount; ctx cancels it too. Errors teach: a *SyntaxError (line, column, the
// offending line, a caret and a hint), a *NotPluginError, a thrown value (*JSError), a time
// bound (errors.Is(err, context.DeadlineExceeded)). A failed evaluation leaves nothing
// behind. Evaluate is Compile then Run.
func (sb *Sandbox) Evaluate(ctx context.Context, id, code string) (*Mount, error) {
	p, err := sb.Compile(id, code)
	if err != nil {
		return nil, err
	}
	return sb.Run(ctx, p)
}

// A Program is mount code compiled for one mount id, ready for Run.
type Program struct {
	id    string
	prog  *goja.Program
	reach jslex.Reach // the constructors besides Function the code may reach (see compilerGuard)
}

// Compile checks and compiles mount code for mount id without entering JavaScript or
// taking the engine's lock, so a caller can compile before it takes locks of its own.
// Compiling is not interruptible: the checks before it bound its work instead. Code larger
// than Limits.MaxBytes is refused, code nested deeper than Limits.MaxNesting or with more
// nesting work than Limits.MaxNestingWork is a *SyntaxError, and so is code that does not
// parse.
func (sb *Sandbox) Compile(id, code string) (*Program, error) {
	if err := sb.precheck(id, code); err != nil {
		return nil, err
	}
	prog, err := compileMount(id, code)
	if err != nil {
		return nil, err
	}
	return &Program{id: id, prog: prog, reach: jslex.Reaches(code)}, nil
}

// A Parsed is mount code that passed Parse: Compile's checks and the parser, not the
// compiler. It is not safe for concurrent use.
type Parsed struct {
	code string
	prg  *ast.Program // nil once compiled
}

// Code returns the source p was parsed from.
func (p *Parsed) Code() string { return p.code }

// Func returns the async function the code is the body of: its Body.List is the code's
// top-level statements, its DeclarationList every var it declares. Nil once p is compiled.
func (p *Parsed) Func() *ast.FunctionLiteral {
	if p.prg == nil {
		return nil
	}
	return wrapper(p.prg)
}

// Parse checks mount code as Compile does and parses it without compiling, for a caller
// that looks at the code's declarations before it decides to run it, and may then compile
// it with CompileParsed instead of parsing it again. Its errors are Compile's, except
// those only the compiler finds (a redeclared let, for one): those come from the compile.
func (sb *Sandbox) Parse(id, code string) (*Parsed, error) {
	if err := sb.precheck(id, code); err != nil {
		return nil, err
	}
	prg, err := parseMount(id, code)
	if err != nil {
		return nil, err
	}
	return &Parsed{code: code, prg: prg}, nil
}

// CompileParsed compiles p for mount id as Compile(id, p.Code()) does, without checking
// and parsing the code again (the id p was parsed under named only its parse errors). It
// consumes p, whose syntax tree the program takes over: a Parsed compiles once, and a
// second call is an error.
func (sb *Sandbox) CompileParsed(id string, p *Parsed) (*Program, error) {
	prg := p.prg
	if prg == nil {
		return nil, fmt.Errorf("%s: this parsed code was compiled already; Parse it again (or Compile it)", id)
	}
	p.prg = nil
	prg.File = file.NewFile(mountFile(id), prg.File.Source(), prg.File.Base())
	prog, err := compileParsed(id, p.code, prg)
	if err != nil {
		return nil, err
	}
	return &Program{id: id, prog: prog, reach: jslex.Reaches(p.code)}, nil
}

// precheck bounds the work of parsing code: its size, then its nesting.
func (sb *Sandbox) precheck(id, code string) error {
	if len(code) > sb.limits.MaxBytes {
		return fmt.Errorf("%s: mount code of %d bytes exceeds the %d-byte limit (Limits.MaxBytes); split it into smaller mounts that share services through ctx.provide and inject", id, len(code), sb.limits.MaxBytes)
	}
	if ne := jslex.CheckNesting(code, sb.limits.MaxNesting, sb.limits.MaxNestingWork); ne != nil {
		return nestingSyntaxError(id, code, ne)
	}
	return nil
}

// Run evaluates a compiled program in a fresh realm: see Evaluate.
func (sb *Sandbox) Run(ctx context.Context, p *Program) (*Mount, error) {
	return sb.RunWith(ctx, p, nil)
}

// RunOptions adds to one Run what only its caller knows. Nil means none.
type RunOptions struct {
	// Globals, if set, are extra globals of the fresh realm, by name: each is a read-only,
	// non-configurable own property of the global object (an accessor without a setter),
	// installed before the body runs, whose value the builder makes on the body's first
	// read of the name, with the lock held; later reads return the same value. An object
	// value is frozen with the realm's intrinsic Object.freeze, captured before the body
	// runs, so the body can neither redirect nor patch what the global holds, and a run
	// whose body never names a global pays only for its accessor. A name the body declares
	// at its top level shadows the global, as any local does: a caller that must refuse
	// such code checks it before it runs it (see Parse).
	Globals map[string]func(r *Realm) goja.Value
	// Session is the session the mount's plugin belongs to (kit.Plugin.Session): what it
	// registers is that session's alone, and it hears no other session's events.
	Session string
	// Shares lists the service keys the mount's plugin provides to every session
	// (kit.Plugin.Shares): what the runtime author declares shared.
	Shares []string
}

// RunWith is Run with per-run options: see RunOptions.
func (sb *Sandbox) RunWith(ctx context.Context, p *Program, opts *RunOptions) (*Mount, error) {
	id, prog := p.id, p.prog
	r, err := sb.openRealm(id, opts.session())
	if err != nil {
		return nil, err
	}

	var m *Mount
	b := bound{What: "evaluation of the mount code", Name: "VMTimeout", Limit: sb.timeouts.VM, Wait: sb.timeouts.Mount, WaitName: "MountTimeout"}
	err = r.call(ctx, b, func() (goja.Value, error) {
		if opts != nil {
			if err := r.installExtraGlobals(opts.Globals); err != nil {
				return nil, err
			}
		}
		fv, err := r.rt.RunProgram(prog)
		if err != nil {
			return nil, err
		}
		// The body has not run yet: guard the constructors it can reach first.
		r.compilers.guard(p.reach, fv)
		fn, ok := goja.AssertFunction(fv)
		if !ok {
			return nil, errors.New("internal error: the wrapped mount code is not a function")
		}
		return fn(goja.Undefined())
	}, func(v goja.Value) (err error) {
		m, err = r.plugin(v)
		return err
	})
	if err == nil && m == nil {
		err = fmt.Errorf("%s: %w: the body's promise did not settle", id, ErrNotPlugin)
	}
	if err != nil {
		r.shut()
		return nil, err
	}
	if opts != nil {
		m.session, m.shares = opts.Session, slices.Clone(opts.Shares)
	}
	return m, nil
}

// ID returns the mount id.
func (m *Mount) ID() string { return m.realm.id }

// Name returns the plugin's name: its non-empty string name property, else "<anonymous>".
func (m *Mount) Name() string { return m.name }

// Inject returns the service keys the plugin declared (none for the function form).
func (m *Mount) Inject() []string { return append([]string(nil), m.inject...) }

// Realm returns the mount's realm.
func (m *Mount) Realm() *Realm { return m.realm }

// Plugin returns a kit.Plugin whose Apply runs the JavaScript apply with a fresh ctx façade
// (every activation gets its own, so a plugin that reloads after a dependency returns never
// sees a stale one). Apply and the promise it returns are bounded by Timeouts.Mount.
func (m *Mount) Plugin() *kit.Plugin {
	return &kit.Plugin{Name: m.name, Inject: m.Inject(), Session: m.session, Shares: slices.Clone(m.shares), Apply: m.applyKit}
}

func (m *Mount) applyKit(c *kit.Context) error {
	r := m.realm
	r.kctx.Store(c)
	b := bound{What: "apply", Name: "MountTimeout", Limit: r.engine.timeouts.Mount, WaitNested: true}
	return r.call(context.Background(), b, func() (goja.Value, error) {
		fac, err := newCtxFacade(r, c, m.inject)
		if err != nil {
			return nil, err
		}
		return m.apply(m.this, fac.obj)
	}, nil)
}

// Start runs the mount as a child plugin of parent and waits for it to settle: active, or
// pending while an injected service is missing. A failure (apply threw or rejected, a
// registration failed, a time bound) disposes the fiber and closes the mount, so nothing is
// left behind, and returns the error.
func (m *Mount) Start(ctx context.Context, parent *kit.Context) (*kit.Fiber, error) {
	f := parent.Plugin(m.Plugin())
	if err := f.Await(ctx); err != nil || f.State() == kit.StateFailed {
		if err == nil {
			err = f.Err()
		}
		_ = f.Dispose(ctx)
		_ = m.Close(ctx)
		return nil, err
	}
	return f, nil
}

// Close releases the realm after the mount's fiber is disposed: later deliveries fail with
// ErrClosed and running async Go calls see their context cancelled. It waits, bounded by
// ctx, for those calls to return.
func (m *Mount) Close(ctx context.Context) error {
	r := m.realm
	idle := r.shut()
	if idle == nil {
		return nil // the common case: nothing to wait for
	}
	select {
	case <-idle:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("%s: closing: waiting for async Go calls: %w", r.id, context.Cause(ctx))
	}
}

// A NotPluginError reports mount code whose body did not return a plugin.
type NotPluginError struct {
	Mount string
	Got   string // what it returned: "undefined", "number", "an object without apply", …
	msg   string
}

func (e *NotPluginError) Error() string { return e.Mount + ": " + e.msg }
func (e *NotPluginError) Unwrap() error { return ErrNotPlugin }

const pluginForms = "  ✓ return (ctx) => { … }\n" +
	"  ✓ return { name: '…', inject: ['…'], apply(ctx) { … } }"

// plugin validates the body's result. Lock held.
func (r *Realm) plugin(v goja.Value) (*Mount, error) {
	notPlugin := func(got, msg string) error { return &NotPluginError{Mount: r.id, Got: got, msg: msg} }
	if v == nil || goja.IsUndefined(v) {
		return nil, notPlugin("undefined", "mount code returned undefined — did you forget `return`? "+
			"The code is the body of an async function and must return a plugin, in one of two forms:\n"+pluginForms)
	}
	generic := "mount code must return a plugin — a function (ctx) => { … }, or an object with an apply(ctx) method — but it returned "
	o, ok := v.(*goja.Object)
	if !ok {
		return nil, notPlugin(conv.TypeName(v), generic+conv.TypeName(v)+":\n"+pluginForms)
	}
	m := &Mount{realm: r, name: "<anonymous>", this: goja.Undefined()}
	if fn, ok := goja.AssertFunction(o); ok {
		m.apply = fn
		if n := o.Get("name"); n != nil && goja.IsString(n) && n.String() != "" {
			m.name = n.String()
		}
		return m, nil
	}
	fn, ok := goja.AssertFunction(o.Get("apply"))
	if !ok {
		got := "an object whose apply is " + conv.TypeName(o.Get("apply"))
		return nil, notPlugin(got, generic+got+":\n"+pluginForms)
	}
	m.apply, m.this = fn, o
	if n := o.Get("name"); n != nil && goja.IsString(n) && n.String() != "" {
		m.name = n.String()
	}
	inj := o.Get("inject")
	if inj != nil && !goja.IsUndefined(inj) && !goja.IsNull(inj) {
		io, ok := inj.(*goja.Object)
		if !ok || io.ClassName() != "Array" {
			return nil, notPlugin("a bad inject", fmt.Sprintf("plugin %q: inject must be an array of service names, such as inject: ['timer'], but it is %s", m.name, conv.TypeName(inj)))
		}
		for i, k := range toSlice(r, io, "inject") {
			if !goja.IsString(k) || k.String() == "" {
				return nil, notPlugin("a bad inject", fmt.Sprintf("plugin %q: inject[%d] must be a non-empty service name (a string), but it is %s", m.name, i, conv.TypeName(k)))
			}
			m.inject = append(m.inject, k.String())
		}
	}
	return m, nil
}

// compileMount parses code as the body of an async function. Parsing on its own (not by
// splicing text into a bigger script) means the body cannot close the wrapper early: the
// parsed program must be exactly one function whose body ends where the code ends.
func compileMount(id, code string) (*goja.Program, error) {
	prg, err := parseMount(id, code)
	if err != nil {
		return nil, err
	}
	return compileParsed(id, code, prg)
}

// compileParsed compiles the parsed mount code prg, reporting a compile error (a
// redeclaration, strict-mode syntax) as a *SyntaxError for code.
func compileParsed(id, code string, prg *ast.Program) (*goja.Program, error) {
	prog, err := goja.CompileAST(prg, false)
	if err != nil {
		var ce *goja.CompilerSyntaxError
		if errors.As(err, &ce) && ce.File != nil {
			p := ce.File.Position(ce.Offset)
			return nil, newSyntaxError(id, code, p.Line, p.Column, ce.Message)
		}
		return nil, newSyntaxError(id, code, 0, 0, err.Error())
	}
	return prog, nil
}

// parseMount parses code as the body of an async function (see compileMount) and checks
// that the body ends where the code ends.
func parseMount(id, code string) (*ast.Program, error) {
	name := mountFile(id)
	src := wrapPrefix + code + wrapSuffix
	// Source maps stay off: a //# sourceMappingURL= line would make the parser read any
	// file the host can (a FIFO blocks it, /dev/zero exhausts memory).
	prg, err := parser.ParseFile(nil, name, src, 0, parser.WithDisableSourceMaps)
	if err != nil {
		var list parser.ErrorList
		if errors.As(err, &list) && len(list) > 0 {
			p := list[0].Position
			return nil, newSyntaxError(id, code, p.Line, p.Column, strings.TrimPrefix(list[0].Message, "SyntaxError: "))
		}
		return nil, newSyntaxError(id, code, 0, 0, err.Error())
	}
	if fl := wrapper(prg); fl == nil || len(prg.Body) != 1 || int(fl.Body.RightBrace) != len(src)-1 {
		line, col := 0, 0
		if fl != nil {
			pos := prg.File.Position(int(fl.Body.RightBrace) - 1)
			line, col = pos.Line, pos.Column
		}
		se := newSyntaxError(id, code, line, col, "this closes the async function body early")
		se.Hint = "The code is the BODY of an async function: write statements and `return` your plugin. " +
			"Do not wrap it in `(async () => { … })()` and do not close braces you did not open."
		return nil, se
	}
	return prg, nil
}

// mountFile is the file name of mount id's code in stack traces.
func mountFile(id string) string { return "cordis-mount-" + id + ".js" }

// wrapper returns the function literal the program starts with (the wrapper, if the code
// did not close it early), or nil.
func wrapper(prg *ast.Program) *ast.FunctionLiteral {
	if len(prg.Body) == 0 {
		return nil
	}
	es, ok := prg.Body[0].(*ast.ExpressionStatement)
	if !ok {
		return nil
	}
	fl, _ := es.Expression.(*ast.FunctionLiteral)
	return fl
}

// guardParser configures the parsers of a realm: eval and Function parse without source
// maps, as mount code does (a //# sourceMappingURL=file:///dev/zero line would exhaust
// memory), and measure their text first (compilerGuard), as JSON.parse does (guardJSON).
// Function is guarded now; eval and JSON when the realm's global object first hands them
// out (see installGlobals, which runs after).
func guardParser(rt *goja.Runtime, lim Limits) *compilerGuard {
	rt.SetParserOptions(parser.WithDisableSourceMaps)
	return guardCompilers(rt, lim)
}
