package panel

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"

	"github.com/cordiskit/cordiskit/internal/bodylimit"
	"github.com/cordiskit/cordiskit/runner"
	"github.com/cordiskit/cordiskit/runner/inspect"
	"github.com/cordiskit/cordiskit/runner/page"
)

// A verb is one page verb: its wire arguments (for error messages) and the call, made for
// the scope of the request (package doc, "Sessions and people").
type verb struct {
	args string
	call func(h *Handler, ctx context.Context, sc scope, body []byte) (any, error)
}

// handle makes a verb of a runner method that takes one argument struct decoded from the
// body's JSON object. session points at the argument that names the session: a
// session's page speaks for its own session whatever it sent, so the runner's ownership
// check answers another session's Plugin as one that does not exist.
func handle[A, R any](args string, session func(*A) *string, f func(*runner.Runner, context.Context, A) (R, error)) verb {
	return handleH(args, session, func(h *Handler, ctx context.Context, _ scope, a A) (R, error) { return f(h.r, ctx, a) })
}

// handleH is handle for a verb the Handler answers itself.
func handleH[A, R any](args string, session func(*A) *string, f func(*Handler, context.Context, scope, A) (R, error)) verb {
	return verb{args: args, call: func(h *Handler, ctx context.Context, sc scope, body []byte) (any, error) {
		var a A
		if err := decodeStrict(body, &a); err != nil {
			return nil, err
		}
		if session != nil && !sc.all() {
			*session(&a) = sc.session
		}
		return f(h, ctx, sc, a)
	}}
}

// The arguments that name the session, by verb argument type.
func sessionOfRun(a *page.RunHostHalfArgs) *string       { return &a.Session }
func sessionOfCode(a *page.ClientCodeArgs) *string       { return &a.Session }
func sessionOfSettle(a *page.SettleUserRunArgs) *string  { return &a.Session }
func sessionOfPlugin(a *page.PanelPluginArgs) *string    { return &a.Session }
func sessionOfRevoke(a *page.RevokeArgs) *string         { return &a.Session }
func sessionOfRender(a *RenderFailureArgs) *string       { return &a.Session }
func sessionOfGuard(a *GuardFailureArgs) *string         { return &a.Session }
func sessionOfQuery(a *inspect.ResolveQueryArgs) *string { return &a.Session }

func runHostHalf(h *Handler, ctx context.Context, sc scope, a page.RunHostHalfArgs) (HostHalfAnswer, error) {
	res := HostHalfAnswer{HostHalfResult: h.r.RunHostHalf(ctx, a)}
	if !res.OK && a.RequestID != "" {
		res.Settled = h.hub.outcome(sc, a.RequestID)
	}
	return res, nil
}

// resolveRequestRun answers a session's page about another session's request exactly as
// about one that does not exist, without asking the runner: the ticket alone is not
// enough.
func resolveRequestRun(h *Handler, ctx context.Context, sc scope, a page.ResolveArgs) (AcceptedAnswer, error) {
	if !h.mine(sc, requestsOf, a.RequestID) && h.hub.outcome(sc, a.RequestID) == "" {
		return AcceptedAnswer{Accepted: requestNotPending(a.RequestID)}, nil
	}
	res := AcceptedAnswer{Accepted: h.r.ResolveRequestRun(ctx, a)}
	if !res.Accepted.Accepted {
		res.Settled = h.hub.outcome(sc, a.RequestID)
	}
	return res, nil
}

// inventory answers the page's inventory for the sessions sc sees: every session for the
// operator's token, its own for a session's. The runner bounds the answer
// (runner.InventoryPage), so no session can make every page's reload huge.
func inventory(h *Handler, ctx context.Context, sc scope, _ noArgs) (runner.InventoryPage, error) {
	return h.r.InventoryPage(ctx, runner.InventoryScope{Every: sc.all(), Session: sc.session})
}

// invoke calls a handler of a run of sc's session; another session's Plugin reads as not
// running, with or without its capability.
func invoke(h *Handler, ctx context.Context, sc scope, a page.InvokeArgs) (json.RawMessage, error) {
	if !h.mine(sc, pluginsOf, a.PluginID) {
		return nil, pluginNotRunning(a.PluginID)
	}
	return h.r.InvokeFromPanel(ctx, a)
}

