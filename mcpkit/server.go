package mcpkit

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/cordiskit/cordiskit/invoke"
	"github.com/cordiskit/cordiskit/kit"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Options configures a Server. A nil *Options means defaults.
type Options struct {
	// Implementation names the server to clients. Nil means {Name: "cordiskit", Version: "dev"}.
	Implementation *mcp.Implementation
	// ServerOptions are passed to mcp.NewServer (copied, not retained). Nil means the SDK's
	// defaults. Unless ServerOptions.Capabilities.Tools is set, the server advertises the
	// tools capability with listChanged from the start, even while no tool is registered.
	ServerOptions *mcp.ServerOptions
	// OmitNonObjectOutputSchemas drops a tool's output schema, and with it the structured
	// result, when the schema's root type is not "object". MCP versions before 2026-07-28
	// require object output schemas, and some clients reject the whole tool list otherwise.
	OmitNonObjectOutputSchemas bool
	// Before, if non-nil, runs before every tool call with the raw arguments, so a runtime
	// can apply its own policy hooks to MCP calls. It returns the arguments to use (possibly
	// rewritten; they are validated afterwards), or an error that becomes the call's tool
	// error without running the tool (a veto).
	Before func(ctx context.Context, tool string, args json.RawMessage) (json.RawMessage, error)
	// MaxMessageBytes bounds the encoded size of what the server sends in one message: a
	// tool's result, and the whole tool list (so every page of it). A result over it
	// becomes a tool error saying so; a tool that would push the list over it is refused
	// when it is registered, or left out of the list. Zero means DefaultMaxMessageBytes;
	// keep it under the frame limit of the clients you serve.
	MaxMessageBytes int
	// MaxToolBytes bounds the encoded size of one tool's entry in tools/list (name,
	// description, schemas); a larger tool is refused when it is registered, or left out
	// of the list. Zero means DefaultMaxToolBytes.
	MaxToolBytes int

	// Session maps a client session to the session id its tool calls carry on their
	// context (kit.WithSession), which session-scoped tools read (kit.SessionFrom): the
	// dynamic-plugin runner's Plugins belong to it. It is called once per client session,
	// and never for one that a bearer token of HTTP opened: the token names that (see
	// HTTP). Nil means a stable id minted per client session, "mcp-TAG-N" (never reused,
	// not even by another process), so every client is its own session; "" means the
	// client's calls carry none.
	Session func(*mcp.ServerSession) string
	// OnSession, if non-nil, is called once for each client session, with the kit session
	// it is, when its first request fixes that, before that request is served. A runtime
	// whose runner shares its store with other processes moves the session's runs to this
	// process there (runner.Runner.TakeSession; cordiskit.New wires it).
	OnSession func(session string)
	// HTTP says who may use the Server over HTTP (ServeHTTP, HTTPHandler) and which
	// session each bearer token proves. Nil accepts no token: serving over HTTP then
	// fails with ErrNoHTTPToken. Stdio and in-memory transports do not read it.
	HTTP *HTTPOptions
	// Messages, if non-nil, is where messages for the models of sessions come from (a
	// *runner.Runner). Each tool result a client session receives, whatever the tool and
	// the protocol version, carries the messages its session's model has not been given
	// yet, after the tool's own content, each in a block of its own marked as a message
	// of the runtime (see the package doc, "Messages for the model"). A client on a
	// protocol before 2026-07-28 whose log level (logging/setLevel) is MessageLevel or
	// lower also gets each new one as a log notification (logger MessageLogger, data
	// {kind, pluginId, text}); the server then advertises the logging capability.
	Messages MessageSource

	// ShutdownTimeout bounds how long [Server.Run] (and [Serve]) waits, once the client
	// has closed its input (stdin at EOF), for the calls still running to finish and their
	// answers to be written, so a client that writes its requests and closes the pipe
	// still gets every answer. Past it they are answered with an error (a tool error for
	// tools/call) and cancelled. Zero means [DefaultShutdownTimeout].
	ShutdownTimeout time.Duration
}

