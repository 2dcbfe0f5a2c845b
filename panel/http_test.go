package panel

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/cordiskit/cordiskit/runner"
	"github.com/cordiskit/cordiskit/runner/page"
	"github.com/cordiskit/cordiskit/tooldecl/dynamic"
)

func TestNoTokenIs401(t *testing.T) {
	e := newEnv(t, nil)
	for _, c := range []struct{ method, path string }{{"GET", "/"}, {"GET", "/events"}, {"GET", "/frame"}, {"GET", "/assets/panel.js"}, {"POST", "/rpc/inventory"}} {
		res, body := e.do(c.method, c.path, "{}", false, nil)
		if res.StatusCode != 401 || !strings.Contains(body, `"code":"unauthorized"`) || !strings.Contains(body, "Authorization: Bearer <token>") {
			t.Errorf("%s %s = %d %s", c.method, c.path, res.StatusCode, body)
		}
	}
	res, body := e.do("POST", "/rpc/inventory", "{}", false, map[string]string{"Authorization": "Bearer nope"})
	if res.StatusCode != 401 {
		t.Errorf("wrong bearer = %d %s", res.StatusCode, body)
	}
}

func TestTokenSetsCookieAndLeavesTheAddress(t *testing.T) {
	e := newEnv(t, &Options{Base: "/cordis"})
	if u := e.h.URL(e.srv.URL); u != e.srv.URL+"/cordis/?token=test-token" {
		t.Fatalf("URL = %s", u)
	}
	res, body := e.do("GET", "/cordis/?token=wrong", "", false, nil)
	if res.StatusCode != 401 || !strings.Contains(body, `"code":"bad-token"`) {
		t.Fatalf("wrong token = %d %s", res.StatusCode, body)
	}
	res, _ = e.do("GET", "/cordis/?token=test-token&x=1", "", false, nil)
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/cordis/?x=1" {
		t.Fatalf("first load = %d, Location %q", res.StatusCode, res.Header.Get("Location"))
	}
	cs := res.Cookies()
	if len(cs) != 1 || cs[0].Name != CookieName || cs[0].Value != "test-token" || !cs[0].HttpOnly || cs[0].SameSite != http.SameSiteStrictMode || cs[0].Path != "/cordis/" {
		t.Fatalf("cookie = %+v", cs)
	}
	res, body = e.do("GET", "/cordis/", "", false, map[string]string{"Cookie": CookieName + "=test-token"})
	if res.StatusCode != 200 || !strings.Contains(body, `<meta name="cordis-base" content="/cordis/">`) ||
		!strings.Contains(res.Header.Get("Content-Security-Policy"), "script-src 'self'") || res.Header.Get("Referrer-Policy") != "no-referrer" {
		t.Fatalf("page = %d %v %s", res.StatusCode, res.Header, body)
	}
	if res, _ := e.do("GET", "/elsewhere", "", true, nil); res.StatusCode != 404 {
		t.Fatalf("outside the base = %d", res.StatusCode)
	}
}

func TestForeignOriginIs403(t *testing.T) {
	e := newEnv(t, &Options{Origins: []string{"https://agent.example"}})
	for origin, want := range map[string]int{"http://evil.example": 403, "null": 403, e.srv.URL: 200, "https://agent.example": 200} {
		res, body := e.do("POST", "/rpc/inventory", "{}", true, map[string]string{"Origin": origin})
		if res.StatusCode != want {
			t.Errorf("Origin %s = %d %s, want %d", origin, res.StatusCode, body, want)
		}
		if want == 403 && !strings.Contains(body, `"code":"foreign-origin"`) {
			t.Errorf("Origin %s: %s", origin, body)
		}
	}
}

func TestOnlyLoopbackByDefault(t *testing.T) {
	e := newEnv(t, nil)
	req := httptest.NewRequest("GET", "/", nil) // from 192.0.2.1
	req.Header.Set("Authorization", "Bearer test-token")
	w := httptest.NewRecorder()
	e.h.ServeHTTP(w, req)
	if w.Code != 403 || !strings.Contains(w.Body.String(), `"code":"not-loopback"`) {
		t.Fatalf("remote = %d %s", w.Code, w.Body)
	}
	e2 := newEnv(t, &Options{AllowRemote: true})
	w = httptest.NewRecorder()
	e2.h.ServeHTTP(w, req)
	if w.Code != 200 {
		t.Fatalf("remote allowed = %d %s", w.Code, w.Body)
	}
}

