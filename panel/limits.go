package panel

import (
	"fmt"
	"net/http"
	"time"

	"github.com/cordiskit/cordiskit/internal/bodylimit"
)

// DefaultBodyTimeout is Options.BodyTimeout's default: how long a request's body may
// take to arrive.
const DefaultBodyTimeout = 10 * time.Second

// guardBody bounds req's body before anything else reads it (package doc, "Limits"): a
// Content-Length over Options.MaxBodyBytes is 413 at once, and the body must arrive
// within Options.BodyTimeout. It answers the refusal itself.
func (h *Handler) guardBody(w http.ResponseWriter, req *http.Request) bool {
	err := bodylimit.Guard(w, req, h.opts.MaxBodyBytes, h.opts.BodyTimeout)
	if err == nil {
		return true
	}
	bodylimit.Refuse(w)
	writeError(w, http.StatusRequestEntityTooLarge, "too-large", fmt.Sprintf("%s %s: %v (panel.Options.MaxBodyBytes); send less", req.Method, req.URL.Path, err))
	return false
}

// slowBody answers a verb whose body did not arrive within Options.BodyTimeout, and
// closes the connection: what the client sends after it is the rest of that body.
func (h *Handler) slowBody(w http.ResponseWriter, verb string) {
	bodylimit.Refuse(w)
	writeError(w, http.StatusRequestTimeout, "body-timeout", fmt.Sprintf("%s: the request body did not arrive within %v (panel.Options.BodyTimeout); send the whole body at once", verb, h.opts.BodyTimeout))
}