// syncInspectManifest publishes the providers of a page of sc; another scope's page id
// reads as one that is not connected.
func syncInspectManifest(h *Handler, ctx context.Context, sc scope, a inspect.SyncManifestArgs) (any, error) {
	if !h.mine(sc, pagesOf, a.Page) {
		a.Page = "" // never connected: the runner's answer for an unknown page
	}
	return nil, h.r.Inspect().SyncManifest(a)
}

// resolveInspectQuery takes an answer of a page of sc to a query of sc's session.
func resolveInspectQuery(h *Handler, ctx context.Context, sc scope, a inspect.ResolveQueryArgs) (page.Accepted, error) {
	if !h.mine(sc, queriesOf, a.RequestID) {
		return queryNotPending(a.RequestID), nil
	}
	if !h.mine(sc, pagesOf, a.Page) {
		a.Page = ""
	}
	return h.r.Inspect().ResolveQuery(a), nil
}

// answer wraps a runner method that cannot fail at the transport level.
func answer[A, R any](f func(*runner.Runner, context.Context, A) R) func(*runner.Runner, context.Context, A) (R, error) {
	return func(r *runner.Runner, ctx context.Context, a A) (R, error) { return f(r, ctx, a), nil }
}

type noArgs struct{}

// verbs are the page verbs (docs/dynamic-plugins.md, "Verbs") by wire name. None is the
// operator's alone: a session's page calls each of them, for its own session.
var verbs = map[string]verb{
	"runHostHalf":       handleH("session, pluginId, packageId, mode, requestId (null for a direct run), approveFutureVersions, ticket", sessionOfRun, runHostHalf),
	"getClientCode":     handle("session, pluginId, pluginRunId", sessionOfCode, (*runner.Runner).GetClientCode),
	"resolveRequestRun": handleH("requestId, ticket, resolution {ok, reason, pluginRunId, token, waitingFor, message, stack}", nil, resolveRequestRun),
	"settleUserRun":     handle("session, pluginId, resolution {ok, reason, pluginRunId, token, waitingFor, message, stack}", sessionOfSettle, answer((*runner.Runner).SettleUserRun)),
	"stopFromPanel": handle("session, pluginId", sessionOfPlugin, func(r *runner.Runner, ctx context.Context, a page.PanelPluginArgs) (any, error) {
		return map[string]bool{"ok": true}, r.StopFromPanel(ctx, a)
	}),
	"undefineFromPanel": handle("session, pluginId", sessionOfPlugin, (*runner.Runner).UndefineFromPanel),
	"revokeGrant":       handle("session, pluginId, packageId, future", sessionOfRevoke, (*runner.Runner).RevokeGrant),
	"reviewPackage":     handle("session, pluginId, packageId", sessionOfReview, reviewPackage),
	"reportRenderFailure": handle("session, pluginId, pluginRunId, capability, failure {slot, message, stack, abdicated}", sessionOfRender, func(r *runner.Runner, ctx context.Context, a RenderFailureArgs) (any, error) {
		r.ReportRenderFailure(ctx, a.ReportArgs, a.Failure)
		return nil, nil
	}),
	"reportClientGuardFailure": handle("session, pluginId, pluginRunId, capability, failure {message, stack}", sessionOfGuard, func(r *runner.Runner, ctx context.Context, a GuardFailureArgs) (any, error) {
		r.ReportClientGuardFailure(ctx, a.ReportArgs, a.Failure.Message, a.Failure.Stack)
		return nil, nil
	}),
	"inventory":           handleH("none (send {})", nil, inventory),
	"syncInspectManifest": handleH("page, providers [{id, description, methods [{name, description, inputSchema, outputSchema}]}]", nil, syncInspectManifest),
	"resolveInspectQuery": handleH("page, session, requestId, resolution {ok, data, error {code, message}}", sessionOfQuery, resolveInspectQuery),
	"activity": handleH("none (send {})", nil, func(h *Handler, _ context.Context, sc scope, _ noArgs) ([]Activity, error) {
		return h.activity.list(sc), nil
	}),
	"invoke": handleH("pluginId, pluginRunId, capability, method, args", nil, invoke),
}