// A Server serves the tools of one kit runtime to MCP clients and keeps the MCP tool list
// in step with the registry. It is plugin "mcpkit" of the runtime; see the package doc.
type Server struct {
	mcp     *mcp.Server
	inv     *invoke.Invoker
	fiber   *kit.Fiber
	logger  *slog.Logger
	opts    Options
	budgets budgets
	guard   *httpGuard // Options.HTTP, checked

	sessMu     sync.Mutex
	ids        map[*mcp.ServerSession]string     // the kit session of each live client session
	forwarders map[*mcp.ServerSession]*forwarder // notification copies to clients that asked
	closing    bool                              // Close began: no new forwarders
	forwards   sync.WaitGroup                    // forwarder goroutines
	watches    sync.WaitGroup                    // watch goroutines, one per client session seen

	mu      sync.Mutex
	served  map[string]servedTool // what the mcp.Server lists, by tool name
	listed  map[string]int        // the encoded size of their entries in tools/list, by session ("" shared)
	leftOut map[string]bool       // registered tools not served, tried again when room is freed
}

// servedTool is the registry state a served tool was built from, to skip no-op updates,
// and the size of its entry in tools/list.
type servedTool struct {
	session             string // whose list it is on: "" for every session's
	description         string
	input, output       []byte
	structuredResultsOK bool
	size                int
}

// NewServer builds an MCP server over the tools of c's runtime and starts it as plugin
// "mcpkit", a child of c's fiber that injects the "tools" service. It fails if
// Options.HTTP is not valid (the error says what to change) or the plugin cannot start.
// Serve it with Run (one session), HTTPHandler or MCP().Connect (many); Close detaches it.
func NewServer(c *kit.Context, opts *Options) (*Server, error) {
	s := &Server{inv: new(invoke.Invoker), logger: c.Logger(), served: map[string]servedTool{}, listed: map[string]int{}, leftOut: map[string]bool{},
		ids: map[*mcp.ServerSession]string{}, forwarders: map[*mcp.ServerSession]*forwarder{}}
	if opts != nil {
		s.opts = *opts
	}
	s.budgets = newBudgets(&s.opts)
	guard, err := newHTTPGuard(s.opts.HTTP)
	if err != nil {
		return nil, err
	}
	s.guard = guard
	impl := s.opts.Implementation
	if impl == nil {
		impl = &mcp.Implementation{Name: "cordiskit", Version: "dev"}
	}
	var so mcp.ServerOptions
	if s.opts.ServerOptions != nil {
		so = *s.opts.ServerOptions
	}
	caps := &mcp.ServerCapabilities{}
	if so.Capabilities != nil {
		cp := *so.Capabilities
		caps = &cp
	}
	if caps.Tools == nil {
		caps.Tools = &mcp.ToolCapabilities{ListChanged: true}
	}
	if s.opts.Messages != nil {
		withLogging(caps)
	}
	so.Capabilities = caps
	s.mcp = mcp.NewServer(impl, &so)
	s.mcp.AddReceivingMiddleware(s.levelMiddleware, s.scopeMiddleware)

	f := c.Plugin(&kit.Plugin{Name: "mcpkit", Inject: []string{kit.ToolsService.Key()}, Apply: s.attach})
	if err := f.Err(); err != nil {
		return nil, err
	}
	s.fiber = f
	return s, nil
}

// MCP returns the underlying SDK server, to connect transports or add prompts and
// resources. Do not add or remove tools on it: the Server owns its tool list.
func (s *Server) MCP() *mcp.Server { return s.mcp }

// Fiber returns the fiber the Server runs in.
func (s *Server) Fiber() *kit.Fiber { return s.fiber }

// Run serves one session over t until the client disconnects or ctx is done; see
// mcp.Server.Run. When the client closes its input, Run first answers the calls it read,
// bounded by [Options].ShutdownTimeout. The Server stays attached afterwards: Close it when
// done.
func (s *Server) Run(ctx context.Context, t mcp.Transport) error {
	return s.mcp.Run(ctx, drainTransport{t, cmp.Or(s.opts.ShutdownTimeout, DefaultShutdownTimeout)})
}

