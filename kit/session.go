package kit

import "context"

// sessionKey is the context key of the calling session. An unexported struct type, so no
// other package can read or forge the value except through WithSession and SessionFrom.
type sessionKey struct{}

// WithSession returns a copy of ctx that carries session id: the identity of the caller
// (one agent session, one MCP client session) on whose behalf a tool call or a runner verb
// runs. Code that keeps per-session state (the dynamic-plugin runner's ownership of its
// Plugins) reads it back with SessionFrom. An empty id carries no session: SessionFrom then
// reports none, so a blank identity can never be mistaken for a real one.
func WithSession(ctx context.Context, id string) context.Context {
	if id == "" {
		return context.WithValue(ctx, sessionKey{}, noSession{})
	}
	return context.WithValue(ctx, sessionKey{}, id)
}

// noSession marks a ctx whose session was explicitly cleared (WithSession with "").
type noSession struct{}

// SessionFrom returns the session id ctx carries and whether it carries one. The innermost
// WithSession wins, so an adapter can narrow a shared ctx to one client's session.
func SessionFrom(ctx context.Context) (string, bool) {
	if ctx == nil {
		return "", false
	}
	id, ok := ctx.Value(sessionKey{}).(string)
	return id, ok
}

// Session is the session an event belongs to. A payload field of this type makes its event
// session-scoped (package doc, "Sessions"): an emit reaches the runtime's own listeners and
// those of the session the field names, never another session's. gen-cordis-api marks such
// events in the catalog and the docs. A payload has at most one Session field.
type Session string
