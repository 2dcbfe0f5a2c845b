package inspect

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/cordiskit/cordiskit/runner/page"
)

// Client inspect providers live in the panel pages (docs/dynamic-plugins.md, "Client
// providers and queries"). Unlike the original's one process-wide mirror that the last
// page to publish overwrites and that outlives every page, each page's manifest is its own
// and lasts only while the page is connected; a query is asked of the pages that publish
// its method, and settles on the first valid answer, on a failure from every page asked,
// or at its deadline.

// maxFailureBytes bounds a page's failure message as the model is shown it.
const maxFailureBytes = 1000

// A connectedPage is a connected page as the inspect registry knows it.
type connectedPage struct {
	id        string
	providers []*entry      // its manifest, in the order it published it
	stop      func() bool   // stops the disconnect callback (context.AfterFunc)
	gone      chan struct{} // closed once the disconnect callback finished or can no longer run
}

// entry returns the page's provider id, or nil.
func (p *connectedPage) entry(id string) *entry {
	for _, e := range p.providers {
		if e.manifest.ID == id {
			return e
		}
	}
	return nil
}

// A clientQuery is a pending cordis_inspect_query on the client platform.
type clientQuery struct {
	id, session, provider, method string
	// waiting holds the pages asked that have not answered, each with the outputSchema it
	// published for the method: a page's answer is judged by its own manifest.
	waiting  map[*connectedPage]*schemaOf
	failures []string // the answers of pages that failed, deduplicated

	settled bool
	done    chan struct{} // closed when settled; data and err are then final
	data    json.RawMessage
	err     error
}

// ConnectPage registers a connected panel page and returns its id, an unguessable secret
// the page passes back to SyncManifest and ResolveQuery. The page stays
// connected until ctx is done — the panel passes the context of the page's event stream —
// so its manifest expires with it: its providers leave cordis_inspect_list, and the
// client queries it was asked settle without it.
func (reg *Registry) ConnectPage(ctx context.Context) string {
	p := &connectedPage{id: "page-" + page.NewSecret(), gone: make(chan struct{})}
	reg.mu.Lock()
	defer reg.mu.Unlock()
	if reg.closed {
		close(p.gone)
		return p.id
	}
	reg.pages = append(reg.pages, p)
	p.stop = context.AfterFunc(ctx, func() {
		defer close(p.gone)
		reg.pageGone(p)
	})
	return p.id
}

// pageGone drops page p: its manifest, and its place in the queries it was asked; a query
// no page is left to answer settles.
func (reg *Registry) pageGone(p *connectedPage) {
	reg.mu.Lock()
	i := slices.Index(reg.pages, p)
	if i < 0 {
		reg.mu.Unlock()
		return
	}
	reg.pages = slices.Delete(reg.pages, i, i+1)
	var settled []string
	for _, q := range reg.queries {
		if _, asked := q.waiting[p]; !asked {
			continue
		}
		delete(q.waiting, p)
		if len(q.waiting) == 0 && reg.settle(q, nil, q.unanswered()) {
			settled = append(settled, q.id)
		}
	}
	reg.mu.Unlock()
	slices.Sort(settled)
	for _, id := range settled {
		reg.queryResolved(id)
	}
}

// Close settles every pending client query (the runner is going away) and waits for
// the pages' disconnect callbacks. A closed registry refuses registrations, manifests
// and queries.
func (reg *Registry) Close() {
	reg.mu.Lock()
	reg.closed = true
	pages := reg.pages
	reg.pages = nil
	for _, q := range reg.queries {
		reg.settle(q, nil, page.Refuse(page.ReasonClosed, "client inspect query %s.%s was cancelled: the dynamic-plugin runner has been shut down", q.provider, q.method))
	}
	reg.mu.Unlock()
	for _, p := range pages {
		if p.stop() {
			close(p.gone)
		}
		<-p.gone
	}
}

