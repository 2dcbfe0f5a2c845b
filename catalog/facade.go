package catalog

import "strings"

// A Verb is one member of the ctx façade a mounted plugin's apply receives, besides the
// services it injects. Package sandbox implements them; cordis_inspect (the api section)
// and the markdown catalog (the inherited tier) list them from here.
type Verb struct {
	Forms []string // how it is called, without the "ctx." prefix, e.g. "on(event, listener)"
	Doc   string   // what it does, one sentence
}

// Names returns the ctx member names the verb's forms use ("tools.register" → "tools").
func (v Verb) Names() []string {
	var names []string
	for _, f := range v.Forms {
		name, _, _ := strings.Cut(f, "(")
		name, _, _ = strings.Cut(name, ".")
		names = append(names, name)
	}
	return names
}

// FacadeVerbs is the ctx façade, in the order it is documented.
var FacadeVerbs = []Verb{
	{[]string{"on(event, listener)", "once(event, listener)"},
		"listen to a catalogued event (once: removed after the first call); returns a disposer; a waterfall listener receives a trailing next() and must call it to delegate."},
	{[]string{"provide(key, value)"}, "offer a service that other mounts can inject."},
	{[]string{"get(key)"}, "an injected service, the same as ctx.<key>."},
	{[]string{"effect(fn)"}, "run fn when the plugin is unmounted or unloads."},
	{[]string{"tools.register({name, description, parameters, execute})"},
		"give the model a new tool, owned by the plugin; parameters (or inputSchema) is a JSON Schema, execute(args) returns JSON data; returns a function that removes the tool."},
	{[]string{"tools.<method>(…)"}, "the methods of the catalogued tools service (listed with the services, with their shapes), present without inject; they read the registry and never return a tool's execute."},
	{[]string{"setTimeout(fn, ms)", "setInterval(fn, ms)", "sleep(ms)"},
		"timers owned by the plugin; declare inject: ['timer']."},
	{[]string{"<key>"}, "a service named in inject; only its catalogued methods are reachable."},
}
