package panel

import (
	"fmt"
	"net"
	"net/http"
	"net/url"
	"path"
	"slices"
	"strings"
)

// admit runs the checks every request passes before it is routed (package doc, "Who gets
// in"), answering the refusal itself, and returns the request with the scope its token
// grants. The first load with ?token= sets the cookie and redirects to the same address
// without the token, so it stays out of the history and of every Referer.
func (h *Handler) admit(w http.ResponseWriter, req *http.Request) (*http.Request, bool) {
	hdr := w.Header()
	hdr.Set("Referrer-Policy", "no-referrer")
	hdr.Set("X-Content-Type-Options", "nosniff")
	hdr.Set("Cache-Control", "no-store")
	switch {
	case h.hub.isClosed():
		writeError(w, http.StatusServiceUnavailable, "closed", "the Cordis panel has been shut down; restart the runtime and open the new panel address it prints")
		return nil, false
	case !h.opts.AllowRemote && !isLoopback(req.RemoteAddr):
		writeError(w, http.StatusForbidden, "not-loopback", fmt.Sprintf("the Cordis panel only answers requests from this machine (loopback), not from %s; open it on the machine that runs the agent, or set panel.Options.AllowRemote", req.RemoteAddr))
		return nil, false
	}
	if o := req.Header.Get("Origin"); o != "" && !h.ownOrigin(req, o) {
		writeError(w, http.StatusForbidden, "foreign-origin", fmt.Sprintf("requests from origin %q are refused: only the panel's own page (%s) may call it; add the origin to panel.Options.Origins if it is yours", o, origin(req)))
		return nil, false
	}
	if t := req.URL.Query().Get("token"); t != "" && (req.Method == http.MethodGet || req.Method == http.MethodHead) {
		if _, ok := h.scopeFor(t); !ok {
			writeError(w, http.StatusUnauthorized, "bad-token", "the token in the address is not one of this panel's (it changes when the runtime restarts unless configured); open the panel URL the runtime printed or gave you last")
			return nil, false
		}
		if !cookieSafe(t) {
			writeError(w, http.StatusBadRequest, "bad-token", "this token has characters a cookie cannot carry (spaces, quotes, commas, semicolons, backslashes or non-ASCII), so the page could not keep it; send it as Authorization: Bearer <token>, or issue tokens of letters and digits (crypto/rand.Text)")
			return nil, false
		}
		// The cookie keeps the token the person came with: a session's token never
		// becomes the operator's.
		h.setCookie(w, req, t)
		q := req.URL.Query()
		q.Del("token")
		w.Header().Set("Location", h.sameAddress(req.URL.Path, q))
		w.WriteHeader(http.StatusSeeOther)
		return nil, false
	}
	for _, t := range []string{bearer(req), cookie(req)} {
		if sc, ok := h.scopeFor(t); ok {
			return withScope(req, sc), true
		}
	}
	writeError(w, http.StatusUnauthorized, "unauthorized", "the Cordis panel needs its token: open the panel URL with ?token=… that the runtime printed (it sets a cookie), or send Authorization: Bearer <token>")
	return nil, false
}

// sameAddress is where the token login sends the browser: the request's path under the
// handler's base, on the panel's own origin, with query q. The rest of the path after the
// base loses its leading slashes and backslashes and its dot segments, and the whole is
// escaped, so no request path ("//evil.example/", "/\evil.example",
// "/%2F%2Fevil.example", "/%2e%2e/x", a tab that a browser strips) leads to another host
// or out of the base.
func (h *Handler) sameAddress(p string, q url.Values) string {
	rest := strings.TrimPrefix(p, h.opts.Base)
	if p+"/" == h.opts.Base {
		rest = ""
	}
	rest = strings.TrimLeft(rest, "/\\")
	clean := path.Clean("/" + rest)
	if strings.HasSuffix(rest, "/") && clean != "/" {
		clean += "/"
	}
	loc := (&url.URL{Path: h.opts.Base + clean[1:]}).EscapedPath()
	if len(q) > 0 {
		loc += "?" + q.Encode()
	}
	return loc
}

func (h *Handler) setCookie(w http.ResponseWriter, req *http.Request, token string) {
	http.SetCookie(w, &http.Cookie{Name: CookieName, Value: token, Path: h.opts.Base, HttpOnly: true,
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

// cookieSafe reports whether t can be a cookie's value as it is (RFC 6265 cookie-octets).
func cookieSafe(t string) bool {
	return !strings.ContainsFunc(t, func(r rune) bool { return r <= ' ' || r >= 0x7f || strings.ContainsRune("\",;\\", r) })
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
