package mcpkit

import (
	"crypto/rand"
	"fmt"
	"strings"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ephemeralPrefix begins the session ids a Server mints; a Token's Session may not.
const ephemeralPrefix = "mcp-"

var (
	sessionSeq atomic.Uint64
	// processTag makes minted ids unique across processes too: with a durable store, a
	// client of the next process must not find the Plugins of this one's "mcp-1".
	processTag = strings.ToLower(rand.Text()[:8])
)

// sessionOf returns the kit session id of a client session, fixed by the first request
// that asks (extra is that request's): the session its bearer token proves (HTTPOptions),
// else Options.Session's, else one minted per client session ("mcp-TAG-N", never reused)
// and kept while it lives. A token without a name gets a minted one, never
// Options.Session's: over HTTP only the token names a session. The SDK's handler refuses a
// later request of the client session made with another token's identity.
func (s *Server) sessionOf(ss *mcp.ServerSession, extra *mcp.RequestExtra) string {
	if ss == nil {
		return ""
	}
	id, fresh := s.fixSession(ss, extra)
	if fresh && s.opts.OnSession != nil {
		s.opts.OnSession(id)
	}
	return id
}

// fixSession is sessionOf's id of ss, and whether this call fixed it.
func (s *Server) fixSession(ss *mcp.ServerSession, extra *mcp.RequestExtra) (id string, fresh bool) {
	s.sessMu.Lock()
	defer s.sessMu.Unlock()
	id, ok := s.ids[ss]
	if !ok {
		switch name, proven := s.guard.session(extra); {
		case name != "":
			id = name
		case !proven && s.opts.Session != nil:
			id = s.opts.Session(ss)
		default:
			id = fmt.Sprintf("%s%s-%d", ephemeralPrefix, processTag, sessionSeq.Add(1))
		}
		s.ids[ss] = id
		s.watch(ss)
	}
	return id, !ok
}

// watch forgets a client session and stops its forwarder when the session ends. The
// goroutine ends with the session, which its owner ends (Server.Run, CloseSessions, or
// the caller of MCP().Connect); CloseSessions waits for it. s.sessMu held.
func (s *Server) watch(ss *mcp.ServerSession) {
	s.watches.Add(1)
	go func() {
		defer s.watches.Done()
		_ = ss.Wait()
		s.sessMu.Lock()
		f := s.forwarders[ss]
		delete(s.forwarders, ss)
		delete(s.ids, ss)
		s.sessMu.Unlock()
		if f != nil {
			f.stop()
		}
	}()
}
