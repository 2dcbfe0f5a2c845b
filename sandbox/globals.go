package sandbox

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"github.com/cordiskit/cordiskit/sandbox/internal/conv"
	"log/slog"
	"math"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/dop251/goja"
)

// Trap messages: each teaches the cordis alternative to a Node API.
const (
	requireHint = "Node modules do not exist here. Use services on ctx instead: declare them in inject " +
		"(inject: ['fs'] for files, ['web'] for HTTP, ['bash'] for processes) and call ctx.fs / ctx.web / ctx.bash; " +
		"cordis_inspect what:\"api\" lists what this runtime provides."
	timerHint = "Node timers do not exist here. Declare inject: ['timer'] and call ctx.setTimeout / ctx.setInterval / ctx.sleep; " +
		"those timers belong to your plugin and are cleared when it is unmounted."
	fetchHint = "Network access goes through the web service: declare inject: ['web'] and call ctx.web " +
		"(cordis_inspect what:\"api\" shows its methods)."
)

var traps = [...]struct{ name, hint string }{
	{"require", requireHint},
	{"setTimeout", timerHint},
	{"setInterval", timerHint},
	{"setImmediate", timerHint},
	{"clearTimeout", timerHint},
	{"clearInterval", timerHint},
	{"fetch", fetchHint},
}

// trapMessage is the error a trap throws.
func trapMessage(name, hint string) string {
	return name + " is not available in the mount sandbox — " + hint
}

// sandboxGlobalNames are the globals the sandbox adds, in the order for-in lists them.
// TextEncoder and TextDecoder are not enumerated (like the web's constructors).
var sandboxGlobalNames = [...]string{
	"console", "btoa", "atob",
	"require", "setTimeout", "setInterval", "setImmediate", "clearTimeout", "clearInterval", "fetch",
}

// isSandboxGlobal reports whether name is one of the globals the sandbox adds.
func isSandboxGlobal(name string) bool {
	switch name {
	case "console", "btoa", "atob", "TextEncoder", "TextDecoder":
		return true
	}
	return trapHint(name) != ""
}

// trapHint returns the hint of the trap called name, or "".
func trapHint(name string) string {
	for _, t := range traps {
		if t.name == name {
			return t.hint
		}
	}
	return ""
}

// installGlobals makes the sandbox globals available: console, btoa/atob,
// TextEncoder/TextDecoder and the traps. process and Buffer are simply not defined. Called
// after guardParser and before any mount code.
//
// Nothing is built here: most mounts never touch these globals, and each native function
// costs a realm about half a microsecond. Instead the global object's prototype is a
// dynamic object (sandboxGlobals, one per realm, embedded in the Realm) standing between
// it and Object.prototype; it builds each global on first access and keeps it, so
// `require === require` and `typeof require === 'function'` hold as before. Reads resolve
// through it (in strict code too); a sloppy assignment (`TextEncoder = 1`) or
// globalThis.console = … creates an own property of the global object that shadows it.
// (goja checks only own properties for a strict-mode assignment to an undeclared global,
// so there `console = …` is a ReferenceError; globalThis.console = … works.)
//
// The engine's own globals (Object, JSON, eval, …) are served the same way: the realm's
// global object is a fresh object, and the runtime's own — goja's, whose properties it
// builds on first read — stays out of JavaScript's reach, read only by sandboxGlobals
// (see builtin). So eval and JSON, whose guards cost a realm more than the rest of its
// globals (JSON alone is five native functions), are built and guarded on the first read
// of their name, not with every realm; Function, reachable from every function as its
// constructor, is guarded by guardParser before. Each built-in becomes an own property of
// the global object, as it was, on its first read. undefined, NaN and Infinity, which
// cannot be assigned, are own properties from the start.
//
// The intrinsic Promise.prototype.then is captured now, before mount code can replace it;
// the floor pays for creating Promise too, when its async body makes the first promise.
func (r *Realm) installGlobals() {
	rt := r.rt
	builtins := rt.GlobalObject()
	then, _ := goja.AssertFunction(builtins.Get("Promise").(*goja.Object).Get("prototype").(*goja.Object).Get("then"))
	r.promiseThen = then
	r.globals.r, r.globals.builtins = r, builtins
	global := rt.CreateObject(rt.NewDynamicObject(&r.globals))
	_ = global.DefineDataProperty("undefined", goja.Undefined(), goja.FLAG_FALSE, goja.FLAG_FALSE, goja.FLAG_FALSE)
	_ = global.DefineDataProperty("NaN", rt.ToValue(math.NaN()), goja.FLAG_FALSE, goja.FLAG_FALSE, goja.FLAG_FALSE)
	_ = global.DefineDataProperty("Infinity", rt.ToValue(math.Inf(1)), goja.FLAG_FALSE, goja.FLAG_FALSE, goja.FLAG_FALSE)
	rt.SetGlobalObject(global)
}

