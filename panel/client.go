package panel

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/cordiskit/cordiskit/runner"
	"github.com/cordiskit/cordiskit/runner/inspect"
	"github.com/cordiskit/cordiskit/runner/page"
	"github.com/cordiskit/cordiskit/tooldecl/dynamic"
)

// DefaultClientMaxBytes bounds, unless ClientOptions say otherwise, a verb's answer and one
// event a Client reads. It is well above what the handler sends (an event or an answer
// carries at most a client half's code, which an MCP request bounds to 4 MiB) and keeps a
// hostile or broken server from making the Client allocate without bound.
const DefaultClientMaxBytes = 16 << 20

// ClientOptions configures a Client. A nil *ClientOptions means defaults.
type ClientOptions struct {
	// HTTPClient sends the requests; nil means a new http.Client without a timeout (an
	// event stream stays open: bound a verb with its context).
	HTTPClient *http.Client
	// MaxAnswerBytes bounds a verb's answer; a longer one fails the call. Default
	// DefaultClientMaxBytes.
	MaxAnswerBytes int64
	// MaxEventBytes bounds one event of the stream (its lines together); a longer one, or
	// a line that never ends, ends the stream with an error. Default DefaultClientMaxBytes.
	MaxEventBytes int
}

// A Client speaks the page wire to a panel Handler over HTTP, as the page does: one
// method per verb, and the event stream (Events). It sends its token as a bearer, so it
// sees and answers what that token's page would: every session for the operator's token
// (Handler.Token), one session for a session's (Options.Sessions). A runtime author uses
// it to drive approvals from Go and to test a runtime the way the panel's own tests do.
//
// A verb the handler refuses returns an *Error (errors.As) with its code and message; a
// refusal the verb reports in its value (runHostHalf's ok false, resolveRequestRun's
// accepted false) is a value, as on the wire. A Client is safe for concurrent use.
type Client struct {
	base   string // ends in "/"
	token  string
	hc     *http.Client
	answer int64
	event  int
}

// NewClient returns a Client of the panel served at base (its origin and Options.Base:
// "http://127.0.0.1:8080/cordis/"), authorised by token (the operator's, or a session's).
func NewClient(base, token string, opts *ClientOptions) (*Client, error) {
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("panel: NewClient: %q is not the panel's address; pass its origin and base path, such as http://127.0.0.1:8080/", base)
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("panel: NewClient: %q has a query or fragment; pass the token as NewClient's second argument, not in the address", base)
	}
	if token == "" {
		return nil, errors.New("panel: NewClient: no token; pass Handler.Token() (every session) or a session's token")
	}
	c := &Client{base: strings.TrimRight(base, "/") + "/", token: token, hc: &http.Client{}, answer: DefaultClientMaxBytes, event: DefaultClientMaxBytes}
	if opts != nil {
		if opts.HTTPClient != nil {
			c.hc = opts.HTTPClient
		}
		if opts.MaxAnswerBytes > 0 {
			c.answer = opts.MaxAnswerBytes
		}
		if opts.MaxEventBytes > 0 {
			c.event = opts.MaxEventBytes
		}
	}
	return c, nil
}