// Close detaches the Server from the runtime by disposing its fiber: it stops following
// the registry and removes every tool from the MCP tool list (connected clients are
// notified), and stops the notification copies of messages. Sessions
// stay open. ctx bounds the wait, as in kit.Fiber.Dispose.
func (s *Server) Close(ctx context.Context) error {
	s.stopForwarders()
	return s.fiber.Dispose(ctx)
}

// Serve serves the tools of c's runtime over t until the session ends or ctx is done,
// then detaches: NewServer, Run and Close in one call. A nil opts means defaults.
func Serve(ctx context.Context, c *kit.Context, t mcp.Transport, opts *Options) (err error) {
	s, err := NewServer(c, opts)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := s.Close(context.WithoutCancel(ctx)); cerr != nil {
			err = errors.Join(err, cerr)
		}
	}()
	return s.Run(ctx, t)
}

// attach is the plugin's Apply: follow the registry, then serve what it holds now. The
// listener goes first so no change between the two is missed.
func (s *Server) attach(c *kit.Context) error {
	if err := s.inv.Attach(c); err != nil {
		return err
	}
	if err := s.inv.Registry().AddCheck(c, s.check); err != nil {
		return err
	}
	if _, err := kit.ToolsChange.On(c, func(e kit.ToolsChangeEvent) { s.sync(e.Tool) }); err != nil {
		return err
	}
	if err := c.Effect(s.detach); err != nil {
		return err
	}
	for _, t := range s.inv.Tools() {
		s.sync(t.Name)
	}
	return nil
}

// detach removes every served tool from the MCP server.
func (s *Server) detach() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	names := make([]string, 0, len(s.served))
	for name := range s.served {
		names = append(names, name)
	}
	clear(s.served)
	clear(s.leftOut)
	clear(s.listed)
	if len(names) > 0 {
		s.mcp.RemoveTools(names...)
	}
	return nil
}

// sync makes the MCP tool list agree with the registry about one tool. It reads the
// registry's current state rather than trusting the event, so changes of one name that
// race on different goroutines still converge on the last one. When the change frees room
// in the list, the tools left out for their size are tried again, in registry order.
func (s *Server) sync(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.syncLocked(name) && len(s.leftOut) > 0 {
		for _, t := range s.inv.Tools() {
			if s.leftOut[t.Name] {
				s.syncLocked(t.Name)
			}
		}
	}
}

// syncLocked syncs one tool and reports whether it freed room in the list.
func (s *Server) syncLocked(name string) (freed bool) {
	var schema kit.ToolSchema
	var session string
	ok := false
	if tools := s.inv.Registry(); tools != nil {
		schema, ok = tools.Get(name)
		session, _ = tools.SessionOf(name)
	}
	old, served := s.served[name]
	if served {
		s.count(old.session, -old.size) // out of the count while the new entry is weighed
	}
	if !ok {
		delete(s.leftOut, name)
		if served {
			s.unserve(name)
		}
		return served
	}
	tool, st, err := s.mcpTool(schema)
	st.session = session
	if err == nil {
		st.size, err = entrySize(tool)
	}
	if err == nil {
		err = s.budgets.admit(st.size, s.listedFor(session))
	}
	if err == nil && !(served && old.equal(st)) {
		err = s.addTool(tool, s.handler(name, st.structuredResultsOK))
	}
	if err != nil {
		if !s.leftOut[name] {
			s.logger.Error("mcpkit: tool not served over MCP", "tool", name, "err", err)
		}
		s.leftOut[name] = true
		if served {
			s.unserve(name)
		}
		return served
	}
	delete(s.leftOut, name)
	s.served[name] = st
	s.count(session, st.size)
	return served && st.size < old.size
}

// unserve takes a tool off the list; its size is already out of s.listed.
func (s *Server) unserve(name string) {
	delete(s.served, name)
	s.mcp.RemoveTools(name)
}

// count adds delta bytes to session's list, forgetting a session whose list is empty.
func (s *Server) count(session string, delta int) {
	if n := s.listed[session] + delta; n != 0 {
		s.listed[session] = n
	} else {
		delete(s.listed, session)
	}
}

