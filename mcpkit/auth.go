package mcpkit

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"unicode"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// HTTPOptions says who may use a Server over HTTP (ServeHTTP, Server.HTTPHandler): the
// bearer tokens it accepts, the session each one proves, and the browser origins it lets
// in. A nil *HTTPOptions accepts no token, so ServeHTTP and HTTPHandler refuse to start
// and say what to set. See the package doc, "Many clients over HTTP".
type HTTPOptions struct {
	// Tokens are the bearer tokens a client may send (the header "Authorization: Bearer
	// TOKEN" on every request), each with the session it proves. A request without one of
	// them is answered 401 with a WWW-Authenticate header, and a request on a client
	// session that another token opened is answered 403, so a client that learns another's
	// Mcp-Session-Id cannot use it.
	Tokens []Token
	// AllowedOrigins are the origins ("https://app.example": scheme, host and port, as a
	// browser sends them in the Origin header) whose requests are let through. A request
	// that carries any other Origin is answered 403, as MCP's transport requires against
	// DNS rebinding: a web page the user opens must not reach a local server. MCP clients
	// that are not browsers send no Origin. A browser client of an allowed origin also
	// needs CORS headers, which the server it is mounted in adds.
	AllowedOrigins []string
	// TokenHelp, if set, ends the message of every 401: where the person behind a client
	// finds a token (for instance "the server prints one on stderr at start").
	TokenHelp string
	// InsecureNoToken serves every request that reaches the address without a token:
	// anyone who can connect (any local process, for a loopback address) can then run
	// every tool, and each client session is its own session as over stdio. Set it only
	// when something in front of the handler authenticates every request; Tokens must then
	// be empty.
	InsecureNoToken bool
	// Limits bounds what one request may hold of the server: its body's size and the time
	// it takes to arrive. The zero value means the defaults (HTTPLimits).
	Limits HTTPLimits
}

// A Token is a bearer token a Server accepts over HTTP and the session it proves.
type Token struct {
	// Token is the secret a client sends: at least MinTokenLength characters of the
	// bearer-token alphabet (letters, digits and - . _ ~ + / =), such as crypto/rand.Text
	// returns. Each token is listed once.
	Token string
	// Session is the session every client that sends Token is (kit.WithSession): the
	// Plugins of a durable store are found again by any client with a token of this name,
	// after a restart too. "" makes each client session that sends Token its own
	// ephemeral session, as over stdio, never found again once the client goes. A name
	// is at most MaxSessionNameLength bytes of printable characters without spaces and
	// does not begin with "mcp-", the prefix of the ephemeral ones.
	Session string
}

// MinTokenLength is the shortest Token.Token a Server accepts: a token guessable in
// reasonable time would open its session, and its Plugins' host halves, to anyone.
const MinTokenLength = 16

// MaxSessionNameLength bounds Token.Session.
const MaxSessionNameLength = 128

// ErrNoHTTPToken is the error of ServeHTTP and HTTPHandler on a Server whose Options.HTTP
// lists no token and does not set InsecureNoToken.
var ErrNoHTTPToken = errors.New("mcpkit: MCP over HTTP needs a bearer token, and Options.HTTP lists none: " +
	"set Options.HTTP.Tokens (for instance one Token{Token: rand.Text()} for your clients, from crypto/rand), " +
	"or Options.HTTP.InsecureNoToken if something in front of the handler authenticates every request")

// CheckToken reports what is wrong with t, in words that say how to fix it, or nil.
func CheckToken(t Token) error {
	var errs []error
	switch {
	case t.Token == "":
		errs = append(errs, errors.New("the token is empty; use a random one such as crypto/rand.Text returns"))
	case len(t.Token) < MinTokenLength:
		errs = append(errs, fmt.Errorf("the token has %d characters, fewer than %d, so it could be guessed; use a random one such as crypto/rand.Text returns", len(t.Token), MinTokenLength))
	}
	if i := strings.IndexFunc(t.Token, func(r rune) bool { return !isTokenChar(r) }); i >= 0 {
		errs = append(errs, fmt.Errorf("the token has %q at byte %d; a bearer token is letters, digits and - . _ ~ + / =", t.Token[i:i+1], i))
	}
	if err := checkSessionName(t.Session); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

func isTokenChar(r rune) bool {
	return r < unicode.MaxASCII && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-._~+/=", r))
}

func checkSessionName(name string) error {
	switch {
	case name == "":
		return nil
	case len(name) > MaxSessionNameLength:
		return fmt.Errorf("the session name has %d bytes, more than %d; choose a shorter one", len(name), MaxSessionNameLength)
	case strings.HasPrefix(name, ephemeralPrefix):
		return fmt.Errorf("the session name %q begins with %q, the prefix of the ephemeral sessions mcpkit names itself; choose another name (or \"\" for an ephemeral session)", name, ephemeralPrefix)
	case strings.IndexFunc(name, func(r rune) bool { return !unicode.IsPrint(r) || unicode.IsSpace(r) }) >= 0:
		return fmt.Errorf("the session name %q has a space or a character that does not print; use letters, digits and punctuation", name)
	}
	return nil
}

// An httpGuard is what HTTPOptions became: the checks every HTTP request passes before the
// SDK's handler sees it. It does not change once built.
type httpGuard struct {
	tokens   map[[sha256.Size]byte]*auth.TokenInfo // by the token's hash: no lookup compares secrets
	sessions map[*auth.TokenInfo]string            // the session each TokenInfo proves ("": ephemeral)
	origins  map[string]bool
	help     string
	insecure bool
}

// newHTTPGuard checks o and builds its guard; a nil o is a guard that accepts no token.
func newHTTPGuard(o *HTTPOptions) (*httpGuard, error) {
	g := &httpGuard{tokens: map[[sha256.Size]byte]*auth.TokenInfo{}, sessions: map[*auth.TokenInfo]string{}, origins: map[string]bool{}}
	if o == nil {
		return g, nil
	}
	g.help, g.insecure = o.TokenHelp, o.InsecureNoToken
	var errs []error
	if o.InsecureNoToken && len(o.Tokens) > 0 {
		errs = append(errs, errors.New("InsecureNoToken serves requests without a token, and Tokens lists tokens to require: set one of the two"))
	}
	for i, t := range o.Tokens {
		if err := CheckToken(t); err != nil {
			//lint:ignore ST1005 the message begins with the field it names
			errs = append(errs, fmt.Errorf("Tokens[%d] (session %q): %w", i, t.Session, err))
			continue
		}
		sum := sha256.Sum256([]byte(t.Token))
		if _, dup := g.tokens[sum]; dup {
			//lint:ignore ST1005 the message begins with the field it names
			errs = append(errs, fmt.Errorf("Tokens[%d] (session %q): the token is listed twice; a token proves one session", i, t.Session))
			continue
		}
		// The SDK refuses a request on a client session whose creator had another UserID.
		// Tokens of one name prove one person, so they share one; each token without a name
		// is its own.
		user := "session:" + t.Session
		if t.Session == "" {
			user = "ephemeral:" + strconv.Itoa(i)
		}
		ti := &auth.TokenInfo{UserID: user}
		g.tokens[sum], g.sessions[ti] = ti, t.Session
	}
	for i, o := range o.AllowedOrigins {
		norm, err := normalOrigin(o)
		if err != nil {
			errs = append(errs, fmt.Errorf("AllowedOrigins[%d]: %w", i, err))
			continue
		}
		g.origins[norm] = true
	}
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("mcpkit: Options.HTTP: %w", err)
	}
	return g, nil
}

