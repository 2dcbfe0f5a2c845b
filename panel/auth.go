package panel

import (
	"crypto/subtle"
	"fmt"
	"net"
	"net/http"
	"slices"
	"strings"
)

// admit runs the checks every request passes before it is routed (package doc, "Who gets
// in"), answering the refusal itself. The first load with ?token= sets the cookie and
// redirects to the same address without the token, so it stays out of the history and of
// every Referer.
func (h *Handler) admit(w http.ResponseWriter, req *http.Request) bool {
	hdr := w.Header()
	hdr.Set("Referrer-Policy", "no-referrer")
	hdr.Set("X-Content-Type-Options", "nosniff")
	hdr.Set("Cache-Control", "no-store")
	switch {
	case h.hub.isClosed():
		writeError(w, http.StatusServiceUnavailable, "closed", "the Cordis panel has been shut down; restart the runtime and open the new panel address it prints")
		return false
	case !h.opts.AllowRemote && !isLoopback(req.RemoteAddr):
		writeError(w, http.StatusForbidden, "not-loopback", fmt.Sprintf("the Cordis panel only answers requests from this machine (loopback), not from %s; open it on the machine that runs the agent, or set panel.Options.AllowRemote", req.RemoteAddr))
		return false
	}
	if o := req.Header.Get("Origin"); o != "" && !h.ownOrigin(req, o) {
		writeError(w, http.StatusForbidden, "foreign-origin", fmt.Sprintf("requests from origin %q are refused: only the panel's own page (%s) may call it; add the origin to panel.Options.Origins if it is yours", o, origin(req)))
		return false
	}
	if t := req.URL.Query().Get("token"); t != "" && (req.Method == http.MethodGet || req.Method == http.MethodHead) {
		if !h.tokenOK(t) {
			writeError(w, http.StatusUnauthorized, "bad-token", "the token in the address does not match this panel's token (it changes when the runtime restarts unless configured); open the panel URL the runtime printed last")
			return false
		}
		h.setCookie(w, req)
		q := req.URL.Query()
		q.Del("token")
		u := *req.URL
		u.RawQuery = q.Encode()
		http.Redirect(w, req, u.RequestURI(), http.StatusSeeOther)
		return false
	}
	if h.tokenOK(bearer(req)) || h.tokenOK(cookie(req)) {
		return true
	}
	writeError(w, http.StatusUnauthorized, "unauthorized", "the Cordis panel needs its token: open the panel URL with ?token=… that the runtime printed (it sets a cookie), or send Authorization: Bearer <token>")
	return false
}

func (h *Handler) tokenOK(t string) bool {
	return t != "" && subtle.ConstantTimeCompare([]byte(t), []byte(h.opts.Token)) == 1
}

func (h *Handler) setCookie(w http.ResponseWriter, req *http.Request) {
	http.SetCookie(w, &http.Cookie{Name: CookieName, Value: h.opts.Token, Path: h.opts.Base, HttpOnly: true,
		SameSite: http.SameSiteStrictMode, Secure: req.TLS != nil})
}

// ownOrigin reports whether o is the origin the request was addressed to, or one the
// options allow. A sandboxed frame's origin is "null" and never matches.
func (h *Handler) ownOrigin(req *http.Request, o string) bool {
	return o == origin(req) || slices.Contains(h.opts.Origins, o)
}

func origin(req *http.Request) string {
	scheme := "http"
	if req.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + req.Host
}

func bearer(req *http.Request) string {
	a := req.Header.Get("Authorization")
	if t, ok := strings.CutPrefix(a, "Bearer "); ok {
		return strings.TrimSpace(t)
	}
	return ""
}

func cookie(req *http.Request) string {
	c, err := req.Cookie(CookieName)
	if err != nil {
		return ""
	}
	return c.Value
}

func isLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		host = addr
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