// builtin returns the engine's own global name (Object, JSON, …) as the runtime made it,
// whatever mount code did to the realm's global object since. Lock held.
func (r *Realm) builtin(name string) goja.Value { return r.globals.builtins.Get(name) }

// installExtraGlobals installs a run's extra globals (RunOptions.Globals): each a
// read-only, non-configurable accessor of the global object whose getter builds the value
// on first read (see [Realm.extraGlobal]). The intrinsic Object.freeze is captured now,
// before any mount code can replace it or its Object; nothing else is built. Lock held.
func (r *Realm) installExtraGlobals(globals map[string]func(*Realm) goja.Value) error {
	if len(globals) == 0 {
		return nil
	}
	rt := r.rt
	freeze, ok := goja.AssertFunction(r.builtin("Object").(*goja.Object).Get("freeze"))
	if !ok {
		return errors.New("sandbox: internal error: the fresh realm has no Object.freeze to freeze the extra globals with")
	}
	g := rt.GlobalObject()
	for name, build := range globals {
		if err := g.DefineAccessorProperty(name, r.extraGlobal(name, build, freeze), nil, goja.FLAG_FALSE, goja.FLAG_FALSE); err != nil {
			return fmt.Errorf("sandbox: installing the global %s: %w", name, err)
		}
	}
	return nil
}

// extraGlobal returns the getter of the extra global name: on its first call it builds the
// value and, if it is an object, freezes it with freeze (the intrinsic Object.freeze); every
// call returns that value. Lock held (JavaScript is running).
func (r *Realm) extraGlobal(name string, build func(*Realm) goja.Value, freeze goja.Callable) goja.Value {
	var v goja.Value
	return r.rt.ToValue(func(goja.FunctionCall) goja.Value {
		if v != nil {
			return v
		}
		built := build(r)
		if built == nil {
			built = goja.Undefined()
		}
		if o, ok := built.(*goja.Object); ok {
			if _, err := freeze(goja.Undefined(), o); err != nil {
				r.throwf("sandbox: freezing the global %s: %v", name, err)
			}
		}
		v = built
		return v
	})
}

// sandboxGlobals is the global object's prototype in a realm: the sandbox globals, built
// on first access, and the engine's own globals, each handed to the global object on its
// first read. All methods run with the lock held (JavaScript is running).
type sandboxGlobals struct {
	r *Realm
	// vals holds the globals built so far and whatever was assigned to the prototype
	// itself; a nil value marks a deleted name.
	vals map[string]goja.Value
	// builtins is the runtime's own global object, which the realm's replaced: the
	// engine's globals, built on first read. Never reachable from JavaScript.
	builtins *goja.Object
	// handed marks the engine's globals (by builtinGlobals index) already made own
	// properties of the global object: from then on they are its alone, so a delete
	// removes them.
	handed [2]uint64

	logged   int  // console bytes written so far (Limits.MaxLogBytes)
	logSpent bool // the console budget is spent and the note logged
}

// Get implements goja.DynamicObject. A nil result resolves through Object.prototype.
func (g *sandboxGlobals) Get(key string) goja.Value {
	if v, ok := g.vals[key]; ok {
		return v
	}
	if !isSandboxGlobal(key) {
		return g.builtin(key)
	}
	v := g.r.buildGlobal(key)
	if g.vals == nil {
		g.vals = make(map[string]goja.Value, 4)
	}
	g.vals[key] = v
	return v
}

