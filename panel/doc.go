// Package panel serves the Cordis panel: one http.Handler with the page a person watching
// the agent uses (what the model defined, what runs, what waits for approval), the client
// runner that loads client halves into the page, the page verbs of the dynamic-plugin
// runner over HTTP, and the runner's events as a server-sent event stream. The protocol a
// page speaks, with every verb's and event's fields, is docs/dynamic-plugins.md, "The page
// protocol", in this module.
//
// The first calls a runtime author makes:
//
//	h, err := panel.New(r, nil)          // r is the *runner.Runner
//	defer h.Close(ctx)                   // ends every event stream
//	ln, _ := net.Listen("tcp", "127.0.0.1:0")
//	go http.Serve(ln, h)
//	fmt.Fprintln(os.Stderr, "panel:", h.URL("http://"+ln.Addr().String()))
//
// # Who gets in
//
// Every request passes, in order:
//
//   - loopback: a request from an address that is not loopback is 403 unless
//     Options.AllowRemote;
//   - Origin: a request whose Origin header is present and is neither the panel's own
//     (scheme and Host of the request) nor in Options.Origins is 403 — this also refuses
//     every sandboxed frame, whose origin is "null";
//   - a token: the operator's (Options.Token, random per Handler unless configured) or a
//     session's (one Options.Sessions maps to a session; below). A GET with
//     ?token=<token> sets an HttpOnly, SameSite=Strict cookie scoped to the base path,
//     holding that same token, and redirects (303) to the same address without it;
//     afterwards the cookie carries it. Programs send Authorization: Bearer <token>
//     (tried before the cookie). Anything else is 401. A token a cookie cannot carry
//     (spaces, quotes, commas, semicolons, backslashes, non-ASCII) is refused at the
//     login with 400 and works only as a bearer: issue tokens like crypto/rand.Text.
//
// The login's redirect never leaves the panel: its Location is the request's path
// rebuilt under Options.Base, without leading slashes or backslashes and dot segments,
// and escaped, so a link such as //evil.example/?token=…, /\evil.example or
// /%2F%2Fevil.example lands on a page of the panel's own origin (a 404 there), never on
// another host.
//
// Refusals are JSON ({"ok":false,"error":{"code","message"}}) with a message that says
// what to do. Every answer has Referrer-Policy: no-referrer.
//
// # Limits
//
// Every request's body is bounded before the checks above, so a client without the token
// cannot hold a connection with it either. A Content-Length over Options.MaxBodyBytes
// (default DefaultMaxBodyBytes, 1 MiB) is answered 413 (too-large) at once, before a byte
// of the body is read, and the connection is closed; a chunked body is cut when it
// passes the limit. The body must arrive within Options.BodyTimeout (default
// DefaultBodyTimeout, 10 s) of the handler starting: a slower one is answered 408
// (body-timeout), or, on a request refused before its body is read, the connection is
// closed at the deadline. The deadline is the connection's read deadline, set by the
// handler (http.ResponseController), so it holds in whatever http.Server serves the
// panel; it is set only on a request that has a body, and net/http lifts it once the
// body is read, so it never ends an event stream (nor does a server's ReadTimeout).
//
// The head of a request is the server's to bound, before the handler runs. Give the
// http.Server you serve the panel with a ReadHeaderTimeout, an IdleTimeout and a
// MaxHeaderBytes, as the example runtime does:
//
//	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second,
//		IdleTimeout: time.Minute, MaxHeaderBytes: 64 << 10}
//
// # Sessions and people
//
// A runtime that serves many people (mcpkit over HTTP: one session per client) gives each
// person the token of their session and sets Options.Sessions to map it back:
//
//	h, err := panel.New(r, &panel.Options{Sessions: func(tok string) (string, bool) { … }})
//	link := h.SessionURL("http://127.0.0.1:8080", tokenOfAlice) // for alice only
//
// A session's token sees and answers only its session; Options.Token stays the
// operator's, an explicit view of every session. The cookie keeps the token its holder
// logged in with, so a session's page never becomes the operator's. For a session's
// token:
//
//   - the event stream carries only its session's events: its run requests (with their
//     tickets), their resolutions, its dynamic-package and dynamic-retract, its
//     definition changes, its inspect queries and its activity cards. A fresh stream is
//     offered only its pending requests. Its event ids ("<epoch>-s<n>") count only its
//     own events, so they say nothing of how busy other sessions are; Last-Event-ID
//     replays only them, and an id of the operator's stream does not resume it. An event
//     whose session the handler cannot tell goes to the operator only.
//   - the inventory and the activity list hold only its Plugins and its model's calls.
//   - every verb speaks for its session whatever session it names, and a verb that names
//     another session's Plugin, run, request, inspect query or page gets the answer for
//     one that does not exist, word for word (the tests compare them), even with that
//     session's ticket or capability; a late answer learns how a request ended only for
//     its own. The check is a map lookup in the handler or the runner's own ownership
//     check, the same work for a Plugin that exists elsewhere and for none, and nothing
//     of it waits on the other session.
//   - so a client half of one session never loads in another session's page: its code
//     (getClientCode, reviewPackage) and its capability are its session's alone.
//   - the page says whose it is ("Session alice"), lists only that session, and ignores
//     #session=; the operator's page says "Every session" when session tokens exist and
//     names the session of each card.
//
// No verb is the operator's alone: the operator's page calls each for any session. The
// runner asks a client inspect query of every page that publishes its method, so the
// handler answers a query of another session, for each of a session's pages, with a
// failure (provider-missing, "open for another session"): a session whose own page is
// closed is told at once instead of waiting for the query to expire. On the operator's
// page, the Slots provider lists only the occupants of the asking session.
//
// What one session cannot take from another: a session's streams are at most a quarter
// of MaxStreams; each session keeps up to MaxReplay pending requests for fresh pages;
// the activity list keeps MaxActivity cards per session and 16 times that in all, the
// session with the most losing its oldest first. The replay buffer (MaxReplay events) is
// shared: a session's page that was away while the others emitted more than that
// reloads its inventory instead of replaying (cordis/reset).
//
// # Verbs
//
// POST <base>/rpc/<verb> with a JSON object of the verb's wire arguments (the names of
// docs/dynamic-plugins.md, "Verbs", lists them with their fields; unknown fields are
// refused, so a misspelt argument is named):
//
//	runHostHalf              session, pluginId, packageId, mode, requestId (null: a direct run), approveFutureVersions, ticket
//	getClientCode            session, pluginId, pluginRunId
//	resolveRequestRun        requestId, ticket, resolution {ok, reason, pluginRunId, token, waitingFor, message, stack}
//	settleUserRun            session, pluginId, resolution
//	stopFromPanel            session, pluginId
//	undefineFromPanel        session, pluginId
//	revokeGrant              session, pluginId, packageId, future
//	reviewPackage            session, pluginId, packageId: what the approval card shows (Approvals, below)
//	reportRenderFailure      session, pluginId, pluginRunId, capability, failure {slot, message, stack, abdicated}
//	reportClientGuardFailure session, pluginId, pluginRunId, capability, failure {message, stack}
//	inventory                (none; send {}): {rows, plugins, omitted, truncated}, bounded (below)
//	invoke                   pluginId, pluginRunId, capability, method, args
//	syncInspectManifest      page, providers [{id, description, methods [{name, description, inputSchema, outputSchema}]}]
//	resolveInspectQuery      page, session, requestId, resolution {ok, data, error {code, message}}
//	activity                 (none; send {}): the activity list, newest first
//
// The answer is {"ok":true,"value":…} or {"ok":false,"error":{"code":…,"message":…}};
// the code of a runner refusal is its page.Reason ("plugin-missing", …), of a failed
// invoke its page.InvokeCode ("stale-run", …). A refusal that a verb reports in its
// value (runHostHalf's {ok:false, reason}, resolveRequestRun's {accepted:false,
// message}) is an ok answer; when the refused answer was to a run
// request that had already ended (another page answered first, the model withdrew it, it
// expired), the value also carries settled: the request's outcome ("approved",
// "rejected", …), so a late page can say what happened instead of failing. Transport
// errors have HTTP statuses and their own codes: bad-request (400: not a JSON object,
// unknown field, trailing data; 415: a body that is not JSON), unknown-verb (404,
// listing the verbs), method-not-allowed (405), too-large (413, Options.MaxBodyBytes,
// default 1 MiB), body-timeout (408, Options.BodyTimeout, default 10 s; see Limits).
//
// session names the Plugin's session, the name Go gives it (kit.Session). It was called
// agentId once; a body that sends agentId is refused (400) with a message naming session
// and saying to reload: the page and the handler ship together, so only a page loaded
// before an upgrade sends it, and answering it as before would keep two names alive.
//
// In Go the arguments are the page protocol's structs (package runner/page:
// page.RunHostHalfArgs, page.ClientCodeArgs, page.InvokeArgs, …) and this package's where
// the handler adds to them (RenderFailureArgs, GuardFailureArgs); the answers
// are Answer with Error, carrying HostHalfAnswer, AcceptedAnswer, PackageReview,
// Activity or the runner's types. Client has one method per verb (From Go, below).
//
// The inventory is runner.Runner.InventoryPage for the caller: every session's Plugins
// for the operator's token, its own for a session's. Its rows stay within
// runner.Options.MaxInventoryBytes (default 1 MiB), shared fairly between sessions, so
// no session can make every page's reload huge: a row over its share is compact (it
// lists only the versions in use, else the newest, with long texts cut; packageCount
// counts them all), and the rows past the bound are left out, counted in omitted
// (plugins counts every Plugin in scope; truncated says that either happened). The page
// says how many plugins it does not show and how to see them (remove some, or open the
// panel for one session), and a compact card how many versions it lists. It takes a
// Plugin missing from an answer for removed only when omitted is 0; from a partial
// answer it closes no request and unloads no frame of a Plugin the answer left out, and
// keeps the card of one whose client half it holds.
//
// # Events
//
// GET <base>/events is a text/event-stream. Each runner event is sent as
// "event: cordis/…" with JSON data whose fields docs/dynamic-plugins.md, "Events", lists,
// and an id "<epoch>-<n>" ("<epoch>-s<n>" on a session's stream, above). The data of each
// event is a type of this package named after it (a Payload): RequestRun (with its
// ticket), RequestRunResolved, DynamicPackage, DynamicRetract, InspectQuery,
// InspectQueryResolved, DefinitionChanged {session, pluginId, packageId, change:
// "defined" | "undefined" | "updated"} (a define starts nothing, so without it a page would have to
// poll for new definitions), and Activity, one card of the activity list (below). The
// stream starts with "retry: 500" (a dropped stream's EventSource reconnects after
// 0.5 s), then "event: cordis/connected" and data (Connected) {"resumed":bool, "page":id},
// where page is the id the runner gave this connection (inspect.Registry.ConnectPage, through runner.Runner.Inspect) for
// the page's client inspect providers; it expires when the stream ends (a session's page
// may use only the page ids its own streams were given):
//
//   - resumed true: the request's Last-Event-ID was this handler's and every event after
//     it is still kept (the last Options.MaxReplay, default 1024); they follow.
//   - resumed false (a first connection, another process's id, or too far behind): the
//     page resets its inventory and reads it again. The run requests still pending are
//     sent next (without ids), so a page opened after the model asked can answer them.
//     They include the requests announced before the handler existed — the restarts
//     runner.New makes with RestartAtBoot, announced inside New — which New lists
//     (runner.Runner.PendingRequests) and files like the ones it hears, per session.
//
// A stream that falls further behind than MaxReplay while open gets "event:
// cordis/reset" (Reset: {"reason":"behind"}) and the pending requests, and goes on from now. An
// idle stream gets a ": ping" comment every Options.Heartbeat (15 s); a write that takes
// longer than Options.WriteTimeout (10 s) ends the stream. At most Options.MaxStreams
// (64) are open at once, at most a quarter of them a session's. Close ends every stream
// and waits for them.
//
// Each page holds its stream's connection for as long as it is open, and browsers open at
// most six HTTP/1.1 connections to one host and port (Chromium, Firefox): a seventh panel
// tab on the same address waits for a free connection and does not load at all (not
// even its HTML) until another tab closes. Serve the panel over HTTPS, where HTTP/2
// carries every tab's stream on one connection, or on another port per group of tabs.
//
// # From Go
//
// A Client speaks the wire as a page does, with a token (the operator's, or a session's
// to see and answer what that session's page would): one method per verb, and the event
// stream with each event's data decoded (Event.Payload). A runtime with a UI of its own
// approves run requests with it, and a runtime's tests drive the panel the way its own
// tests do:
//
//	c, err := panel.NewClient("http://127.0.0.1:8080/", token, nil)
//	events, err := c.Events(ctx, "")
//	for {
//		ev, err := events.Next()
//		…
//		if q, ok := ev.Payload.(panel.RequestRun); ok {
//			hh, err := c.RunHostHalf(ctx, page.RunHostHalfArgs{Session: q.Session, PluginID: q.PluginID,
//				PackageID: q.PackageID, Mode: q.Mode, RequestID: q.RequestID, Ticket: q.Ticket})
//			…
//		}
//	}
//
// EventStream.LastID resumes a stream that ended (Client.Events with it). The Client
// bounds what it reads: a verb's answer to ClientOptions.MaxAnswerBytes, one event (a
// line that never ends included) to ClientOptions.MaxEventBytes, both
// DefaultClientMaxBytes (16 MiB) unless set, so a hostile or broken server cannot make
// it allocate without bound; an event whose data does not decode is returned with an
// error and the stream goes on.
//
// # The page and the client runner
//
// GET <base>/ is the page (plain JavaScript with React.createElement, React 18.3.1 from
// assets/vendor, no build step); it shows one card per Plugin, grouped by this session
// (a session token's; else Options.Session, or #session=<id>) and the others, with the
// readings idle,
// client-pending ("not loaded here"), running, awaiting-approval and failed, their
// controls, and its error lines (docs/dynamic-plugins.md, "The
// panel's readings and cards"). Its badge counts every live run wherever it
// runs, and in brackets those whose client half this page has not loaded ("2 running (1
// not loaded here)"), not only the rows reading running; then the
// approvals waiting.
//
// Each client half runs in its own frame (GET <base>/frame) with sandbox="allow-scripts"
// and a CSP that sandboxes it again, forbids all network (connect-src 'none') and gives
// it an opaque origin: it cannot read the cookie or token, reach the panel's DOM, call a
// verb, or drive another Plugin's frame. Its code is the body of an async function with
// React, console (tagged), styles, host, the teaching traps (harness, the timers, fetch,
// require) and process/Buffer undefined, and must return a plugin. host.call(method,
// args) is a message to the page, which invokes only that frame's run with the run
// capability it keeps. A failed load names its stage: evaluate, module-import (the code
// returned no plugin) or activate (apply threw).
//
// # Approvals
//
// A run that needs a person (a client half, or a host half under
// runner.Options.ApproveHostHalves, when no grant covers its Package) shows an approval
// card, and the card shows what would run. The verb reviewPackage answers the Package's
// halves as text and, when the Plugin has a version the person let run before
// (runner.Review.Base: the newest other Package a grant names or that is current), what
// changed since it, half by half: new, same, changed, added or removed. A changed half
// comes as a unified diff made with go-internal/diff: hunks of lines marked " ", "+" or
// "-", each with its number in both versions, and three lines of context; the page folds
// the unchanged lines between hunks. The page shows code only as text, never as markup,
// and folds a half after 24 lines and a diff after 60 ("Show all"). Its approve buttons
// wait until the code is shown.
//
// What reviewPackage sends is bounded: of each half, its source up to MaxReviewBytes (256
// KiB, cut at a line end; lines and bytes count the whole source) and its diff lines up
// to about as many (hunksCut says that the rest was left out), so an answer stays near 1
// MiB however large a model made its code. A session's page reads only its own
// session's Packages: another session's Plugin is answered as one that does not exist.
//
// The buttons say what they grant. "Approve this version" grants the Package: it runs now
// and in every later run, after a restart too, until the grant is revoked. "Approve this
// and future versions" also grants every later Package of the Plugin. A Plugin's card
// lists its grants ("Approved to run without asking"), each with Revoke (the verb
// revokeGrant): a revoked Package that runs keeps running, and its next run asks again.
//
// # The client inspect plane
//
// On every cordis/connected the page publishes its client inspect providers for that
// page id (syncInspectManifest): Builtin (listBuiltins: the client half's parameters and
// ctx), Slots (listSubTree {root?}: the slots a client half registers into, cordis.card
// and tool.view.cordis, with their contract and current occupants) and Service
// (listService {service?}: the timer service). cordis_inspect_list shows them while the
// page is open; when its stream ends they go. The page answers each cordis/inspect-query
// once (resolveInspectQuery), with the data or with why it cannot (provider-missing,
// method-missing, provider-error); the runner settles a query on the first valid answer,
// or with the pages' reasons once every page asked has failed.
//
// # The activity list
//
// The page lists what the model did, newest first: one card per cordis_define,
// cordis_run, cordis_stop and cordis_undefine call, with what the Plugin does now. The
// runner announces each call of the tools it registers when it starts and when it
// answers (runner.ToolCall), and the handler records its card: a runtime whose model
// calls them through its tools registry (mcpkit, invoke, its own loop) needs no wiring.
// Calls kept from before this process started (a transcript read back after a restart)
// can be replayed with Handler.Record. The handler keeps the last MaxActivity cards of
// each session; a page reads the newest MaxActivity it may see (the verb activity) when
// it connects and gets new ones as cordis/activity events.
//
// # Cards
//
// A runtime with its own chat UI shows the model's cordis_define, cordis_run,
// cordis_stop and cordis_undefine calls as cards (docs/dynamic-plugins.md, "The panel's
// readings and cards"): DefineCardOf, RunCardOf and RowCardOf derive a card from a Call
// (its arguments and result) alone, so a replay renders the same card; DefineCard.Reading
// and RunCard.Reading say what the Plugin does now on a Page (inventory, removed Plugins,
// loaded runs), and VisibleStatus is the reading of a Package on a page.
package panel
