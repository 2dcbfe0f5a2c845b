package panel

import (
	"bytes"
	"embed"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"path"
	"strings"
)

//go:embed assets
var embedded embed.FS

// pageCSP keeps the panel page to its own scripts, styles and frames; nothing is fetched
// from anywhere else and nothing may frame it.
const pageCSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'self'"

// frameCSP sandboxes a client-half frame even when it is opened on its own: an opaque
// origin (no allow-same-origin), inline scripts and eval for the client half, and no
// network at all (connect-src 'none'): it reaches the host only through the page.
const frameCSP = "sandbox allow-scripts; default-src 'none'; script-src 'unsafe-inline' 'unsafe-eval'; style-src 'unsafe-inline'; img-src data: blob:; font-src data:; connect-src 'none'; form-action 'none'; base-uri 'none'"

// assets are the page and the frame document, built once.
type assets struct {
	page  *template.Template
	frame []byte
	files fs.FS
}

func loadAssets() (*assets, error) {
	files, err := fs.Sub(embedded, "assets")
	if err != nil {
		return nil, err
	}
	page, err := template.ParseFS(files, "index.html")
	if err != nil {
		return nil, fmt.Errorf("panel: page template: %w", err)
	}
	frame, err := buildFrame(files)
	if err != nil {
		return nil, err
	}
	return &assets{page: page, frame: frame, files: files}, nil
}

// buildFrame inlines React, ReactDOM and the client runner into the frame document: a
// frame with an opaque origin gets no cookie, so it could not load them by URL.
func buildFrame(files fs.FS) ([]byte, error) {
	tmpl, err := fs.ReadFile(files, "frame.html")
	if err != nil {
		return nil, err
	}
	var scripts strings.Builder
	for _, name := range []string{"vendor/react.production.min.js", "vendor/react-dom.production.min.js", "frame.js"} {
		b, err := fs.ReadFile(files, name)
		if err != nil {
			return nil, err
		}
		if bytes.Contains(bytes.ToLower(b), []byte("</script")) {
			return nil, fmt.Errorf("panel: %s contains </script and cannot be inlined into the frame", name)
		}
		scripts.WriteString("<script>\n")
		scripts.Write(b)
		scripts.WriteString("\n</script>\n")
	}
	return bytes.Replace(tmpl, []byte("<!--scripts-->"), []byte(scripts.String()), 1), nil
}

// pageData is what the page template reads. Scope is "session" for a page opened with a
// session's token (Session is that session, and the page shows only it), "all" for the
// operator's when session tokens exist (Options.Sessions), and "" when there is only the
// operator's; Session is then Options.Session, which #session=<id> can change.
type pageData struct {
	Base, Session, Scope string
}

func (h *Handler) servePage(w http.ResponseWriter, req *http.Request) {
	d := pageData{Base: h.opts.Base, Session: h.opts.Session}
	if h.opts.Sessions != nil {
		d.Scope = "all"
	}
	if sc := scopeOf(req); !sc.all() {
		d.Session, d.Scope = sc.session, "session"
	}
	var b bytes.Buffer
	if err := h.assets.page.Execute(&b, d); err != nil {
		writeError(w, http.StatusInternalServerError, "internal", "rendering the page: "+err.Error())
		return
	}
	w.Header().Set("Content-Security-Policy", pageCSP)
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_, _ = w.Write(b.Bytes())
}

func (h *Handler) serveFrame(w http.ResponseWriter, req *http.Request) {
	w.Header().Set("Content-Security-Policy", frameCSP)
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_, _ = w.Write(h.assets.frame)
}

var contentTypes = map[string]string{".js": "text/javascript; charset=utf-8", ".css": "text/css; charset=utf-8", ".svg": "image/svg+xml"}

func (h *Handler) serveAsset(w http.ResponseWriter, req *http.Request) {
	name := path.Clean(req.PathValue("file"))
	ct, ok := contentTypes[path.Ext(name)]
	b, err := fs.ReadFile(h.assets.files, name)
	if !ok || err != nil {
		writeError(w, http.StatusNotFound, "not-found", fmt.Sprintf("the panel has no asset %q", name))
		return
	}
	w.Header().Set("Content-Type", ct)
	w.Header().Set("Cache-Control", "private, max-age=3600")
	_, _ = w.Write(b)
}
