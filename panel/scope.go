package panel

import (
	"net/url"
	"strings"
)

// SessionURL returns the address a person holding a session token opens: origin joined
// with the handler's base and token (one that Options.Sessions maps to a session). Like
// URL, the first load sets the cookie and drops the token from the address bar.
func (h *Handler) SessionURL(origin, token string) string {
	return strings.TrimRight(origin, "/") + h.opts.Base + "?token=" + url.QueryEscape(token)
}