// builtin hands the engine's global key to the global object on its first read: eval and
// JSON guarded (see compilerGuard), Function as guardParser guarded it, Reflect once
// describe has its getOwnPropertyDescriptor (see ownDescriptor), the others as the runtime
// built them. It becomes an own property, writable, configurable and not
// enumerable, as the engine's globals are. Nil when key is none of them, or was handed
// before (and is now the global object's to keep or delete).
func (g *sandboxGlobals) builtin(key string) goja.Value {
	i, ok := builtinGlobals()[key]
	if !ok || g.handed[i/64]&(1<<(i%64)) != 0 {
		return nil
	}
	var v goja.Value
	switch c := g.r.compilers; key {
	case "eval":
		v = c.evalGuard(g.builtins.Get(key))
	case "JSON":
		v = c.jsonGuard(g.builtins.Get(key))
	case "Function":
		v = c.function
	case "globalThis":
		v = g.r.rt.GlobalObject()
	case "Reflect":
		g.r.ownDescriptor() // describe's, taken before mount code can replace it
		v = g.builtins.Get(key)
	default:
		v = g.builtins.Get(key)
	}
	if v == nil {
		return nil // never one of the engine's compilers unguarded
	}
	if g.r.rt.GlobalObject().DefineDataProperty(key, v, goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE) == nil {
		g.handed[i/64] |= 1 << (i % 64)
	} // else the global object is not extensible: go on serving it from here
	return v
}

// builtinGlobals indexes the names of goja's own globals but undefined, NaN and Infinity
// (own properties of every realm's global object from the start).
var builtinGlobals = sync.OnceValue(func() map[string]int {
	idx := map[string]int{}
	for _, name := range goja.New().GlobalObject().GetOwnPropertyNames() {
		switch name {
		case "undefined", "NaN", "Infinity":
			continue
		}
		idx[name] = len(idx)
	}
	if len(idx) > 128 {
		panic(fmt.Sprintf("sandbox: goja has %d globals; sandboxGlobals.handed holds 128", len(idx)))
	}
	return idx
})

// Has implements goja.DynamicObject.
func (g *sandboxGlobals) Has(key string) bool {
	if v, ok := g.vals[key]; ok {
		return v != nil
	}
	if isSandboxGlobal(key) {
		return true
	}
	i, ok := builtinGlobals()[key]
	return ok && g.handed[i/64]&(1<<(i%64)) == 0
}

// Set implements goja.DynamicObject: only a write to the prototype itself lands here (an
// assignment to a global creates an own property of the global object instead).
func (g *sandboxGlobals) Set(key string, v goja.Value) bool {
	if g.vals == nil {
		g.vals = make(map[string]goja.Value, 4)
	}
	g.vals[key] = v
	return true
}

// Delete implements goja.DynamicObject.
func (g *sandboxGlobals) Delete(key string) bool {
	if isSandboxGlobal(key) {
		g.Set(key, nil)
	} else {
		delete(g.vals, key)
	}
	return true
}

// Keys implements goja.DynamicObject: what for-in lists after the global object's own
// properties. The engine's globals are not enumerable.
func (g *sandboxGlobals) Keys() []string {
	keys := make([]string, 0, len(sandboxGlobalNames)+len(g.vals))
	for _, k := range sandboxGlobalNames {
		if g.Has(k) {
			keys = append(keys, k)
		}
	}
	for k, v := range g.vals {
		if v != nil && !isSandboxGlobal(k) {
			keys = append(keys, k)
		}
	}
	return keys
}

// buildGlobal builds the sandbox global name on its first access. Lock held.
func (r *Realm) buildGlobal(name string) goja.Value {
	rt := r.rt
	switch name {
	case "console":
		return r.console()
	case "btoa":
		return rt.ToValue(func(call goja.FunctionCall) goja.Value {
			s := toString(r, call.Argument(0), "btoa", "data")
			return rt.ToValue(base64.StdEncoding.EncodeToString([]byte(s)))
		})
	case "atob":
		return rt.ToValue(func(call goja.FunctionCall) goja.Value {
			s := toString(r, call.Argument(0), "atob", "data")
			b, err := decodeBase64(s)
			if err != nil {
				r.throwf("atob: the argument is not valid base64: %v", err)
			}
			return rt.ToValue(strings.ToValidUTF8(string(b), "\uFFFD"))
		})
	case "TextEncoder":
		return r.textEncoder()
	case "TextDecoder":
		return r.textDecoder()
	}
	msg := trapMessage(name, trapHint(name))
	return rt.ToValue(func(goja.FunctionCall) goja.Value {
		panic(rt.NewTypeError(msg))
	})
}

