package mcpkit

import (
	"context"
	"slices"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// scopeMiddleware narrows tools/list to what the calling client session may call: the
// runtime's own tools and those its session's plugins registered (the kit package doc,
// "Sessions"). The SDK keeps one tool list for every client, so another session's tools
// are on it; a client never sees them listed, and a call of one is answered as for a tool
// that does not exist (the Invoker looks tools up in the session's view).
func (s *Server) scopeMiddleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		list, ok := res.(*mcp.ListToolsResult)
		if method != "tools/list" || err != nil || !ok {
			return res, err
		}
		ss, _ := req.GetSession().(*mcp.ServerSession)
		tools := s.inv.Registry()
		if ss == nil || tools == nil {
			return res, err
		}
		view := tools.Session(s.sessionOf(ss, req.GetExtra()))
		narrowed := *list
		narrowed.Tools = slices.DeleteFunc(slices.Clone(list.Tools), func(t *mcp.Tool) bool { return !view.Has(t.Name) })
		return &narrowed, nil
	}
}
