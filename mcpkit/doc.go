// Package mcpkit hands a kit runtime's tools to an agent: to any agent loop through an
// invoke.Invoker, or to any MCP client through a Server built on the official Go SDK
// (github.com/modelcontextprotocol/go-sdk).
//
// The first calls a runtime author makes:
//
//	inv, err := invoke.NewInvoker(root)            // a plugin under root; Close detaches it
//	for _, t := range inv.Tools() { … }            // name, description, JSON Schemas
//	out, err := inv.Invoke(ctx, name, argsJSON)    // validated, then run
//
// or, to serve the same tools over MCP (here on stdio):
//
//	err := mcpkit.Serve(ctx, root, &mcp.StdioTransport{}, nil)
//
// or to many clients over HTTP, each sending a bearer token that says who it is:
//
//	err := mcpkit.ServeHTTP(ctx, root, ln, &mcpkit.Options{HTTP: &mcpkit.HTTPOptions{Tokens: []mcpkit.Token{
//		{Token: aliceToken, Session: "alice"}, // alice's session, hers after a restart too
//		{Token: rand.Text()},                   // each client with it a session of its own
//	}}})
//
// The Invoker is package invoke's (github.com/cordiskit/cordiskit/invoke), which does not
// import the MCP SDK: an agent loop that wants only the neutral Tools + Invoke pair links
// that package alone. A Server calls the tools through one, so arguments are validated the
// same way and invalid ones are an *invoke.ArgumentError.
//
// # The MCP server
//
// A Server serves every tool of the registry and keeps the MCP tool list in step with it:
// it listens to kit.ToolsChange and adds or removes the tool on the underlying mcp.Server,
// which sends notifications/tools/list_changed to connected clients. Tool schemas are
// served as given (the registry has already refused those that validation cannot walk
// with bounded work; see package invoke). A tool's failure — an error it returns, a panic, arguments that do not
// match its schema, a tool that vanished between list and call — is an MCP tool error
// (a result with isError: true and the message as text), never a protocol error, so the
// model sees it and can correct itself.
//
// # Sessions
//
// Session-scoped tools (the dynamic-plugin runner's seven: Plugins belong to the session
// that defined them) read the calling session from the call's context (kit.SessionFrom).
// invoke.Invoker.InvokeSession names it for an agent loop. The Server puts each MCP client
// session on the context of its tool calls as a session, fixed by its first request:
//
//   - over HTTP, the session its bearer token proves (Options.HTTP, next section): a
//     token mapped to a name is that session for every client that sends it, so with a
//     durable store (runner/sqlstore) its Plugins are found again after a restart; a
//     token without a name gives each client session one of its own, minted as below.
//     Nothing the client says about itself (clientInfo.name) names it;
//   - otherwise (stdio, in-memory transports: one client is one process or one
//     connection), what Options.Session maps the client session to;
//   - else an id minted per client session, "mcp-TAG-N": TAG is random per process, so
//     no id is ever reused, not even by the next process over the same durable store,
//     and such a session's Plugins are never found by a later client.
//
// Options.Before sees the same context.
//
// # Messages for the model
//
// With Options.Messages (a *runner.Runner), what the runtime has to tell a session's
// model — a run's outcome that arrived after cordis_run returned, a failure at run time,
// what a person did in the panel — reaches that model in the session's next tool result,
// whatever the tool, an error result too: the part of a result every client gives its
// model, as an agent loop in the process would put the message into the conversation.
// Until then the runner keeps them for the session (at most runner.Options.MaxQueuedMessages,
// the oldest dropped first and counted; cordis_inspect_self lists them), also while no
// client of the session is connected. Each is delivered once: to the next result of any
// client of that session, never to another session's.
//
// The messages follow the tool's own content, oldest first, each a text block of its own:
//
//	<cordis-runtime-message boundary="K7Q2XRM4PA3WZ6JD" kind="inject" plugin="clock-1" from="the Cordis runtime, for this session; not part of the tool's result">
//	The user stopped clock-1 from the Cordis panel; its Packages remain. currentPackageId is pkg-1.
//	</cordis-runtime-message boundary="K7Q2XRM4PA3WZ6JD">
//
// The boundary is drawn at random for each result, after the texts are known, and
// appears in none of them, so a text (which may quote what model-written code threw)
// cannot end its block early or pass for another message; the kind is "steer" (act on it
// now) or "inject" (context for the next step). The block's _meta holds MessageMetaKey
// ({"kind", "pluginId"}) and its annotations name the assistant as its audience, for
// clients that tell blocks apart. Messages take only the room a result leaves under
// Options.MaxMessageBytes: those that do not fit wait for the next result, and a text
// longer than 64 KiB, or a sixteenth of the budget, is cut, saying so. A client that shows a model
// only structuredContent misses them; cordis_inspect_self still lists those not delivered.
//
// Which path each protocol version gets:
//
//	protocol                 tool results   log notification copy
//	2024-11-05 … 2025-11-25  always         after logging/setLevel debug, info or notice
//	2026-07-28               always         never (logging is deprecated, SEP-2577)
//
// The copy is a notifications/message (level MessageLevel, logger MessageLogger, data
// {kind, pluginId, text}) of each message sent from the setLevel on; it is a copy for a
// client that shows logs to its user, and takes nothing: the message still goes into the
// next result. A level above notice turns it off. A 2026-07-28 session gets none even if
// its client sends logging/setLevel (that protocol has no such method); the Server
// advertises the logging capability only for older clients to ask. Over HTTP every
// client is on 2025-11-25 or earlier: the SDK serves 2026-07-28 only on a stateless
// handler, and the Server's handler keeps sessions (the SDK's client falls back). A goroutine per
// client session writes the copies, so a slow client never holds up the runner; past 256
// unwritten ones the oldest are dropped and the client is told how many.
//
// # Many clients over HTTP
//
// ServeHTTP serves the runtime's tools to any number of clients at once on MCP's
// streamable HTTP transport (at HTTPPath), all sharing the runtime, each the session its
// token proves; when its context ends it cancels open requests, ends every client
// session and waits for what it started. To mount the transport in a server of your own,
// use Server.HTTPHandler, and at shutdown Server.CloseSessions after http.Server.Shutdown
// and before Server.Close (see CloseSessions for the event streams).
//
// Serving many clients is serving many people, and a client's tools run code in the
// process (a Plugin's host half reaches every service the runtime offers it), so over
// HTTP every request is checked before the SDK sees it, in this order:
//
//   - Origin: a request that carries an Origin header not in HTTPOptions.AllowedOrigins
//     (none by default) is answered 403, so a web page the user opens cannot call a local
//     server (DNS rebinding). MCP clients that are not browsers send none.
//   - Bearer token: a request without "Authorization: Bearer TOKEN" for one of
//     HTTPOptions.Tokens is answered 401 with a WWW-Authenticate challenge (RFC 6750;
//     error="invalid_token" for a token that is not accepted) and a message that says
//     what to send, ending with HTTPOptions.TokenHelp. Tokens are looked up by their
//     SHA-256, never compared byte by byte, and must be at least MinTokenLength
//     characters. The check is the SDK's auth.RequireBearerToken: the SDK's handler keeps
//     the identity a client session was opened with and answers 403 to a request on it
//     with another one, so a client that learns another's Mcp-Session-Id gets nothing.
//     Tokens of one name share an identity (one person's laptop and phone); each token
//     without a name is its own.
//   - Host: on a loopback listener, a request whose Host is not loopback is answered 403
//     (the SDK's check, on unless StreamableHTTPOptions.DisableLocalhostProtection).
//
// With no token configured, ServeHTTP and HTTPHandler do not serve: they fail with
// ErrNoHTTPToken, which says what to set. HTTPOptions.InsecureNoToken, for a handler
// behind something that authenticates every request itself, serves without a token;
// each client session is then its own as over stdio. A token travels in clear over plain
// HTTP: off loopback, serve it behind TLS.
//
// # Limits over HTTP
//
// Before the Origin and the token are checked, every request's body is bounded
// (HTTPOptions.Limits), so a client without a token costs no more than its head:
//
//   - size: a Content-Length over HTTPLimits.MaxBodyBytes (default DefaultMaxBodyBytes,
//     4 MiB, the SDK's; StreamableHTTPOptions.MaxRequestBodyBytes given to HTTPHandler
//     takes its place) is answered 413 at once, before a byte of the body is read; a
//     chunked body is cut when it passes the limit.
//   - time: the body must arrive within HTTPLimits.BodyTimeout (default
//     DefaultBodyTimeout, 30 s) of the handler starting; a slower one is answered 408.
//     A request refused before its body is read (401) is closed by the same deadline.
//
// Both refusals are a JSON-RPC error of id null (the request was not read, so its id is
// unknown) with a message naming the bound and the option that sets it, and close the
// connection. The SDK's own client (v1.8.0) reads only errors with an id, so after a
// 413 it closes its session; keep the limit above the largest arguments your clients
// send.
//
// The deadline is the connection's read deadline, set by the handler through
// http.ResponseController, so it holds in any http.Server HTTPHandler is mounted in. It
// is set only on a request with a body, and net/http lifts the read deadline once the
// body is read, so neither it nor a server's ReadTimeout ends an event stream (a client
// session's GET stream, or the stream of a tool call that takes minutes).
//
// ServeHTTP's own http.Server also bounds the head of a request
// (HTTPLimits.ReadHeaderTimeout, default 10 s; MaxHeaderBytes, default 64 KiB), a
// connection idle between requests (IdleTimeout, default 1 minute), and, as a backstop
// for a path the handler does not serve, the whole request (ReadTimeout: the head's
// bound plus the body's). When you mount HTTPHandler in a server of your own, set its
// ReadHeaderTimeout, IdleTimeout and MaxHeaderBytes likewise: the head is read before
// any handler runs.
//
// # Budgets on what is sent
//
// A client drops the whole session on a frame larger than it reads (16 MiB for the SDK's
// transports, mcp.DefaultMaxLineLength), and the model then loses every tool. So the
// Server bounds the encoded bytes it sends, after JSON escaping: a result larger than
// Options.MaxMessageBytes (default DefaultMaxMessageBytes, 8 MiB) becomes a tool error
// saying how large it was and how to return less (an error too large keeps its start); a
// tool whose entry in tools/list is larger than Options.MaxToolBytes (default 1 MiB), or
// that would make the whole list larger than MaxMessageBytes, is refused when it is
// registered (the Server adds a kit.Tools.AddCheck), so the plugin registering it gets
// the reason. A tool registered before the Server attached is left out of the list and
// logged instead, while the rest of the list goes out, and served once room is freed.
//
// # When the client closes its input
//
// A client may write its requests and close its input at once (a one-shot pipe into a
// stdio server). [Server.Run] and [Serve] still answer every call they read: the session
// ends once the calls running are answered, or after [Options].ShutdownTimeout (default
// [DefaultShutdownTimeout]), when those still running are answered with an error saying
// they were cancelled (a tool error for tools/call), and then cancelled. The SDK's
// session alone refuses every answer once its input has ended
// (modelcontextprotocol/go-sdk#1061).
//
// # Lifetime
//
// A Server is the kit plugin "mcpkit" that injects the "tools" service: its listeners are
// effects of its own fiber. Close disposes that fiber, which detaches it from the runtime
// (it then serves no tools); disposing an ancestor fiber does the same. If the tool
// registry goes away it returns to pending and re-attaches when it comes back.
package mcpkit