func TestBadVerbRequests(t *testing.T) {
	e := newEnv(t, &Options{MaxBodyBytes: 64})
	for _, c := range []struct {
		method, path, body string
		status             int
		code, says         string
	}{
		{"POST", "/rpc/stopFromPanel", "{not json", 400, "bad-request", "session, pluginId"},
		{"POST", "/rpc/stopFromPanel", `{"agentId":"s1","pluginId":"x"}`, 400, "bad-request", `the field "agentId" is now "session"`},
		{"POST", "/rpc/stopFromPanel", `["x"]`, 400, "bad-request", "not a JSON object"},
		{"POST", "/rpc/stopFromPanel", `{"session":"s1","plugin":"x"}`, 400, "bad-request", `unknown field "plugin"`},
		{"POST", "/rpc/stopFromPanel", `{"session":"s1"} {}`, 400, "bad-request", "data after its JSON object"},
		{"POST", "/rpc/stopFromPanel", `{"session":"` + strings.Repeat("x", 100) + `"}`, 413, "too-large", "MaxBodyBytes"},
		{"POST", "/rpc/launch", `{}`, 404, "unknown-verb", "getClientCode, inventory, invoke"},
		{"GET", "/rpc/inventory", ``, 405, "method-not-allowed", "POST"},
	} {
		res, body := e.do(c.method, c.path, c.body, true, nil)
		var en Answer
		_ = json.Unmarshal([]byte(body), &en)
		if res.StatusCode != c.status || en.Error == nil || en.Error.Code != c.code || !strings.Contains(en.Error.Message, c.says) {
			t.Errorf("%s %s %q = %d %s; want %d %s containing %q", c.method, c.path, c.body, res.StatusCode, body, c.status, c.code, c.says)
		}
	}
}

func TestVerbsOverHTTP(t *testing.T) {
	e := newEnv(t, nil)
	var inv runner.InventoryPage
	e.value("inventory", nil, &inv)
	if rows := inv.Rows; rows == nil || len(rows) != 0 || inv.Plugins != 0 || inv.Truncated {
		t.Fatalf("empty inventory = %+v", inv)
	}
	d := e.define(clockHost, "")
	e.value("inventory", struct{}{}, &inv)
	if rows := inv.Rows; len(rows) != 1 || rows[0].PluginID != d.PluginID || rows[0].Session != "s1" || rows[0].ActiveRun != nil || inv.Plugins != 1 || inv.Omitted != 0 || inv.Truncated {
		t.Fatalf("inventory = %+v", inv)
	}
	var hh page.HostHalfResult
	e.value("runHostHalf", map[string]any{"session": "s1", "pluginId": d.PluginID, "packageId": d.PackageID, "mode": "run", "requestId": nil, "approveFutureVersions": false}, &hh)
	if !hh.OK || hh.Capability == "" || hh.PluginRunID != "run-1" {
		t.Fatalf("runHostHalf = %+v", hh)
	}
	var out map[string]any
	e.value("invoke", map[string]any{"pluginId": d.PluginID, "pluginRunId": hh.PluginRunID, "capability": hh.Capability, "method": "now", "args": map[string]int{"x": 1}}, &out)
	if out["t"] != float64(42) {
		t.Fatalf("invoke = %v", out)
	}
	// A refusal is an error answer with the runner's code and its teaching message.
	for _, c := range []struct {
		verb string
		args map[string]any
		code string
	}{
		{"invoke", map[string]any{"pluginId": d.PluginID, "pluginRunId": hh.PluginRunID, "capability": "guess", "method": "now"}, "invalid-capability"},
		{"invoke", map[string]any{"pluginId": d.PluginID, "pluginRunId": hh.PluginRunID, "capability": hh.Capability, "method": "nope"}, "method-not-found"},
		{"getClientCode", map[string]any{"session": "s1", "pluginId": d.PluginID, "pluginRunId": hh.PluginRunID}, "invalid-input"},
		{"stopFromPanel", map[string]any{"session": "s2", "pluginId": d.PluginID}, "plugin-missing"},
	} {
		status, en := e.call(c.verb, c.args)
		if status != 200 || en.OK || en.Error == nil || en.Error.Code != c.code || en.Error.Message == "" {
			t.Errorf("%s %v = %d %+v, want code %s", c.verb, c.args, status, en.Error, c.code)
		}
	}
	var stop map[string]bool
	e.value("stopFromPanel", map[string]any{"session": "s1", "pluginId": d.PluginID}, &stop)
	if !stop["ok"] {
		t.Fatalf("stop = %v", stop)
	}
	_, en := e.call("invoke", map[string]any{"pluginId": d.PluginID, "pluginRunId": hh.PluginRunID, "capability": hh.Capability, "method": "now"})
	if en.OK || en.Error.Code != "plugin-not-running" {
		t.Fatalf("invoke after stop = %+v", en.Error)
	}
	var un dynamic.UndefineOutput
	e.value("undefineFromPanel", map[string]any{"session": "s1", "pluginId": d.PluginID}, &un)
	inv = runner.InventoryPage{}
	e.value("inventory", nil, &inv)
	if un.PluginID != d.PluginID || inv.Rows == nil || len(inv.Rows) != 0 || inv.Plugins != 0 {
		t.Fatalf("undefine = %+v, inventory %+v", un, inv)
	}
	if m := e.r.Messages("s1"); len(m) != 3 || !strings.Contains(m[0].Text, "The user ran clock-1/pkg-1 (run-1)") || !strings.Contains(m[1].Text, "The user stopped clock-1") || !strings.Contains(m[2].Text, "The user removed clock-1") {
		t.Fatalf("the model was told = %+v", m)
	}
}

