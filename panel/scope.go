package panel

import (
	"context"
	"crypto/subtle"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/cordiskit/cordiskit/runner"
	"github.com/cordiskit/cordiskit/runner/inspect"
	"github.com/cordiskit/cordiskit/runner/page"
)

// Sessions and people (package doc): a request's token grants a scope, every session
// (the operator's Options.Token) or one (a token Options.Sessions maps to a session).
// What a session's page sends or receives is bounded here: its streams carry only its
// events (hub), its verbs speak only for it (rpc.go), and a verb that names another
// session's Plugin, request, query or page gets the answer for one that does not exist.

// A scope is what one request may see and answer. The zero scope sees and owns nothing:
// a request that did not pass admit gets nothing by mistake.
type scope struct {
	every   bool   // the operator's: every session
	session string // else the one session it grants
}

// operator is the scope of the operator's token.
var operator = scope{every: true}

// all reports whether the scope is the operator's.
func (sc scope) all() bool { return sc.every }

// sees reports whether the scope may see what belongs to session; what belongs to no
// known session ("") only the operator sees.
func (sc scope) sees(session string) bool {
	return sc.every || session != "" && session == sc.session
}

type scopeKey struct{}

// scopeOf is the scope admit gave req.
func scopeOf(req *http.Request) scope {
	sc, _ := req.Context().Value(scopeKey{}).(scope)
	return sc
}

func withScope(req *http.Request, sc scope) *http.Request {
	return req.WithContext(context.WithValue(req.Context(), scopeKey{}, sc))
}

// scopeFor is what token grants: the operator's token every session, a session token
// (Options.Sessions) its session; false for anything else.
func (h *Handler) scopeFor(token string) (scope, bool) {
	if token == "" {
		return scope{}, false
	}
	if subtle.ConstantTimeCompare([]byte(token), []byte(h.opts.Token)) == 1 {
		return operator, true
	}
	if h.opts.Sessions != nil {
		// A session token that named no session would read as the operator's: refused.
		if s, ok := h.opts.Sessions(token); ok && s != "" {
			return scope{session: s}, true
		}
	}
	return scope{}, false
}

// SessionURL returns the address a person holding a session token opens: origin joined
// with the handler's base and token (one that Options.Sessions maps to a session). Like
// URL, the first load sets the cookie and drops the token from the address bar.
func (h *Handler) SessionURL(origin, token string) string {
	return strings.TrimRight(origin, "/") + h.opts.Base + "?token=" + url.QueryEscape(token)
}

// owners is what the hub learnt of who owns what, from the runner's events: the session
// of each Plugin, pending run request and pending inspect query, and the scope of each
// connected page (by the id ConnectPage gave it). Guarded by hub.mu.
type owners struct {
	plugins  map[string]string // Plugin id → session, while it is defined
	requests map[string]string // run request id → session, while it is pending
	queries  map[string]string // inspect query id → session, while it is pending
	pages    map[string]string // page id → the session of its stream ("" for the operator's)
}

func newOwners() owners {
	return owners{plugins: map[string]string{}, requests: map[string]string{}, queries: map[string]string{}, pages: map[string]string{}}
}

// own changes the owners under the hub's lock.
func (hb *hub) own(f func(*owners)) {
	hb.mu.Lock()
	defer hb.mu.Unlock()
	f(&hb.owners)
}

// owner reads one owner under the hub's lock: "" and false when it is not known.
func (hb *hub) owner(of func(*owners) map[string]string, id string) (string, bool) {
	hb.mu.Lock()
	defer hb.mu.Unlock()
	s, ok := of(&hb.owners)[id]
	return s, ok
}

func pluginsOf(o *owners) map[string]string  { return o.plugins }
func requestsOf(o *owners) map[string]string { return o.requests }
func queriesOf(o *owners) map[string]string  { return o.queries }
func pagesOf(o *owners) map[string]string    { return o.pages }

// pluginSession is the session of Plugin id; "" when it is not known.
func (hb *hub) pluginSession(id string) string {
	s, _ := hb.owner(pluginsOf, id)
	return s
}

// requestSession is the session of run request id, or of its Plugin when the request is
// not known (its cordis/request-run came before the handler listened).
func (hb *hub) requestSession(id, pluginID string) string {
	if s, ok := hb.owner(requestsOf, id); ok {
		return s
	}
	return hb.pluginSession(pluginID)
}

// seed records the owners of the Plugins defined before the handler listened.
func (hb *hub) seed(rows []runner.InventoryRow) {
	hb.own(func(o *owners) {
		for _, r := range rows {
			if _, ok := o.plugins[r.PluginID]; !ok {
				o.plugins[r.PluginID] = r.Session
			}
		}
	})
}

// mine reports whether id (a Plugin, request, query or page, as of reads) belongs to sc's
// session; the operator's scope owns everything. An unknown id is nobody's.
func (h *Handler) mine(sc scope, of func(*owners) map[string]string, id string) bool {
	if sc.all() {
		return true
	}
	s, ok := h.hub.owner(of, id)
	return ok && s != "" && s == sc.session
}

// The answers the runner gives for what does not exist, given by the handler for what
// exists in another session, word for word (the tests compare them with the runner's).
func requestNotPending(id string) page.Accepted {
	return page.Accepted{Message: fmt.Sprintf("request %s is not pending: it was answered, cancelled or expired", id)}
}

func queryNotPending(id string) page.Accepted {
	return page.Accepted{Message: fmt.Sprintf("inspect query %q is not pending: it was answered, cancelled or expired", id)}
}

func pluginNotRunning(id string) error {
	return &page.InvokeError{Code: page.InvokePluginNotRunning, Message: fmt.Sprintf("%s is not running: it has no active host half (it was stopped or removed)", id)}
}

// otherSession is the failure a session's page gives a client inspect query of another
// session that the runner asked it (the runner asks every page that publishes the method).
const otherSession = "this Cordis panel page is open for another session and does not answer this session's queries; ask the user to open the panel with this session's address"

// declineForOthers answers q, as each connected page of another session, with a failure:
// those pages never see q, so without it a query of a session with no page of its own
// would wait for them until it expires.
func (h *Handler) declineForOthers(q inspect.QueryEvent) {
	var pages []string
	h.hub.own(func(o *owners) {
		for id, s := range o.pages {
			if s != "" && s != q.Session {
				pages = append(pages, id)
			}
		}
	})
	for _, id := range pages {
		// Refused when the runner did not ask that page: nothing to do then.
		h.r.Inspect().ResolveQuery(inspect.ResolveQueryArgs{Page: id, Session: q.Session, RequestID: q.RequestID,
			Resolution: inspect.Resolution{Error: &inspect.Failure{Code: "provider-missing", Message: otherSession}}})
	}
}
