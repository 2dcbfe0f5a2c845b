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
)

// A verb is one page verb: its wire arguments (for error messages) and the call.
type verb struct {
	args string
	call func(h *Handler, ctx context.Context, body []byte) (any, error)
}

// handle makes a verb of a runner method that takes one argument struct decoded from the
// body's JSON object.
func handle[A, R any](args string, f func(*runner.Runner, context.Context, A) (R, error)) verb {
	return handleH(args, func(h *Handler, ctx context.Context, a A) (R, error) { return f(h.r, ctx, a) })
}

// handleH is handle for a verb the Handler answers itself.
func handleH[A, R any](args string, f func(*Handler, context.Context, A) (R, error)) verb {
	return verb{args: args, call: func(h *Handler, ctx context.Context, body []byte) (any, error) {
		var a A
		if err := decodeStrict(body, &a); err != nil {
			return nil, err
		}
		return f(h, ctx, a)
	}}
}

// A refused answer to a request that another page (or the model, or the deadline)
// settled first carries how it ended, so the late page can say so instead of failing.
type (
	hostHalfAnswer struct {
		runner.HostHalfResult
		Settled runner.Outcome `json:"settled,omitempty"`
	}
	acceptedAnswer struct {
		runner.Accepted
		Settled runner.Outcome `json:"settled,omitempty"`
	}
)

func runHostHalf(h *Handler, ctx context.Context, a runner.RunHostHalfArgs) (hostHalfAnswer, error) {
	res := hostHalfAnswer{HostHalfResult: h.r.RunHostHalf(ctx, a)}
	if !res.OK && a.RequestID != "" {
		res.Settled = h.hub.outcome(a.RequestID)
	}
	return res, nil
}

func resolveRequestRun(h *Handler, ctx context.Context, a runner.ResolveArgs) (acceptedAnswer, error) {
	res := acceptedAnswer{Accepted: h.r.ResolveRequestRun(ctx, a)}
	if !res.Accepted.Accepted {
		res.Settled = h.hub.outcome(a.RequestID)
	}
	return res, nil
}

// answer wraps a runner method that cannot fail at the transport level.
func answer[A, R any](f func(*runner.Runner, context.Context, A) R) func(*runner.Runner, context.Context, A) (R, error) {
	return func(r *runner.Runner, ctx context.Context, a A) (R, error) { return f(r, ctx, a), nil }
}

// renderFailureArgs and guardFailureArgs carry the report's run and what went wrong.
type renderFailureArgs struct {
	runner.ReportArgs
	Failure runner.RenderFailure `json:"failure"`
}

type guardFailureArgs struct {
	runner.ReportArgs
	Failure struct {
		Message string `json:"message"`
		Stack   string `json:"stack,omitempty"`
	} `json:"failure"`
}

type invokeArgs struct {
	PluginID    string          `json:"pluginId"`
	PluginRunID string          `json:"pluginRunId"`
	Capability  string          `json:"capability"`
	Method      string          `json:"method"`
	Args        json.RawMessage `json:"args"`
}

type noArgs struct{}