// normalOrigin is an origin as a browser sends it, lowercased: scheme://host[:port].
func normalOrigin(o string) (string, error) {
	u, err := url.Parse(o)
	if err != nil || u.Scheme == "" || u.Host == "" || u.User != nil || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" {
		return "", fmt.Errorf("%q is not an origin; write scheme://host[:port], such as https://app.example", o)
	}
	return strings.ToLower(u.Scheme + "://" + u.Host), nil
}

// wrap puts the guard's checks in front of next: the Origin first (a page of another site
// gets 403 whatever it sends), then the bearer token through the SDK's RequireBearerToken,
// whose TokenInfo the SDK's handler keeps per client session.
func (g *httpGuard) wrap(next http.Handler) (http.Handler, error) {
	if len(g.tokens) == 0 && !g.insecure {
		return nil, ErrNoHTTPToken
	}
	inner := next
	if !g.insecure {
		inner = auth.RequireBearerToken(g.verify, &auth.RequireBearerTokenOptions{AllowMissingExpiration: true})(next)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if origin := r.Header.Get("Origin"); origin != "" {
			if norm, err := normalOrigin(origin); err != nil || !g.origins[norm] {
				http.Error(w, fmt.Sprintf("mcpkit: a request from origin %q is refused: a web page may not call this MCP server "+
					"(a defence against DNS rebinding); if that origin is a client of yours, add it to the server's HTTPOptions.AllowedOrigins", origin), http.StatusForbidden)
				return
			}
		}
		if !g.insecure {
			if _, err := g.token(r); err != nil {
				g.refuse(w, err)
				return
			}
		}
		inner.ServeHTTP(w, r)
	}), nil
}

var (
	errNoBearer  = errors.New("mcpkit: this MCP server needs a bearer token: send the header \"Authorization: Bearer TOKEN\" on every request, with a token the server's operator gave you")
	errBadBearer = errors.New("mcpkit: the bearer token is not one this MCP server accepts: check that it is the current one (a token made per process changes when the server restarts)")
)

// token returns the TokenInfo of the request's bearer token, or why there is none.
func (g *httpGuard) token(r *http.Request) (*auth.TokenInfo, error) {
	scheme, tok, ok := strings.Cut(strings.TrimSpace(r.Header.Get("Authorization")), " ")
	if !ok || !strings.EqualFold(scheme, "bearer") {
		return nil, errNoBearer
	}
	if ti := g.tokens[sha256.Sum256([]byte(strings.TrimSpace(tok)))]; ti != nil {
		return ti, nil
	}
	return nil, errBadBearer
}

// refuse answers 401 as RFC 6750 asks: a challenge, with error="invalid_token" when a
// token was sent, and a message a person can act on.
func (g *httpGuard) refuse(w http.ResponseWriter, err error) {
	challenge := `Bearer realm="mcp"`
	if err == errBadBearer {
		challenge += `, error="invalid_token", error_description="the token is not one this server accepts"`
	}
	w.Header().Set("WWW-Authenticate", challenge)
	msg := err.Error()
	if g.help != "" {
		msg += "; " + g.help
	}
	http.Error(w, msg, http.StatusUnauthorized)
}

// verify is the auth.TokenVerifier of RequireBearerToken. wrap has let through only
// requests with an accepted token, so it finds it again.
func (g *httpGuard) verify(_ context.Context, _ string, r *http.Request) (*auth.TokenInfo, error) {
	ti, err := g.token(r)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", auth.ErrInvalidToken, err)
	}
	return ti, nil
}

// session returns the session the request's verified token proves, and whether a token
// of this guard proved one at all ("" with true: an ephemeral session of its own).
func (g *httpGuard) session(extra *mcp.RequestExtra) (name string, proven bool) {
	if extra == nil || extra.TokenInfo == nil {
		return "", false
	}
	name, proven = g.sessions[extra.TokenInfo]
	return name, proven
}
