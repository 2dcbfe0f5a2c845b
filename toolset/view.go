package toolset

import (
	"context"

	"github.com/cordiskit/cordiskit/kit"
)

// A view is what one caller of the tools may see of the runtime (package doc, "Sessions"):
// a caller with a session sees the runtime's own plugins, services, tools and mounts and
// its session's, never another session's; a caller without one (an agent loop that
// serves one person) sees everything.
type view struct {
	session string
	scoped  bool
}

func viewOf(ctx context.Context) view {
	s, ok := kit.SessionFrom(ctx)
	return view{session: s, scoped: ok}
}

// sees reports whether the view shows something that belongs to session ("" for the
// runtime's own).
func (v view) sees(session string) bool {
	return !v.scoped || session == "" || session == v.session
}

// tools narrows the registry to the view.
func (v view) tools(t *kit.Tools) *kit.Tools {
	if !v.scoped {
		return t
	}
	return t.Session(v.session)
}
