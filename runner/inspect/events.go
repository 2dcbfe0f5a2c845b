package inspect

import "github.com/cordiskit/cordiskit/kit"

// Query asks the pages to answer a client inspect query (cordis_inspect_query on the
// client platform). The Registry emits it on its host's context; a page answers with
// Registry.ResolveQuery.
var Query = kit.NewEvent[QueryEvent]("cordis/inspect-query")

// QueryEvent is the payload of Query. Input is JSON ("" when absent).
type QueryEvent struct {
	RequestID string // "inspect-4"
	Session   string
	Provider  string
	Method    string
	Input     string
}

// QueryResolved reports that a client inspect query was settled (answered, failed,
// cancelled or expired); pages drop it.
var QueryResolved = kit.NewEvent[QueryResolvedEvent]("cordis/inspect-query-resolved")

// QueryResolvedEvent is the payload of QueryResolved.
type QueryResolvedEvent struct {
	RequestID string
}
