package mcpkit

import (
	"context"
	"crypto/rand"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A MessageSource holds messages for the models of sessions (the dynamic-plugin runner,
// runner.Runner, is one: outcomes that arrive after a tool call returned, failures at run
// time, what a person did in its panel). Subscribe calls deliver for each message for
// session, in order — first those it kept while no one was subscribed — until cancel is
// called. deliver must not block; it may be called on any goroutine.
type MessageSource interface {
	Subscribe(session string, deliver func(kind, pluginID, text string)) (cancel func())
}

// MessageLevel is the MCP log level messages from Options.Messages are sent at. A client
// receives them while its level (logging/setLevel) is this or lower: debug, info, notice.
const MessageLevel mcp.LoggingLevel = "notice"

// MessageLogger is the logger name of those notifications.
const MessageLogger = "cordis"

// maxForwardQueue bounds the messages waiting to be written to one client; past it the
// oldest are dropped and the client is told how many.
const maxForwardQueue = 256

// sendTimeout bounds the write of one message to a client.
const sendTimeout = 10 * time.Second

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
	return id
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

// setLevel follows a client's logging/setLevel: at MessageLevel or lower its messages
// are forwarded; above it (or before any setLevel) they stay with the MessageSource,
// which keeps them for the session, so nothing is sent into a client that drops it.
func (s *Server) setLevel(ss *mcp.ServerSession, extra *mcp.RequestExtra, level mcp.LoggingLevel) {
	if s.opts.Messages == nil {
		return
	}
	on := level == "debug" || level == "info" || level == MessageLevel
	session := s.sessionOf(ss, extra)
	s.sessMu.Lock()
	f := s.forwarders[ss]
	switch {
	case on && f == nil && session != "" && !s.closing:
		f = newForwarder(ss, s.logger)
		s.forwarders[ss] = f
		s.forwards.Add(1)
		go func() { defer s.forwards.Done(); f.run() }()
		s.sessMu.Unlock()
		f.subscribe(s.opts.Messages, session)
		return
	case !on && f != nil:
		delete(s.forwarders, ss)
	default:
		f = nil
	}
	s.sessMu.Unlock()
	if f != nil {
		f.stop()
	}
}

// stopForwarders ends every forwarder and waits for them (Server.Close).
func (s *Server) stopForwarders() {
	s.sessMu.Lock()
	s.closing = true
	fs := s.forwarders
	s.forwarders = map[*mcp.ServerSession]*forwarder{}
	s.sessMu.Unlock()
	for _, f := range fs {
		f.stop()
	}
	s.forwards.Wait()
}

// levelMiddleware watches logging/setLevel, after the SDK has applied it.
func (s *Server) levelMiddleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		if method == "logging/setLevel" && err == nil {
			ss, _ := req.GetSession().(*mcp.ServerSession)
			p, _ := req.GetParams().(*mcp.SetLoggingLevelParams)
			if ss != nil && p != nil {
				s.setLevel(ss, req.GetExtra(), p.Level)
			}
		}
		return res, err
	}
}

// A forwarder writes one client session's messages as log notifications, on its own
// goroutine, so a slow client never holds up the code that sent a message.
type forwarder struct {
	ss     *mcp.ServerSession
	logger interface{ Warn(string, ...any) }

	mu      sync.Mutex
	queue   []logMessage
	dropped int
	cancel  func() // the subscription; nil once stopped
	stopped bool
	wake    chan struct{}
	done    chan struct{}
}

type logMessage struct {
	Kind     string `json:"kind"`
	PluginID string `json:"pluginId,omitempty"`
	Text     string `json:"text"`
}

func newForwarder(ss *mcp.ServerSession, logger interface{ Warn(string, ...any) }) *forwarder {
	return &forwarder{ss: ss, logger: logger, wake: make(chan struct{}, 1), done: make(chan struct{})}
}

// subscribe starts the subscription; messages kept for session arrive at once.
func (f *forwarder) subscribe(src MessageSource, session string) {
	cancel := src.Subscribe(session, f.deliver)
	f.mu.Lock()
	if f.stopped {
		f.mu.Unlock()
		cancel()
		return
	}
	f.cancel = cancel
	f.mu.Unlock()
}

// deliver queues a message; it never blocks.
func (f *forwarder) deliver(kind, pluginID, text string) {
	f.mu.Lock()
	if !f.stopped {
		f.queue = append(f.queue, logMessage{Kind: kind, PluginID: pluginID, Text: text})
		if over := len(f.queue) - maxForwardQueue; over > 0 {
			f.queue = append(f.queue[:0:0], f.queue[over:]...)
			f.dropped += over
		}
	}
	f.mu.Unlock()
	select {
	case f.wake <- struct{}{}:
	default:
	}
}

// stop cancels the subscription and ends run; the messages still queued are dropped with
// the client that would have received them.
func (f *forwarder) stop() {
	f.mu.Lock()
	if f.stopped {
		f.mu.Unlock()
		return
	}
	f.stopped = true
	cancel := f.cancel
	f.cancel = nil
	f.mu.Unlock()
	if cancel != nil {
		cancel()
	}
	close(f.done)
}

// run writes queued messages until stop.
func (f *forwarder) run() {
	for {
		select {
		case <-f.done:
			return
		case <-f.wake:
		}
		for {
			f.mu.Lock()
			if f.stopped || len(f.queue) == 0 {
				f.mu.Unlock()
				break
			}
			batch, dropped := f.queue, f.dropped
			f.queue, f.dropped = nil, 0
			f.mu.Unlock()
			if dropped > 0 {
				f.send(logMessage{Kind: "inject", Text: fmt.Sprintf("%d earlier messages were dropped because this client did not read them fast enough; check your Plugins with cordis_inspect_self", dropped)})
			}
			for _, m := range batch {
				f.send(m)
			}
		}
	}
}

// send writes one message, bounded by sendTimeout so that a client that stopped reading
// cannot hold the forwarder (and Server.Close, which waits for it) for long.
func (f *forwarder) send(m logMessage) {
	ctx, cancel := context.WithTimeout(context.Background(), sendTimeout)
	defer cancel()
	// MCP logging is deprecated from protocol 2026-07-28, but it is the one message from
	// server to client that every released client receives.
	err := f.ss.Log(ctx, &mcp.LoggingMessageParams{Level: MessageLevel, Logger: MessageLogger, Data: m})
	if err != nil {
		f.logger.Warn("mcpkit: a message for the client's model was not sent", "kind", m.Kind, "plugin", m.PluginID, "err", err)
	}
}
