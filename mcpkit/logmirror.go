package mcpkit

import (
	"cmp"
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The log mirror: a copy of each message, as a log notification, for a client on a
// protocol before 2026-07-28 that asked for them with logging/setLevel. MCP deprecated
// logging in 2026-07-28 (SEP-2577) and removed logging/setLevel from that protocol, so
// only older clients ever turn it on. Every use of the deprecated API is in this file,
// each marked for staticcheck.

// MessageLevel is the MCP log level of the notification copies of messages. A client on
// a protocol before 2026-07-28 receives them while its level (logging/setLevel) is this
// or lower: debug, info, notice.
const MessageLevel = "notice"

// MessageLogger is the logger name of those notifications.
const MessageLogger = "cordis"

// loggingDeprecatedIn is the protocol version that deprecated logging (SEP-2577) and
// dropped logging/setLevel.
const loggingDeprecatedIn = "2026-07-28"

// maxForwardQueue bounds the messages waiting to be written to one client; past it the
// oldest are dropped and the client is told how many.
const maxForwardQueue = 256

// sendTimeout bounds the write of one message to a client.
const sendTimeout = 10 * time.Second

// withLogging adds the logging capability a client needs to see before it may ask for
// the notification copies.
func withLogging(caps *mcp.ServerCapabilities) {
	//lint:ignore SA1019 advertised so that clients before 2026-07-28 may ask for the notification copies
	caps.Logging = cmp.Or(caps.Logging, &mcp.LoggingCapabilities{})
}

// levelMiddleware watches logging/setLevel, after the SDK has applied it.
func (s *Server) levelMiddleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		if method == "logging/setLevel" && err == nil {
			ss, _ := req.GetSession().(*mcp.ServerSession)
			//lint:ignore SA1019 the request of a client before 2026-07-28 that asks for the notification copies
			p, _ := req.GetParams().(*mcp.SetLoggingLevelParams)
			if ss != nil && p != nil {
				s.setLevel(ss, req.GetExtra(), string(p.Level))
			}
		}
		return res, err
	}
}

// setLevel follows a client's logging/setLevel: at MessageLevel or lower each new
// message of its session is also sent to it as a notification; above it (or before any
// setLevel) none is. Either way the messages go into the session's tool results. A
// client session of 2026-07-28 or later (by its protocol version, as the SDK reads it)
// gets none: the SDK's client sends logging/setLevel without the per-request protocol
// version and the SDK's server takes it, but that protocol has no such method.
func (s *Server) setLevel(ss *mcp.ServerSession, extra *mcp.RequestExtra, level string) {
	if s.opts.Messages == nil {
		return
	}
	if p := ss.InitializeParams(); p == nil || p.ProtocolVersion >= loggingDeprecatedIn {
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
		f.watch(s.opts.Messages, session)
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

// A forwarder writes the notification copies of one client session's messages, on its
// own goroutine, so a slow client never holds up the code that sent a message.
type forwarder struct {
	ss     *mcp.ServerSession
	logger interface{ Warn(string, ...any) }

	mu      sync.Mutex
	queue   []logMessage
	dropped int
	cancel  func() // the watch; nil once stopped
	stopped bool
	wake    chan struct{}
	done    chan struct{}
}

// logMessage is the data of a notification copy.
type logMessage struct {
	Kind     string `json:"kind"`
	PluginID string `json:"pluginId,omitempty"`
	Text     string `json:"text"`
}

func newForwarder(ss *mcp.ServerSession, logger interface{ Warn(string, ...any) }) *forwarder {
	return &forwarder{ss: ss, logger: logger, wake: make(chan struct{}, 1), done: make(chan struct{})}
}

// watch starts following session's messages.
func (f *forwarder) watch(src MessageSource, session string) {
	cancel := src.WatchMessages(session, f.deliver)
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

// stop cancels the watch and ends run; the copies still queued are dropped (the
// messages themselves stay for the session's tool results).
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

// run writes queued copies until stop.
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
				f.send(logMessage{Kind: "inject", Text: fmt.Sprintf("%d earlier notification copies of messages were dropped because this client did not read them fast enough; the messages themselves are in the session's tool results", dropped)})
			}
			for _, m := range batch {
				f.send(m)
			}
		}
	}
}

// send writes one copy, bounded by sendTimeout so that a client that stopped reading
// cannot hold the forwarder (and Server.Close, which waits for it) for long.
func (f *forwarder) send(m logMessage) {
	ctx, cancel := context.WithTimeout(context.Background(), sendTimeout)
	defer cancel()
	//lint:ignore SA1019 the notification copy a client before 2026-07-28 asked for with logging/setLevel
	err := f.ss.Log(ctx, &mcp.LoggingMessageParams{Level: MessageLevel, Logger: MessageLogger, Data: m})
	if err != nil {
		f.logger.Warn("mcpkit: the notification copy of a message was not sent", "kind", m.Kind, "plugin", m.PluginID, "err", err)
	}
}