// listedFor is the encoded size of the tool list a client of session sees: the runtime's
// own tools and its session's. Each session has the whole message budget to itself, so
// one session filling its list never keeps another's tools off; a tool of the runtime's
// own must fit beside the fullest session's list.
func (s *Server) listedFor(session string) int {
	if session != "" {
		return s.listed[""] + s.listed[session]
	}
	fullest := 0
	for sess, n := range s.listed {
		if sess != "" {
			fullest = max(fullest, n)
		}
	}
	return s.listed[""] + fullest
}

// addTool adds tool to the SDK server, which panics on tools it refuses (an invalid
// x-mcp-header annotation in the input schema, say): that is an error here.
func (s *Server) addTool(tool *mcp.Tool, h mcp.ToolHandler) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("the MCP SDK refused the tool: %v", r)
		}
	}()
	s.mcp.AddTool(tool, h)
	return nil
}

// mcpTool converts a registry schema into an MCP tool. MCP requires an input schema whose
// root type is "object"; a schema without a type gets one (tool arguments are always an
// object), and a schema of another type cannot be served.
func (s *Server) mcpTool(schema kit.ToolSchema) (*mcp.Tool, servedTool, error) {
	st := servedTool{description: schema.Description, input: schema.InputSchema, output: schema.OutputSchema}
	in := json.RawMessage(`{"type":"object"}`)
	if len(bytes.TrimSpace(schema.InputSchema)) > 0 {
		var m map[string]any
		if err := json.Unmarshal(schema.InputSchema, &m); err != nil {
			return nil, st, fmt.Errorf("input schema is not a JSON object: %w", err)
		}
		switch typ, ok := m["type"]; {
		case !ok:
			m["type"] = "object"
			b, err := json.Marshal(m)
			if err != nil {
				return nil, st, err
			}
			in = b
		case typ != "object":
			return nil, st, fmt.Errorf(`input schema has type %v; MCP tools take an object, so declare "type": "object"`, typ)
		default:
			in = schema.InputSchema
		}
	}
	tool := &mcp.Tool{Name: schema.Name, Description: schema.Description, InputSchema: in}
	if out := bytes.TrimSpace(schema.OutputSchema); len(out) > 0 {
		if !json.Valid(out) {
			return nil, st, fmt.Errorf("output schema is not valid JSON")
		}
		if !s.opts.OmitNonObjectOutputSchemas || rootType(out) == "object" {
			tool.OutputSchema = json.RawMessage(out)
			st.structuredResultsOK = true
		}
	}
	return tool, st, nil
}

func rootType(schema []byte) any {
	var m struct {
		Type any `json:"type"`
	}
	_ = json.Unmarshal(schema, &m)
	return m.Type
}

func (a servedTool) equal(b servedTool) bool {
	return a.session == b.session && a.description == b.description && bytes.Equal(a.input, b.input) &&
		bytes.Equal(a.output, b.output) && a.structuredResultsOK == b.structuredResultsOK
}

// handler runs one tool for MCP. Every failure becomes a tool error result, so the model
// sees it; protocol errors are left to the SDK (an unknown tool name, a broken request).
func (s *Server) handler(name string, structured bool) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		session := s.sessionOf(req.Session, req.Extra)
		ctx = kit.WithSession(ctx, session)
		res := s.fit(name, s.call(ctx, name, structured, req.Params.Arguments))
		s.addMessages(ctx, session, res)
		return res, nil
	}
}

// call runs one tool: Options.Before, then the tool through the Invoker.
func (s *Server) call(ctx context.Context, name string, structured bool, args json.RawMessage) *mcp.CallToolResult {
	var err error
	if s.opts.Before != nil {
		if args, err = s.opts.Before(ctx, name, args); err != nil {
			return toolError(err)
		}
	}
	out, err := s.inv.Invoke(ctx, name, args)
	if err != nil {
		return toolError(err)
	}
	res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: resultText(out)}}}
	if structured && len(out) > 0 {
		res.StructuredContent = out
	}
	return res
}

func toolError(err error) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: err.Error()}}}
}

// resultText renders a tool's JSON result for a model: a JSON string as its text, anything
// else as JSON.
func resultText(out json.RawMessage) string {
	var str string
	if len(out) > 0 && out[0] == '"' && json.Unmarshal(out, &str) == nil {
		return str
	}
	return string(out)
}
