package panel

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/cordiskit/cordiskit/kit"
	"github.com/cordiskit/cordiskit/runner"
)

// Default bounds of Options.
const (
	DefaultMaxReplay    = 1024
	DefaultMaxStreams   = 64
	DefaultMaxBodyBytes = 1 << 20
	DefaultHeartbeat    = 15 * time.Second
	DefaultWriteTimeout = 10 * time.Second
)

// CookieName is the name of the cookie that carries the panel's token.
const CookieName = "cordis_panel"

// Options configures a Handler. A nil *Options means defaults.
type Options struct {
	// Base is the path the handler is mounted at ("/cordis"); "" means "/". Requests
	// outside it are 404.
	Base string
	// Token authorises requests; "" means a random token per Handler. It is the
	// operator's token: its holder sees and answers every session. Hand the URL with the
	// token (Handler.URL) to the person who runs the agent.
	Token string
	// Sessions maps a person's token to the one session it grants (ok false: not a
	// session token). Its holder sees and answers only that session: its Plugins, its
	// run requests and their tickets, its activity, its client halves. nil means no
	// session tokens: only Token gets in. Handler.SessionURL is the address to hand out.
	Sessions func(token string) (session string, ok bool)
	// AllowRemote lets requests from addresses other than loopback in. The token is still
	// required; serve over TLS when the panel leaves the machine.
	AllowRemote bool
	// Origins lists origins besides the panel's own ("https://agent.example") whose pages
	// may call it; a request with any other Origin header is refused.
	Origins []string
	// Session is the session the page shows as "this session" (the others are grouped
	// apart); a page may pick another with #session=<id> in its URL.
	Session string
	// MaxReplay bounds the events kept for streams that resume with Last-Event-ID; a
	// stream further behind is told to reload its inventory. Default 1024.
	MaxReplay int
	// MaxStreams bounds the event streams open at once; past it a new stream is refused
	// with 503. Default 64.
	MaxStreams int
	// MaxBodyBytes bounds a request's body: a larger one is 413, before a byte of it is
	// read when its Content-Length says so. Default 1 MiB.
	MaxBodyBytes int64
	// BodyTimeout bounds how long a request's body may take to arrive, from when the
	// handler starts; a slower one is 408 and its connection closed. Default 10 seconds.
	BodyTimeout time.Duration
	// Heartbeat is how often an idle stream sends a comment so proxies keep it open.
	// Default 15 seconds.
	Heartbeat time.Duration
	// WriteTimeout bounds one write to a stream; a client that does not read is
	// disconnected. Default 10 seconds.
	WriteTimeout time.Duration
	// Logger receives failures the handler cannot answer with; nil means slog.Default().
	Logger *slog.Logger
}

func (o *Options) withDefaults() Options {
	var c Options
	if o != nil {
		c = *o
	}
	c.Base = "/" + strings.Trim(c.Base, "/")
	if c.Base != "/" {
		c.Base += "/"
	}
	if c.Token == "" {
		c.Token = rand.Text()
	}
	if c.MaxReplay <= 0 {
		c.MaxReplay = DefaultMaxReplay
	}
	if c.MaxStreams <= 0 {
		c.MaxStreams = DefaultMaxStreams
	}
	if c.MaxBodyBytes <= 0 {
		c.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if c.BodyTimeout <= 0 {
		c.BodyTimeout = DefaultBodyTimeout
	}
	if c.Heartbeat <= 0 {
		c.Heartbeat = DefaultHeartbeat
	}
	if c.WriteTimeout <= 0 {
		c.WriteTimeout = DefaultWriteTimeout
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	return c
}

// A Handler serves the panel: the page, the client-half frames, the page verbs and the
// event stream. Close it to end every stream and stop listening to the runner.
type Handler struct {
	opts     Options
	r        *runner.Runner
	fiber    *kit.Fiber // "cordis-panel": the event listeners
	hub      *hub
	activity activityLog
	assets   *assets
	mux      *http.ServeMux
}

// New returns a Handler serving the panel of r. Its event listeners are a child plugin
// ("cordis-panel") of the runner's fiber; Close removes them.
func New(r *runner.Runner, opts *Options) (*Handler, error) {
	if r == nil {
		return nil, errors.New("panel: New needs a *runner.Runner")
	}
	o := opts.withDefaults()
	a, err := loadAssets()
	if err != nil {
		return nil, err
	}
	h := &Handler{opts: o, r: r, hub: newHub(o.MaxReplay), assets: a}
	h.fiber = r.Fiber().Context().Plugin(&kit.Plugin{Name: "cordis-panel", Apply: h.listen})
	if err := h.fiber.Err(); err != nil {
		return nil, fmt.Errorf("panel: listening to the runner's events: %w", err)
	}
	// Listening now, it hears every request from here on; the runner lists the ones
	// announced before (at boot, or before New).
	if err := h.adopt(context.Background()); err != nil {
		return nil, errors.Join(fmt.Errorf("panel: listing the run requests pending before the panel was created: %w", err), h.fiber.Dispose(context.Background()))
	}
	h.routes()
	return h, nil
}

// Token returns the operator's token (Options.Token): it sees and answers every session.
func (h *Handler) Token() string { return h.opts.Token }

// URL returns the address the operator opens: origin ("http://127.0.0.1:8080") joined
// with the handler's base and the operator's token (SessionURL is a session's). The
// first load sets the cookie and drops the token from the address bar.
func (h *Handler) URL(origin string) string {
	return strings.TrimRight(origin, "/") + h.opts.Base + "?token=" + h.opts.Token
}

// ServeHTTP serves one request, after the checks of the package doc (the body's limits,
// loopback, Origin, token).
func (h *Handler) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	if !h.guardBody(w, req) {
		return
	}
	if !strings.HasPrefix(req.URL.Path, h.opts.Base) && req.URL.Path+"/" != h.opts.Base {
		writeError(w, http.StatusNotFound, "not-found", fmt.Sprintf("%s is outside the Cordis panel; open %s", req.URL.Path, h.opts.Base))
		return
	}
	req, ok := h.admit(w, req)
	if !ok {
		return
	}
	h.mux.ServeHTTP(w, req)
}

// Close ends every event stream and waits for them (bounded by ctx), and removes the
// handler's event listeners. Requests after Close are refused with 503.
func (h *Handler) Close(ctx context.Context) error {
	h.hub.close()
	errs := []error{h.hub.wait(ctx), h.fiber.Dispose(ctx)}
	return errors.Join(errs...)
}

func (h *Handler) routes() {
	b := h.opts.Base
	m := http.NewServeMux()
	m.HandleFunc("GET "+b+"{$}", h.servePage)
	m.HandleFunc("GET "+b+"frame", h.serveFrame)
	m.HandleFunc("GET "+b+"assets/{file...}", h.serveAsset)
	m.HandleFunc("GET "+b+"events", h.serveEvents)
	m.HandleFunc("POST "+b+"rpc/{verb}", h.serveVerb)
	m.HandleFunc(b+"rpc/{verb}", func(w http.ResponseWriter, req *http.Request) {
		writeError(w, http.StatusMethodNotAllowed, "method-not-allowed", fmt.Sprintf("%s %s: verbs are called with POST and a JSON object body", req.Method, req.URL.Path))
	})
	m.HandleFunc(b+"{rest...}", func(w http.ResponseWriter, req *http.Request) {
		writeError(w, http.StatusNotFound, "not-found", fmt.Sprintf("%s %s is not part of the Cordis panel: the page is GET %s, verbs are POST %srpc/<verb>, events are GET %sevents", req.Method, req.URL.Path, b, b, b))
	})
	h.mux = m
}