// Call calls verb with args (nil sends {}) and decodes its value into value (nil: the
// value is not read). The methods named after the verbs call it; it is there for a verb
// this Client does not know yet.
func (c *Client) Call(ctx context.Context, verb string, args, value any) error {
	body := []byte("{}")
	if args != nil {
		var err error
		if body, err = json.Marshal(args); err != nil {
			return fmt.Errorf("panel: %s: encoding the arguments: %w", verb, err)
		}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.base+"rpc/"+url.PathEscape(verb), bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("panel: %s: %w", verb, err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+c.token)
	res, err := c.hc.Do(req)
	if err != nil {
		return fmt.Errorf("panel: %s: %w", verb, err)
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(res.Body, c.answer+1))
	if err != nil {
		return fmt.Errorf("panel: %s: reading the answer: %w", verb, err)
	}
	if int64(len(raw)) > c.answer {
		return fmt.Errorf("panel: %s: the answer is over %d bytes (ClientOptions.MaxAnswerBytes); raise it if the panel is yours", verb, c.answer)
	}
	var a Answer
	if err := json.Unmarshal(raw, &a); err != nil {
		return fmt.Errorf("panel: %s: the answer (HTTP %d, %s) is not the panel's JSON: %w; is %s the panel's address?", verb, res.StatusCode, res.Header.Get("Content-Type"), err, c.base)
	}
	switch {
	case !a.OK && a.Error != nil:
		a.Error.Status = res.StatusCode
		return a.Error
	case !a.OK || res.StatusCode != http.StatusOK:
		return fmt.Errorf("panel: %s: an answer of HTTP %d without ok or error: %.200s", verb, res.StatusCode, raw)
	case value == nil:
		return nil
	case len(a.Value) == 0:
		a.Value = json.RawMessage("null")
	}
	if err := json.Unmarshal(a.Value, value); err != nil {
		return fmt.Errorf("panel: %s: decoding the value %.200s: %w", verb, a.Value, err)
	}
	return nil
}

// call is Call with the value returned.
func call[R any](ctx context.Context, c *Client, verb string, args any) (R, error) {
	var r R
	err := c.Call(ctx, verb, args, &r)
	return r, err
}

// RunHostHalf starts, or attaches to, the host half of a run: for a pending request
// (RequestID and the Ticket of its RequestRun event; approving it when it needs
// approval) or, with no RequestID, as a person's direct run. A refusal is in the answer
// (OK false, Reason, Message, and Settled when the request had already ended).
func (c *Client) RunHostHalf(ctx context.Context, a page.RunHostHalfArgs) (HostHalfAnswer, error) {
	return call[HostHalfAnswer](ctx, c, "runHostHalf", a)
}

// GetClientCode returns the client half of a live run with its capability.
func (c *Client) GetClientCode(ctx context.Context, a page.ClientCodeArgs) (page.ClientCode, error) {
	return call[page.ClientCode](ctx, c, "getClientCode", a)
}

// ResolveRequestRun answers a run request: a decline (the request's ticket), or the
// starting page's result (the token RunHostHalf returned, and the run id).
func (c *Client) ResolveRequestRun(ctx context.Context, a page.ResolveArgs) (AcceptedAnswer, error) {
	return call[AcceptedAnswer](ctx, c, "resolveRequestRun", a)
}

// SettleUserRun settles a direct run with the result of the page that started it.
func (c *Client) SettleUserRun(ctx context.Context, a page.SettleUserRunArgs) (page.Accepted, error) {
	return call[page.Accepted](ctx, c, "settleUserRun", a)
}

// StopFromPanel stops a Plugin as a person in the panel does; its model is told.
func (c *Client) StopFromPanel(ctx context.Context, a page.PanelPluginArgs) error {
	return c.Call(ctx, "stopFromPanel", a, nil)
}

// UndefineFromPanel removes a Plugin with its Packages as a person in the panel does.
func (c *Client) UndefineFromPanel(ctx context.Context, a page.PanelPluginArgs) (dynamic.UndefineOutput, error) {
	return call[dynamic.UndefineOutput](ctx, c, "undefineFromPanel", a)
}

// RevokeGrant withdraws a Package's grant, the grant for future versions, or both, and
// returns the Plugin's grants.
func (c *Client) RevokeGrant(ctx context.Context, a page.RevokeArgs) (runner.Grants, error) {
	return call[runner.Grants](ctx, c, "revokeGrant", a)
}

// ReportRenderFailure reports that a live run's client UI crashed while rendering.
func (c *Client) ReportRenderFailure(ctx context.Context, a RenderFailureArgs) error {
	return c.Call(ctx, "reportRenderFailure", a, nil)
}

// ReportClientGuardFailure reports that the client guard refused code of a live run.
func (c *Client) ReportClientGuardFailure(ctx context.Context, a GuardFailureArgs) error {
	return c.Call(ctx, "reportClientGuardFailure", a, nil)
}

// Inventory returns the Plugins the token may see, bounded as the page reads them.
func (c *Client) Inventory(ctx context.Context) (runner.InventoryPage, error) {
	return call[runner.InventoryPage](ctx, c, "inventory", nil)
}

// Invoke calls a handler of a live run with the run's capability and returns its JSON
// result; a failure is an *Error whose code is a page.InvokeCode.
func (c *Client) Invoke(ctx context.Context, a page.InvokeArgs) (json.RawMessage, error) {
	return call[json.RawMessage](ctx, c, "invoke", a)
}

// SyncInspectManifest replaces the client inspect providers of a page (the page id of
// its stream's Connected event).
func (c *Client) SyncInspectManifest(ctx context.Context, a inspect.SyncManifestArgs) error {
	return c.Call(ctx, "syncInspectManifest", a, nil)
}

// ResolveInspectQuery answers a client inspect query the page was asked.
func (c *Client) ResolveInspectQuery(ctx context.Context, a inspect.ResolveQueryArgs) (page.Accepted, error) {
	return call[page.Accepted](ctx, c, "resolveInspectQuery", a)
}

// Activity returns the activity list the token may see, newest first.
func (c *Client) Activity(ctx context.Context) ([]Activity, error) {
	return call[[]Activity](ctx, c, "activity", nil)
}

// ReviewPackage returns a Package as its approval card shows it: both halves, and what
// changed since the version the person last let run.
func (c *Client) ReviewPackage(ctx context.Context, a page.ReviewArgs) (PackageReview, error) {
	return call[PackageReview](ctx, c, "reviewPackage", a)
}