// verbs are the page verbs of spec §14.1 by wire name.
var verbs = map[string]verb{
	"runHostHalf":       handleH("agentId, pluginId, packageId, mode, requestId (null for a direct run), approveFutureVersions, ticket", runHostHalf),
	"getClientCode":     handle("agentId, pluginId, pluginRunId", (*runner.Runner).GetClientCode),
	"resolveRequestRun": handleH("requestId, ticket, resolution {ok, reason, pluginRunId, token, waitingFor, message, stack}", resolveRequestRun),
	"settleUserRun":     handle("agentId, pluginId, resolution {ok, reason, pluginRunId, token, waitingFor, message, stack}", answer((*runner.Runner).SettleUserRun)),
	"stopFromPanel": handle("agentId, pluginId", func(r *runner.Runner, ctx context.Context, a runner.PanelPluginArgs) (any, error) {
		return map[string]bool{"ok": true}, r.StopFromPanel(ctx, a)
	}),
	"undefineFromPanel": handle("agentId, pluginId", (*runner.Runner).UndefineFromPanel),
	"revokeGrant":       handle("agentId, pluginId, packageId, future", (*runner.Runner).RevokeGrant),
	"reportRenderFailure": handle("agentId, pluginId, pluginRunId, capability, failure {slot, message, stack, abdicated}", func(r *runner.Runner, ctx context.Context, a renderFailureArgs) (any, error) {
		r.ReportRenderFailure(ctx, a.ReportArgs, a.Failure)
		return nil, nil
	}),
	"reportClientGuardFailure": handle("agentId, pluginId, pluginRunId, capability, failure {message, stack}", func(r *runner.Runner, ctx context.Context, a guardFailureArgs) (any, error) {
		r.ReportClientGuardFailure(ctx, a.ReportArgs, a.Failure.Message, a.Failure.Stack)
		return nil, nil
	}),
	"inventory": handle("none (send {})", func(r *runner.Runner, ctx context.Context, _ noArgs) ([]runner.InventoryRow, error) {
		return r.Inventory(ctx)
	}),
	"syncInspectManifest": handle("page, providers [{id, description, methods [{name, description, inputSchema, outputSchema}]}]", func(r *runner.Runner, ctx context.Context, a runner.SyncInspectManifestArgs) (any, error) {
		return nil, r.SyncInspectManifest(ctx, a)
	}),
	"resolveInspectQuery": handle("page, agentId, requestId, resolution {ok, data, error {code, message}}", answer((*runner.Runner).ResolveInspectQuery)),
	"activity": {args: "none (send {})", call: func(h *Handler, _ context.Context, body []byte) (any, error) {
		if err := decodeStrict(body, &noArgs{}); err != nil {
			return nil, err
		}
		return h.activity.list(), nil
	}},
	"invoke": handle("pluginId, pluginRunId, capability, method, args", func(r *runner.Runner, ctx context.Context, a invokeArgs) (json.RawMessage, error) {
		return r.Invoke(ctx, a.PluginID, a.PluginRunID, a.Capability, a.Method, a.Args)
	}),
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
	value, err := v.call(h, req.Context(), body)
	var bad *badArgs
	switch {
	case errors.As(err, &bad):
		writeError(w, http.StatusBadRequest, "bad-request", fmt.Sprintf("%s: %s; send a JSON object with its arguments: %s", name, bad.msg, v.args))
	case err != nil:
		writeJSON(w, http.StatusOK, errAnswer{Error: wireError(err)})
	default:
		writeJSON(w, http.StatusOK, okAnswer{OK: true, Value: value})
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
		return &badArgs{"the body is not valid JSON for this verb: " + strings.TrimPrefix(err.Error(), "json: ")}
	}
	if _, err := dec.Token(); err != io.EOF {
		return &badArgs{"the body has data after its JSON object"}
	}
	return nil
}

// okAnswer and errAnswer are every verb's answer (spec §14.1's carrier).
type okAnswer struct {
	OK    bool `json:"ok"` // always true
	Value any  `json:"value"`
}

type errAnswer struct {
	OK    bool      `json:"ok"` // always false
	Error *errorMsg `json:"error"`
}

type errorMsg struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// wireError gives a runner error its code: the refusal reason, the invoke code, or
// "internal".
func wireError(err error) *errorMsg {
	var ie *runner.InvokeError
	if errors.As(err, &ie) {
		return &errorMsg{Code: string(ie.Code), Message: ie.Message}
	}
	if r := runner.ReasonOf(err); r != "" {
		return &errorMsg{Code: string(r), Message: err.Error()}
	}
	return &errorMsg{Code: "internal", Message: err.Error()}
}

func writeError(w http.ResponseWriter, status int, code, msg string) {
	writeJSON(w, status, errAnswer{Error: &errorMsg{Code: code, Message: msg}})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // messages are read by people and models, never put into HTML
	if err := enc.Encode(v); err != nil {
		status = http.StatusInternalServerError
		b.Reset()
		_ = enc.Encode(errAnswer{Error: &errorMsg{Code: "internal", Message: "encoding the answer: " + err.Error()}})
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(b.Bytes())
}
