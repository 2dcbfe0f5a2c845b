package catalog

// A ModeSpec is everything the generator, the docs and the tools know of one dispatch
// mode: one row of [Modes]. Adding a mode is a row here, its declaration type and
// constructor in package kit, and its adapter in package sandbox/bind; the scanner, the
// emitters and the docs read the row (TestModesMatchTheKit in package catalog/scan checks
// the row against the kit and the binding).
type ModeSpec struct {
	Mode Mode
	// Const is the name of Mode's constant, in this package and in package kit: "ModeSerial".
	Const string
	// KitType is the kit's declaration type (*kit.SerialEvent[P, R]) and Constructor the
	// kit function that makes one (kit.NewSerial).
	KitType, Constructor string
	// Adapter is the sandbox/bind function that subscribes a JavaScript listener to an
	// event of this mode: bind.OnSerial.
	Adapter string
	// Result says the mode reads a result R from its listeners (the declaration's second
	// type argument), converted from JavaScript by the adapter's From[R].
	Result bool
	// Next says each listener gets a trailing next() that runs the rest of the chain and
	// resolves to its result, converted to JavaScript by the adapter's Result[R].
	Next bool
	// Summary says what the mode does, in the docs' legend.
	Summary string
	// JSReturn is what a JavaScript listener returns, in the catalog's TypeScript-like
	// signatures, given r, the result type (a serial or bail listener's r already
	// includes what it returns to pass).
	JSReturn func(r string) string
	// ListenerNote is what a JavaScript listener must know beyond its signature, said with
	// every list of events; "" when there is nothing.
	ListenerNote string
}

// Modes are the dispatch modes, in the order of the kit's Mode constants.
var Modes = []ModeSpec{
	{
		Mode: ModeEmit, Const: "ModeEmit", KitType: "Event", Constructor: "NewEvent", Adapter: "OnEmit",
		Summary:  "fire and forget: the emitter waits for no listener's promise",
		JSReturn: func(string) string { return "void" },
	},
	{
		Mode: ModeParallel, Const: "ModeParallel", KitType: "ParallelEvent", Constructor: "NewParallel", Adapter: "OnParallel",
		Summary:  "awaited fan-out; every listener runs",
		JSReturn: func(string) string { return "Promise<void> | void" },
	},
	{
		Mode: ModeSerial, Const: "ModeSerial", KitType: "SerialEvent", Constructor: "NewSerial", Adapter: "OnSerial",
		Result: true,
		Summary: "awaited in registration order until a listener returns a bail value — anything other than " +
			"undefined, null, false or the zero value of the result type, such as '' or 0",
		JSReturn: func(r string) string { return "Promise<" + r + "> | " + r },
	},
	{
		Mode: ModeBail, Const: "ModeBail", KitType: "BailEvent", Constructor: "NewBail", Adapter: "OnBail",
		Result:   true,
		Summary:  "synchronous; the first bail value wins, by the same rule",
		JSReturn: func(r string) string { return r },
	},
	{
		Mode: ModeWaterfall, Const: "ModeWaterfall", KitType: "WaterfallEvent", Constructor: "NewWaterfall", Adapter: "OnWaterfall",
		Result: true, Next: true,
		Summary:      "each listener gets `next()` and may transform the result, or veto by returning without calling it",
		JSReturn:     func(r string) string { return "Promise<" + r + ">" },
		ListenerNote: "waterfall listeners receive a trailing next() and MUST call it to delegate — returning without next() vetoes the chain.",
	},
}

// Spec returns m's row of [Modes]; ok is false for a mode that has none.
func (m Mode) Spec() (spec ModeSpec, ok bool) {
	for _, s := range Modes {
		if s.Mode == m {
			return s, true
		}
	}
	return ModeSpec{}, false
}

// ListenerNotes are the ListenerNote of every mode that has one, in the order of [Modes].
func ListenerNotes() []string {
	var notes []string
	for _, s := range Modes {
		if s.ListenerNote != "" {
			notes = append(notes, s.ListenerNote)
		}
	}
	return notes
}