// pageByID returns the connected page id, or nil. reg.mu held.
func (reg *Registry) pageByID(id string) *connectedPage {
	for _, p := range reg.pages {
		if page.SameSecret(id, p.id) {
			return p
		}
	}
	return nil
}

// clientProviders merges the connected pages' manifests: each provider id once, where the
// oldest page that publishes it placed it, with the methods of every page (the first
// page's version of a method wins). reg.mu held.
func (reg *Registry) clientProviders() []*entry {
	var out []*entry
	byID := map[string]*entry{}
	for _, p := range reg.pages {
		for _, e := range p.providers {
			m := byID[e.manifest.ID]
			if m == nil {
				m = &entry{manifest: Manifest{ID: e.manifest.ID, Description: e.manifest.Description}, methods: map[string]*methodSchemas{}}
				byID[e.manifest.ID] = m
				out = append(out, m)
			}
			for _, dm := range e.manifest.Methods {
				if m.methods[dm.Name] == nil {
					m.methods[dm.Name] = e.methods[dm.Name]
					m.manifest.Methods = append(m.manifest.Methods, dm)
				}
			}
		}
	}
	return out
}

// SyncManifestArgs are the arguments of syncInspectManifest. Page is the id
// ConnectPage gave the page (an addition to the wire's providers).
type SyncManifestArgs struct {
	Page      string     `json:"page"`      // the page id from cordis/connected
	Providers []Manifest `json:"providers"` // the page's client inspect providers; they replace what it published before
}

// SyncManifest replaces the client inspect providers page a.Page publishes
// (docs/dynamic-plugins.md, "Client providers and queries") with a.Providers, each checked
// like a host provider's manifest; a repeated id, or more than Options.MaxMethods
// methods in all, is refused and changes nothing. Other pages' manifests are untouched.
func (reg *Registry) SyncManifest(a SyncManifestArgs) error {
	n := 0
	for _, m := range a.Providers {
		n += len(m.Methods)
	}
	if n > reg.opts.MaxMethods {
		return page.Refuse(page.ReasonInvalid, "syncInspectManifest: the manifest lists %d methods; a page may publish at most %d (runner.Options.MaxInspectMethods) over all its providers", n, reg.opts.MaxMethods)
	}
	entries := make([]*entry, 0, len(a.Providers))
	for i, m := range a.Providers {
		e, err := compileManifest(m, fmt.Sprintf("syncInspectManifest: providers[%d]", i))
		if err != nil {
			return page.Refuse(page.ReasonInvalid, "%v", err)
		}
		if slices.ContainsFunc(entries, func(o *entry) bool { return o.manifest.ID == e.manifest.ID }) {
			return page.Refuse(page.ReasonInvalid, "syncInspectManifest: provider %q is listed twice; publish each provider once", e.manifest.ID)
		}
		entries = append(entries, e)
	}
	reg.mu.Lock()
	defer reg.mu.Unlock()
	if reg.closed {
		return page.Refuse(page.ReasonClosed, "syncInspectManifest: the dynamic-plugin runner has been shut down")
	}
	p := reg.pageByID(a.Page)
	if p == nil {
		return page.Refuse(page.ReasonNotAuthorised, "syncInspectManifest: the page is not connected (unknown or expired page id); reconnect the event stream and publish with the page id it gives")
	}
	p.providers = entries
	return nil
}