// verbNames lists the verbs, sorted, for the unknown-verb message.
func verbNames() string {
	names := make([]string, 0, len(verbs))
	for n := range verbs {
		names = append(names, n)
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}

func (h *Handler) serveVerb(w http.ResponseWriter, req *http.Request) {
	name := req.PathValue("verb")
	v, ok := verbs[name]
	if !ok {
		writeError(w, http.StatusNotFound, "unknown-verb", fmt.Sprintf("there is no verb %q; the verbs are %s", name, verbNames()))
		return
	}
	if ct := req.Header.Get("Content-Type"); ct != "" && !strings.HasPrefix(ct, "application/json") {
		writeError(w, http.StatusUnsupportedMediaType, "bad-request", fmt.Sprintf("%s: the body must be JSON (Content-Type: application/json), not %q", name, ct))
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, req.Body, h.opts.MaxBodyBytes))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			writeError(w, http.StatusRequestEntityTooLarge, "too-large", fmt.Sprintf("%s: the body is over %d bytes (panel.Options.MaxBodyBytes); send less", name, h.opts.MaxBodyBytes))
			return
		}
		if bodylimit.Slow(err) {
			h.slowBody(w, name)
			return
		}
		writeError(w, http.StatusBadRequest, "bad-request", fmt.Sprintf("%s: reading the body: %v", name, err))
		return
	}
	if len(bytes.TrimSpace(body)) == 0 {
		body = []byte("{}")
	}
	value, err := v.call(h, req.Context(), scopeOf(req), body)
	var bad *badArgs
	switch {
	case errors.As(err, &bad):
		writeError(w, http.StatusBadRequest, "bad-request", fmt.Sprintf("%s: %s; send a JSON object with its arguments: %s", name, bad.msg, v.args))
	case err != nil:
		writeJSON(w, http.StatusOK, Answer{Error: wireError(err)})
	default:
		writeValue(w, value)
	}
}

// badArgs is a body that does not decode into the verb's arguments.
type badArgs struct{ msg string }

func (e *badArgs) Error() string { return e.msg }

// decodeStrict decodes one JSON object into v, refusing unknown fields and trailing data,
// so a misspelt argument is named instead of silently ignored.
func decodeStrict(body []byte, v any) error {
	if t := bytes.TrimSpace(body); len(t) == 0 || t[0] != '{' {
		return &badArgs{"the body is not a JSON object"}
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		if strings.Contains(err.Error(), `unknown field "agentId"`) {
			return &badArgs{`the field "agentId" is now "session" (reload a panel page opened before the upgrade; a program sends "session")`}
		}
		return &badArgs{"the body is not valid JSON for this verb: " + strings.TrimPrefix(err.Error(), "json: ")}
	}
	if _, err := dec.Token(); err != io.EOF {
		return &badArgs{"the body has data after its JSON object"}
	}
	return nil
}

// wireError gives a runner error its code: the refusal reason, the invoke code, or
// "internal".
func wireError(err error) *Error {
	var ie *page.InvokeError
	if errors.As(err, &ie) {
		return &Error{Code: string(ie.Code), Message: ie.Message}
	}
	if r := page.ReasonOf(err); r != "" {
		return &Error{Code: string(r), Message: err.Error()}
	}
	return &Error{Code: "internal", Message: err.Error()}
}

func writeError(w http.ResponseWriter, status int, code, msg string) {
	writeJSON(w, status, Answer{Error: &Error{Code: code, Message: msg}})
}

// writeValue answers a verb with its value.
func writeValue(w http.ResponseWriter, value any) {
	v, err := marshal(value)
	if err != nil {
		writeError(w, http.StatusInternalServerError, "internal", "encoding the answer: "+err.Error())
		return
	}
	writeJSON(w, http.StatusOK, Answer{OK: true, Value: v})
}

// marshal is json.Marshal without HTML escapes: messages are read by people and models,
// never put into HTML.
func marshal(v any) (json.RawMessage, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // messages are read by people and models, never put into HTML
	if err := enc.Encode(v); err != nil {
		status = http.StatusInternalServerError
		b.Reset()
		_ = enc.Encode(Answer{Error: &Error{Code: "internal", Message: "encoding the answer: " + err.Error()}})
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(b.Bytes())
}