// console builds the console object: each method logs to the realm's logger (tagged with
// the mount id) at its level.
func (r *Realm) console() goja.Value {
	console := r.rt.NewObject()
	for _, m := range [...]struct {
		name  string
		level slog.Level
	}{{"log", slog.LevelInfo}, {"info", slog.LevelInfo}, {"warn", slog.LevelWarn}, {"error", slog.LevelError}, {"debug", slog.LevelDebug}} {
		_ = console.Set(m.name, func(call goja.FunctionCall) goja.Value {
			r.consoleLog(m.level, m.name, call.Arguments)
			return goja.Undefined()
		})
	}
	return console
}

// consoleLog logs one console line within the mount's budgets: a line is cut at
// Limits.MaxLogLine, and once the mount has written Limits.MaxLogBytes in all, one
// "console output truncated" line is logged and later output is dropped without being
// rendered. Console output otherwise has no cost a mount pays: a loop of console.log writes
// a gigabyte in seconds. Lock held.
func (r *Realm) consoleLog(level slog.Level, method string, args []goja.Value) {
	g := &r.globals
	if g.logSpent {
		return
	}
	lim := &r.engine.limits
	line := r.consoleText(args, lim.MaxLogLine)
	if g.logged+len(line) > lim.MaxLogBytes {
		g.logSpent = true
		r.logger.Warn(fmt.Sprintf("sandbox: console output truncated: the mount wrote more than %d bytes (Limits.MaxLogBytes); "+
			"its later console output is dropped", lim.MaxLogBytes), "console", method)
		return
	}
	g.logged += len(line)
	r.logger.Log(context.Background(), level, line, "console", method)
}

// decodeBase64 accepts standard base64 with or without padding, ignoring ASCII whitespace
// (as the web's forgiving-base64 decode does).
func decodeBase64(s string) ([]byte, error) {
	s = strings.Map(func(c rune) rune {
		switch c {
		case ' ', '\t', '\n', '\f', '\r':
			return -1
		}
		return c
	}, s)
	return base64.RawStdEncoding.DecodeString(strings.TrimRight(s, "="))
}

// consoleText joins console arguments as node does: strings as they are, other values
// rendered compactly (objects as JSON when they are JSON data). A line longer than max
// bytes is cut and marked; a long string argument is cut before it is copied. Lock held.
func (r *Realm) consoleText(args []goja.Value, max int) string {
	var b strings.Builder
	for i, a := range args {
		if i > 0 {
			b.WriteByte(' ')
		}
		if s, ok := a.(goja.String); ok && s.Length() > max-b.Len() {
			// A UTF-16 unit is at least one byte of UTF-8: this keeps more than max bytes, so
			// the line is still marked as cut, without copying the whole string.
			a = s.Substring(0, max-b.Len()+1)
		}
		b.WriteString(r.inspect(a))
		if b.Len() > max {
			return truncate(b.String(), max) + fmt.Sprintf(" [console line cut at %d bytes (Limits.MaxLogLine)]", max)
		}
	}
	return b.String()
}

// inspect renders one value for console output and error messages. Lock held.
func (r *Realm) inspect(v goja.Value) string {
	if goja.IsString(v) {
		return v.String()
	}
	o, ok := v.(*goja.Object)
	if !ok {
		return typeNameOrString(v)
	}
	if o.ClassName() == "Error" {
		msg, _ := r.describe(o)
		return msg
	}
	if _, fn := goja.AssertFunction(o); fn {
		return "[function]"
	}
	if js, err := r.toJSON(o, ""); err == nil {
		return truncate(string(js), 4<<10)
	}
	return "[" + conv.TypeName(o) + "]"
}

func typeNameOrString(v goja.Value) string {
	if v == nil {
		return "undefined"
	}
	return v.String()
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