// queryClient sends a client query to the pages that publish the method and waits for
// their answer, the tool call's end or the deadline (docs/dynamic-plugins.md, "Client
// providers and queries").
func (reg *Registry) queryClient(ctx context.Context, session, provider, method string, input, given json.RawMessage) (json.RawMessage, error) {
	q, err := reg.askPages(ctx, session, provider, method, input)
	if err != nil {
		return nil, err
	}
	ev := QueryEvent{RequestID: q.id, Session: session, Provider: provider, Method: method}
	if t := bytes.TrimSpace(given); len(t) > 0 && string(t) != "null" {
		ev.Input = string(t)
	}
	Query.Emit(reg.host(), ev)
	timer := time.NewTimer(reg.opts.QueryTimeout)
	defer timer.Stop()
	select {
	case <-q.done:
	case <-ctx.Done():
		reg.settleQuery(q, nil, queryCancelled(provider, method, context.Cause(ctx)))
	case <-timer.C:
		reg.settleQuery(q, nil, page.Refuse(page.ReasonExpired, "client inspect query %s.%s (%s) expired: no connected panel page answered within %s. The page may be closed, in the background or busy; ask the user to open or reload the panel and query again, or continue without it",
			provider, method, q.id, reg.opts.QueryTimeout))
	}
	<-q.done
	return q.data, q.err
}

// askPages checks a client query and records it, with the pages that publish its method.
func (reg *Registry) askPages(ctx context.Context, session, provider, method string, input json.RawMessage) (*clientQuery, error) {
	reg.mu.Lock()
	defer reg.mu.Unlock()
	if reg.closed {
		return nil, page.Refuse(page.ReasonClosed, "the dynamic-plugin runner has been shut down; nothing can be inspected")
	}
	providers := reg.clientProviders()
	i := slices.IndexFunc(providers, func(e *entry) bool { return e.manifest.ID == provider })
	if i < 0 {
		ids := make([]string, len(providers))
		for j, e := range providers {
			ids[j] = e.manifest.ID
		}
		return nil, page.Refuse(page.ReasonInvalid, "client inspect provider %q is not published by any connected panel page; client providers now: %s. Client providers exist only while a panel page is open: call cordis_inspect_list, or ask the user to open the panel", provider, idsOrNone(ids))
	}
	if _, err := checkCall(providers[i], "client", method, input); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, queryCancelled(provider, method, err)
	}
	reg.nextID++
	q := &clientQuery{id: fmt.Sprintf("inspect-%d", reg.nextID), session: session, provider: provider, method: method,
		waiting: map[*connectedPage]*schemaOf{}, done: make(chan struct{})}
	for _, p := range reg.pages {
		if e := p.entry(provider); e != nil {
			if m, ok := e.method(method); ok {
				q.waiting[p] = m.out
			}
		}
	}
	reg.queries[q.id] = q
	return q, nil
}

// settle settles q once; it reports whether this call did. reg.mu held.
func (reg *Registry) settle(q *clientQuery, data json.RawMessage, err error) bool {
	if q.settled {
		return false
	}
	q.settled, q.data, q.err = true, data, err
	delete(reg.queries, q.id)
	close(q.done)
	return true
}

// settleQuery settles q and, if this call did, tells the pages.
func (reg *Registry) settleQuery(q *clientQuery, data json.RawMessage, err error) {
	reg.mu.Lock()
	ok := reg.settle(q, data, err)
	reg.mu.Unlock()
	if ok {
		reg.queryResolved(q.id)
	}
}

func (reg *Registry) queryResolved(id string) {
	QueryResolved.Emit(reg.host(), QueryResolvedEvent{RequestID: id})
}

// unanswered is the error of a query no page asked is left to answer.
func (q *clientQuery) unanswered() error {
	if len(q.failures) == 0 {
		return page.Refuse(page.ReasonProviderError, "client inspect query %s.%s (%s): every panel page that publishes it closed before answering; ask the user to reopen the panel and query again, or continue without it", q.provider, q.method, q.id)
	}
	return page.Refuse(page.ReasonProviderError, "client inspect provider %s.%s failed on every connected page that publishes it: %s. Do not repeat the same query unchanged: fix the input if the message names it, or continue without this provider", q.provider, q.method, strings.Join(q.failures, "; "))
}

