package sandbox

import (
	"context"
	"encoding/base64"
	"log/slog"
	"strings"
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

// installGlobals defines the sandbox globals: console, btoa/atob, TextEncoder/TextDecoder
// and the traps. process and Buffer are simply not defined. Called before any mount code.
func (r *Realm) installGlobals() {
	rt := r.rt
	g := rt.GlobalObject()
	then, _ := goja.AssertFunction(rt.Get("Promise").(*goja.Object).Get("prototype").(*goja.Object).Get("then"))
	r.promiseThen = then

	console := rt.NewObject()
	for _, m := range [...]struct {
		name  string
		level slog.Level
	}{{"log", slog.LevelInfo}, {"info", slog.LevelInfo}, {"warn", slog.LevelWarn}, {"error", slog.LevelError}, {"debug", slog.LevelDebug}} {
		_ = console.Set(m.name, func(call goja.FunctionCall) goja.Value {
			r.logger.Log(context.Background(), m.level, r.consoleText(call.Arguments), "console", m.name)
			return goja.Undefined()
		})
	}
	_ = g.Set("console", console)
	_ = g.Set("btoa", func(call goja.FunctionCall) goja.Value {
		s := toString(r, call.Argument(0), "btoa", "data")
		return rt.ToValue(base64.StdEncoding.EncodeToString([]byte(s)))
	})
	_ = g.Set("atob", func(call goja.FunctionCall) goja.Value {
		s := toString(r, call.Argument(0), "atob", "data")
		b, err := decodeBase64(s)
		if err != nil {
			r.throwf("atob: the argument is not valid base64: %v", err)
		}
		return rt.ToValue(strings.ToValidUTF8(string(b), "\uFFFD"))
	})
	for _, t := range traps {
		msg := trapMessage(t.name, t.hint)
		_ = g.Set(t.name, func(goja.FunctionCall) goja.Value {
			panic(rt.NewTypeError(msg))
		})
	}
	r.lazyGlobal("TextEncoder", r.textEncoder)
	r.lazyGlobal("TextDecoder", r.textDecoder)
}

// lazyGlobal defines a global whose value is built on first access (most mounts never
// touch TextEncoder, and each realm pays for what it uses). Assigning it replaces it.
func (r *Realm) lazyGlobal(name string, build func() goja.Value) {
	g := r.rt.GlobalObject()
	define := func(v goja.Value) {
		_ = g.DefineDataProperty(name, v, goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE)
	}
	get := r.rt.ToValue(func(goja.FunctionCall) goja.Value {
		v := build()
		define(v)
		return v
	})
	set := r.rt.ToValue(func(call goja.FunctionCall) goja.Value {
		define(call.Argument(0))
		return goja.Undefined()
	})
	_ = g.DefineAccessorProperty(name, get, set, goja.FLAG_TRUE, goja.FLAG_FALSE)
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
// rendered compactly (objects as JSON when they are JSON data). Lock held.
func (r *Realm) consoleText(args []goja.Value) string {
	var b strings.Builder
	for i, a := range args {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(r.inspect(a))
		if b.Len() > 64<<10 {
			return truncate(b.String(), 64<<10)
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
	return "[" + typeName(o) + "]"
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