func TestAssets(t *testing.T) {
	e := newEnv(t, nil)
	res, body := e.do("GET", "/frame", "", true, nil)
	csp := res.Header.Get("Content-Security-Policy")
	if res.StatusCode != 200 || !strings.Contains(csp, "sandbox allow-scripts") || strings.Contains(csp, "allow-same-origin") || !strings.Contains(csp, "connect-src 'none'") ||
		!strings.Contains(body, "React") || strings.Contains(body, "test-token") {
		t.Fatalf("frame = %d %q", res.StatusCode, csp)
	}
	for path, ct := range map[string]string{"/assets/panel.js": "text/javascript; charset=utf-8", "/assets/panel.css": "text/css; charset=utf-8", "/assets/vendor/react.production.min.js": "text/javascript; charset=utf-8"} {
		if res, _ := e.do("GET", path, "", true, nil); res.StatusCode != 200 || res.Header.Get("Content-Type") != ct {
			t.Errorf("%s = %d %s", path, res.StatusCode, res.Header.Get("Content-Type"))
		}
	}
	if res, body := e.do("GET", "/assets/../panel.go", "", true, nil); res.StatusCode == 200 || strings.Contains(body, "package panel") {
		t.Errorf("escape = %d %s", res.StatusCode, body)
	}
	if res, _ := e.do("GET", "/assets/vendor/refresh.sh", "", true, nil); res.StatusCode != 404 {
		t.Errorf("refresh.sh = %d", res.StatusCode)
	}
}

// rawGet sends one GET with target exactly as written (a Go client would clean it) and
// returns the status and the Location header.
func (e *env) rawGet(target string) (int, string) {
	e.t.Helper()
	conn, err := net.Dial("tcp", e.srv.Listener.Addr().String())
	if err != nil {
		e.t.Fatal(err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := fmt.Fprintf(conn, "GET %s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n", target, e.srv.Listener.Addr()); err != nil {
		e.t.Fatal(err)
	}
	res, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		e.t.Fatalf("GET %s: %v", target, err)
	}
	res.Body.Close()
	return res.StatusCode, res.Header.Get("Location")
}

// asBrowser resolves a Location as a browser does: backslashes read as slashes, and tabs
// and newlines are dropped, before the reference is resolved against the page's address.
func asBrowser(t *testing.T, base, loc string) *url.URL {
	t.Helper()
	loc = strings.NewReplacer("\\", "/", "\t", "", "\n", "", "\r", "").Replace(loc)
	b, _ := url.Parse(base)
	ref, err := url.Parse(loc)
	if err != nil {
		t.Fatalf("Location %q does not parse: %v", loc, err)
	}
	return b.ResolveReference(ref)
}

// The token login redirects to the panel's own origin, under its base, whatever the path:
// an attacker's link to //evil.example/?token=… on the panel's port must not send the
// person's browser (and its fresh cookie's context) off site.
func TestTokenLoginRedirectStaysOnOrigin(t *testing.T) {
	for _, base := range []string{"/", "/cordis/"} {
		e := newPeopleEnv(t, &Options{Base: base})
		host := e.srv.Listener.Addr().String()
		for _, target := range []string{
			"//evil.example/?token=T",
			"//evil.example/%2e%2e/?token=T&x=1",
			"/\\evil.example/?token=T",
			"/\\/evil.example?token=T",
			"/%2F%2Fevil.example?token=T",
			"/%5Cevil.example?token=T",
			"/%5C%5Cevil.example?token=T",
			"/%09/evil.example?token=T",
			"///evil.example?token=T",
			"/.//evil.example?token=T",
			"//evil.example?token=T",
			"/%2e%2e/%2e%2e/outside?token=T",
			"/a/%2e%2e/%2e%2e/%2e%2e/outside/?token=T",
			"/..%2F..%2Foutside?token=T",
		} {
			for _, tok := range []string{"test-token", aliceToken} {
				target := strings.TrimSuffix(base, "/") + strings.Replace(target, "token=T", "token="+tok, 1)
				status, loc := e.rawGet(target)
				u := asBrowser(t, "http://"+host+"/", loc)
				if status != http.StatusSeeOther || u.Host != host || !strings.HasPrefix(u.Path, base) ||
					strings.HasPrefix(loc, "//") || strings.HasPrefix(loc, "/\\") || strings.ContainsAny(loc, "\t\r\n\\") || strings.Contains(loc, "token=") {
					t.Errorf("base %s: GET %s = %d, Location %q (a browser goes to %s)", base, target, status, loc, u)
				}
			}
		}
		// The ordinary login still comes back to the same page, without the token.
		if status, loc := e.rawGet(strings.TrimSuffix(base, "/") + "/?token=test-token&x=1"); status != 303 || loc != base+"?x=1" {
			t.Errorf("base %s: the ordinary login = %d %q", base, status, loc)
		}
		if base != "/" {
			if status, loc := e.rawGet("/cordis?token=test-token"); status != 303 || loc != "/cordis/" {
				t.Errorf("the login at the base without its slash = %d %q", status, loc)
			}
		}
	}
}