// Resolution is a page's answer to a client inspect query: OK with Data, or a
// failure.
type Resolution struct {
	OK    bool            `json:"ok"`              // the page answered with Data
	Data  json.RawMessage `json:"data,omitempty"`  // the method's data, valid against the outputSchema this page published
	Error *Failure        `json:"error,omitempty"` // why the page cannot answer, when not OK
}

// Failure is why a page could not answer: provider-missing, method-missing,
// invalid-input or provider-error, and a message.
type Failure struct {
	Code    string `json:"code"`    // provider-missing, method-missing, invalid-input or provider-error
	Message string `json:"message"` // what went wrong
}

// ResolveQueryArgs are the arguments of resolveInspectQuery. Page is the id
// ConnectPage gave the page (an addition to the wire's session, requestId, resolution).
type ResolveQueryArgs struct {
	Page       string     `json:"page"`       // the page id from cordis/connected
	Session    string     `json:"session"`    // the query's session
	RequestID  string     `json:"requestId"`  // the query, "inspect-N"
	Resolution Resolution `json:"resolution"` // the page's answer
}

// ResolveQuery takes a page's answer to a client inspect query (docs/dynamic-plugins.md,
// "Client providers and queries"). Only a
// page that was asked (it published the method when the query was made) answers, once.
// Valid data — JSON that satisfies the outputSchema that page published — settles the
// query; a failure, or data its schema rejects, is counted as that page's failure, and the
// query fails with every page's reason once every page asked has failed (the original
// drops failures, so a query no page can answer hangs). Accepted says whether the answer
// was counted; Message says why not, or that it counted as a failure.
func (reg *Registry) ResolveQuery(a ResolveQueryArgs) page.Accepted {
	reg.mu.Lock()
	q := reg.queries[a.RequestID]
	var p *connectedPage
	var out *schemaOf
	switch {
	case q == nil:
		reg.mu.Unlock()
		return page.Accepted{Message: fmt.Sprintf("inspect query %q is not pending: it was answered, cancelled or expired", a.RequestID)}
	case q.session != a.Session:
		reg.mu.Unlock()
		return page.Accepted{Message: fmt.Sprintf("inspect query %s was not asked for agent %q", q.id, a.Session)}
	default:
		p = reg.pageByID(a.Page)
		out = q.waiting[p]
	}
	if p == nil || out == nil {
		reg.mu.Unlock()
		return page.Accepted{Message: fmt.Sprintf("this page may not answer inspect query %s: it is not connected, did not publish %s.%s when the query was made, or already answered", q.id, q.provider, q.method)}
	}
	delete(q.waiting, p)
	data, failure := judge(out, a.Resolution)
	settled := false
	if failure == "" {
		settled = reg.settle(q, data, nil)
	} else {
		if !slices.Contains(q.failures, failure) {
			q.failures = append(q.failures, failure)
		}
		if len(q.waiting) == 0 {
			settled = reg.settle(q, nil, q.unanswered())
		}
	}
	reg.mu.Unlock()
	if settled {
		reg.queryResolved(q.id)
	}
	if failure != "" && a.Resolution.OK {
		return page.Accepted{Accepted: true, Message: "counted as this page's failure: " + failure}
	}
	return page.Accepted{Accepted: true}
}

// judge returns a page's valid data, or the failure its answer counts as.
func judge(out *schemaOf, res Resolution) (json.RawMessage, string) {
	if !res.OK {
		code, msg := "provider-error", "the page gave no reason"
		if f := res.Error; f != nil {
			code, msg = cmp.Or(f.Code, code), cmp.Or(strings.TrimSpace(f.Message), msg)
		}
		return nil, code + ": " + clip(msg, maxFailureBytes)
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, res.Data); err != nil {
		return nil, "the page answered data that is not JSON"
	}
	if err := out.validate(buf.Bytes()); err != nil {
		return nil, clip("the page answered data its outputSchema rejects: "+err.Error(), maxFailureBytes)
	}
	return buf.Bytes(), ""
}

// clip cuts s to at most n bytes on a rune boundary, marking the cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
