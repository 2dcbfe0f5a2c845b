package dynamic

import "encoding/json"

// The input and output types of cordis_inspect_list and cordis_inspect_query
// (docs/dynamic-plugins.md, "cordis_inspect_list" and "cordis_inspect_query"). The runner
// answers them (Runner.InspectList, Runner.InspectQuery); their names all start with
// Inspect so that they cannot clash with other types in a merged catalog.

// InspectPlatform says where an inspect provider runs.
type InspectPlatform string

// The inspect platforms.
const (
	// InspectHost providers run in the host process: the catalogued services, events,
	// builtins and tools a host half can use.
	InspectHost InspectPlatform = "host"
	// InspectClient providers run in the connected panel pages: what a client half can use
	// there (slots, theme, …). They exist only while a page that publishes them is open.
	InspectClient InspectPlatform = "client"
)

// InspectListInput is the input of cordis_inspect_list; it takes no arguments.
type InspectListInput struct{}

// InspectListOutput is the result of cordis_inspect_list.
type InspectListOutput struct {
	// Every provider: the host providers first, in registration order, then the client
	// providers the connected pages publish, in the order they published them.
	Providers []InspectProvider `json:"providers"`
}

// InspectProvider describes one inspect provider and the methods it answers.
type InspectProvider struct {
	// Where the provider runs; pass it as platform to cordis_inspect_query.
	Platform InspectPlatform `json:"platform"`
	// The provider id, such as "Service"; pass it as provider to cordis_inspect_query.
	ID string `json:"id"`
	// What the provider reports.
	Description string `json:"description"`
	// The methods the provider answers, in order.
	Methods []InspectMethod `json:"methods"`
}

// InspectMethod is one method of an inspect provider.
type InspectMethod struct {
	// The method name; pass it as method to cordis_inspect_query.
	Name string `json:"name"`
	// What the method returns and when to call it.
	Description string `json:"description"`
	// The JSON Schema the input of cordis_inspect_query must satisfy (an absent input is
	// checked as {}).
	InputSchema json.RawMessage `json:"inputSchema"`
	// The JSON Schema of the data the method returns.
	OutputSchema json.RawMessage `json:"outputSchema"`
}

// InspectQueryInput is the input of cordis_inspect_query.
type InspectQueryInput struct {
	// Where the provider runs: "host" or "client", as cordis_inspect_list lists it.
	Platform InspectPlatform `json:"platform"`
	// A provider id from cordis_inspect_list, such as "Service"; never guess one.
	Provider string `json:"provider"`
	// A method name from that provider's methods, such as "listService".
	Method string `json:"method"`
	// The method's input, which must satisfy its inputSchema; omit it for {}.
	Input json.RawMessage `json:"input,omitempty"`
}

// InspectQueryOutput is the result of cordis_inspect_query.
type InspectQueryOutput struct {
	// The platform that answered.
	Platform InspectPlatform `json:"platform"`
	// The provider that answered.
	Provider string `json:"provider"`
	// The method that answered.
	Method string `json:"method"`
	// What the method returned, valid against its outputSchema.
	Data json.RawMessage `json:"data"`
}
