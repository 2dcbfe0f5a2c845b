package panel

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/cordiskit/cordiskit/kit"
	"github.com/cordiskit/cordiskit/runner"
	"github.com/cordiskit/cordiskit/runner/inspect"
)

// An entry is one event as it goes on the stream. Every event belongs to one session (the
// owner of its Plugin, request or query) or, when that is not known, to none; a session's
// streams carry only its own, the operator's every one (package doc, "Sessions and
// people").
type entry struct {
	seq     uint64 // its place among every event: the operator's ids
	session string // the session it belongs to; "" when none is known (the operator's only)
	sseq    uint64 // its place among its session's events: that session's ids
	name    string
	data    []byte
}

// A hub keeps the last events for streams that resume, and the run requests still
// pending for streams that start fresh (a page that opens after the model asked must
// still be able to answer). Listeners append under mu and never block the emitter.
type hub struct {
	epoch string // per Handler: an id from another process (or handler) never resumes
	max   int

	mu   sync.Mutex
	seq  uint64
	ring []entry // the last max events, oldest first
	// last is each session's latest sseq; lost the seq of its latest event dropped from
	// the ring (a stream of the session that is behind it cannot be replayed).
	last, lost map[string]uint64
	pending    map[string]entry // cordis/request-run by request id, until resolved
	pendingOf  map[string]int   // pending entries per session: each session keeps up to max
	// settled keeps how the last max requests ended, oldest first, so an answer that
	// comes too late (another page answered first) is told what happened.
	settled   []settledRequest
	owners    owners
	subs      map[chan struct{}]struct{}
	streams   int
	streamsOf map[string]int // open streams per session
	closed    bool

	done chan struct{}
	wg   sync.WaitGroup // open streams
}

func newHub(max int) *hub {
	return &hub{epoch: rand.Text()[:8], max: max, last: map[string]uint64{}, lost: map[string]uint64{},
		pending: map[string]entry{}, pendingOf: map[string]int{}, owners: newOwners(),
		subs: map[chan struct{}]struct{}{}, streamsOf: map[string]int{}, done: make(chan struct{})}
}

// listenRunner registers the runner's events on c (the "cordis-panel" plugin). Each
// event is filed under its session: named in its payload, or the owner of its Plugin,
// request or query as the hub learnt it.
func (h *Handler) listenRunner(c *kit.Context) error {
	hb := h.hub
	regs := []func() (func(), error){
		func() (func(), error) {
			return runner.RequestRun.On(c, func(p runner.RequestRunEvent) { hb.request(p) })
		},
		func() (func(), error) {
			return runner.RequestRunResolved.On(c, func(p runner.RequestRunResolvedEvent) {
				session := hb.requestSession(p.RequestID, p.PluginID)
				hb.publish(session, "", RequestRunResolved{p.RequestID, p.PluginID, p.Outcome})
				hb.resolve(p.RequestID, session, p.Outcome)
			})
		},
		func() (func(), error) {
			return runner.DynamicPackage.On(c, func(p runner.DynamicPackageEvent) {
				hb.publish(hb.pluginSession(p.PluginID), "", DynamicPackage{p.PluginID, p.PackageID, p.PluginRunID, p.Name})
			})
		},
		func() (func(), error) {
			return runner.DynamicRetract.On(c, func(p runner.DynamicRetractEvent) {
				hb.publish(hb.pluginSession(p.PluginID), "", DynamicRetract{p.PluginID, p.PackageID, p.PluginRunID})
			})
		},
		func() (func(), error) {
			return runner.DefinitionChanged.On(c, func(p runner.DefinitionChangedEvent) {
				if p.Change == runner.Defined {
					hb.own(func(o *owners) { o.plugins[p.PluginID] = p.Session })
				}
				hb.publish(p.Session, "", DefinitionChanged{p.Session, p.PluginID, p.PackageID, p.Change})
				if p.Change == runner.Undefined {
					hb.own(func(o *owners) { delete(o.plugins, p.PluginID) })
				}
			})
		},
		func() (func(), error) {
			return inspect.Query.On(c, func(p inspect.QueryEvent) {
				w := InspectQuery{RequestID: p.RequestID, Session: p.Session, Provider: p.Provider, Method: p.Method}
				if json.Valid([]byte(p.Input)) {
					w.Input = json.RawMessage(p.Input)
				}
				hb.own(func(o *owners) { o.queries[p.RequestID] = p.Session })
				hb.publish(p.Session, "", w)
				h.declineForOthers(p)
			})
		},
		func() (func(), error) {
			return inspect.QueryResolved.On(c, func(p inspect.QueryResolvedEvent) {
				var session string
				hb.own(func(o *owners) { session = o.queries[p.RequestID]; delete(o.queries, p.RequestID) })
				hb.publish(session, "", InspectQueryResolved{RequestID: p.RequestID})
			})
		},
	}
	for _, reg := range regs {
		if _, err := reg(); err != nil {
			return err
		}
	}
	return nil
}

// request files run request p, announced or listed (adopt): its session owns it and its
// Plugin, streams get it, and fresh streams are offered it until it is resolved. One the
// hub has already is left alone (the runner lists a request before it announces it), as
// is one it heard resolved (a stop can resolve a request before its announcement
// arrives).
func (hb *hub) request(p runner.RequestRunEvent) {
	ev := RequestRun{p.RequestID, p.Ticket, p.Session, p.PluginID, p.PackageID, p.Mode, p.Name, p.Purpose, p.RequiresApproval, p.HasClientHalf}
	data, err := json.Marshal(ev)
	if err != nil {
		return // plain data: cannot happen
	}
	hb.mu.Lock()
	defer hb.mu.Unlock()
	if _, known := hb.pending[p.RequestID]; known || slices.ContainsFunc(hb.settled, func(s settledRequest) bool { return s.id == p.RequestID }) {
		return
	}
	hb.owners.plugins[p.PluginID], hb.owners.requests[p.RequestID] = p.Session, p.Session
	hb.append(ev.EventName(), p.Session, p.RequestID, data)
}

// adopt files the run requests that were pending when the handler started listening, as
// the runner lists them (runner.Runner.PendingRequests): those it announced before the
// handler existed, such as the restarts of runner.Options.RestartAtBoot, which New
// announces before it returns. Every page that connects is offered them like the ones the
// handler heard announced.
func (h *Handler) adopt(ctx context.Context) error {
	qs, err := h.r.PendingRequests(ctx, runner.InventoryScope{Every: true})
	if err != nil {
		return err
	}
	for _, q := range qs {
		h.hub.request(q)
	}
	return nil
}

// publish appends event v of session and wakes every stream. pendingID, when set, keeps
// the event for fresh streams until the request is resolved.
func (hb *hub) publish(session, pendingID string, v Payload) {
	data, err := json.Marshal(v)
	if err != nil {
		return // the wire structs are plain data: cannot happen
	}
	hb.mu.Lock()
	defer hb.mu.Unlock()
	hb.append(v.EventName(), session, pendingID, data)
}

// append is publish with the event's JSON. hb.mu held.
func (hb *hub) append(name, session, pendingID string, data []byte) {
	if hb.closed {
		return
	}
	hb.seq++
	e := entry{seq: hb.seq, session: session, name: name, data: data}
	if session != "" {
		hb.last[session]++
		e.sseq = hb.last[session]
	}
	hb.ring = append(hb.ring, e)
	if n := len(hb.ring) - hb.max; n > 0 {
		for _, d := range hb.ring[:n] {
			if d.session != "" {
				hb.lost[d.session] = d.seq
			}
		}
		hb.ring = slices.Delete(hb.ring, 0, n)
	}
	// Each session keeps its own pending requests: another session's cannot crowd them out.
	if _, dup := hb.pending[pendingID]; pendingID != "" && !dup && hb.pendingOf[session] < hb.max {
		hb.pending[pendingID] = e
		hb.pendingOf[session]++
	}
	for ch := range hb.subs {
		select {
		case ch <- struct{}{}:
		default: // already woken
		}
	}
}

// A settledRequest is how a run request ended.
type settledRequest struct {
	id      string
	session string
	outcome runner.Outcome
}

func (hb *hub) resolve(id, session string, outcome runner.Outcome) {
	hb.mu.Lock()
	defer hb.mu.Unlock()
	if e, ok := hb.pending[id]; ok {
		delete(hb.pending, id)
		if hb.pendingOf[e.session]--; hb.pendingOf[e.session] <= 0 {
			delete(hb.pendingOf, e.session)
		}
	}
	delete(hb.owners.requests, id)
	hb.settled = append(hb.settled, settledRequest{id, session, outcome})
	if n := len(hb.settled) - hb.max; n > 0 {
		hb.settled = slices.Delete(hb.settled, 0, n)
	}
}

// outcome is how request id ended, when sc may know it; "" when it is pending, unknown,
// long gone or another session's.
func (hb *hub) outcome(sc scope, id string) runner.Outcome {
	hb.mu.Lock()
	defer hb.mu.Unlock()
	for _, s := range slices.Backward(hb.settled) {
		if s.id == id {
			if !sc.sees(s.session) {
				return ""
			}
			return s.outcome
		}
	}
	return ""
}

func (hb *hub) isClosed() bool {
	hb.mu.Lock()
	defer hb.mu.Unlock()
	return hb.closed
}

func (hb *hub) close() {
	hb.mu.Lock()
	defer hb.mu.Unlock()
	if !hb.closed {
		hb.closed = true
		close(hb.done)
	}
}

// wait waits for every stream to end.
func (hb *hub) wait(ctx context.Context) error {
	ch := make(chan struct{})
	go func() { hb.wg.Wait(); close(ch) }()
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("panel: closing: event streams still open: %w", ctx.Err())
	}
}

// sessionStreams is how many of max streams one session may hold open, so that one
// person's tabs (or a script with their token) cannot take every stream.
func sessionStreams(max int) int { return (max + 3) / 4 }

// join registers a stream of sc; an error when the hub is closed or full, or sc's session
// holds its share already.
func (hb *hub) join(max int, sc scope) (chan struct{}, error) {
	hb.mu.Lock()
	defer hb.mu.Unlock()
	switch {
	case hb.closed:
		return nil, fmt.Errorf("the Cordis panel has been shut down")
	case hb.streams >= max:
		return nil, fmt.Errorf("%d event streams are open already (panel.Options.MaxStreams); close other panel tabs and reload", max)
	case !sc.all() && hb.streamsOf[sc.session] >= sessionStreams(max):
		return nil, fmt.Errorf("this session has %d panel pages open already, as many as one session may (a quarter of panel.Options.MaxStreams); close some of its tabs and reload", hb.streamsOf[sc.session])
	}
	hb.streams++
	if !sc.all() {
		hb.streamsOf[sc.session]++
	}
	hb.wg.Add(1)
	ch := make(chan struct{}, 1)
	hb.subs[ch] = struct{}{}
	return ch, nil
}

func (hb *hub) leave(ch chan struct{}, sc scope) {
	hb.mu.Lock()
	delete(hb.subs, ch)
	hb.streams--
	if !sc.all() {
		if hb.streamsOf[sc.session]--; hb.streamsOf[sc.session] == 0 {
			delete(hb.streamsOf, sc.session)
		}
	}
	hb.mu.Unlock()
	hb.wg.Done()
}

// since returns the events sc sees after position cursor (a seq), or ok=false when some
// of them were dropped (the stream is too far behind) or the cursor is not this hub's. A
// session's stream is behind only when one of its own events was dropped: other
// sessions' events passing by do not make it reload.
func (hb *hub) since(sc scope, cursor uint64) (es []entry, last uint64, ok bool) {
	hb.mu.Lock()
	defer hb.mu.Unlock()
	if cursor > hb.seq {
		return nil, hb.seq, false
	}
	if sc.all() {
		if len(hb.ring) > 0 && cursor+1 < hb.ring[0].seq {
			return nil, hb.seq, false
		}
	} else if hb.lost[sc.session] > cursor {
		return nil, hb.seq, false
	}
	i, _ := slices.BinarySearchFunc(hb.ring, cursor+1, func(e entry, s uint64) int { return cmpU(e.seq, s) })
	for _, e := range hb.ring[i:] {
		if sc.sees(e.session) {
			es = append(es, e)
		}
	}
	return es, hb.seq, true
}

// snapshot returns the pending run requests sc sees, oldest first, the current position
// and the id of that position on sc's streams.
func (hb *hub) snapshot(sc scope) ([]entry, uint64, string) {
	hb.mu.Lock()
	defer hb.mu.Unlock()
	es := make([]entry, 0, len(hb.pending))
	for _, e := range hb.pending {
		if sc.sees(e.session) {
			es = append(es, e)
		}
	}
	slices.SortFunc(es, func(a, b entry) int { return cmpU(a.seq, b.seq) })
	if sc.all() {
		return es, hb.seq, hb.id(hb.seq)
	}
	return es, hb.seq, hb.sessionID(hb.last[sc.session])
}

func cmpU(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// id is the SSE id of position seq on the operator's streams: "<epoch>-<seq>".
func (hb *hub) id(seq uint64) string { return hb.epoch + "-" + strconv.FormatUint(seq, 10) }

// sessionID is the SSE id of a session's event sseq: "<epoch>-s<sseq>". A session's ids
// count only its own events, so they say nothing of how busy the other sessions are.
func (hb *hub) sessionID(sseq uint64) string {
	return hb.epoch + "-s" + strconv.FormatUint(sseq, 10)
}

// idOf is the SSE id of e on sc's streams.
func (hb *hub) idOf(sc scope, e entry) string {
	if sc.all() {
		return hb.id(e.seq)
	}
	return hb.sessionID(e.sseq)
}

// cursor parses a Last-Event-ID of this hub for a stream of sc into a position (a seq);
// false when it is another hub's, another kind of stream's, or no longer in the ring.
func (hb *hub) cursor(sc scope, last string) (uint64, bool) {
	ep, n, ok := strings.Cut(last, "-")
	if !ok || ep != hb.epoch {
		return 0, false
	}
	if sc.all() {
		seq, err := strconv.ParseUint(n, 10, 64)
		return seq, err == nil
	}
	n, ok = strings.CutPrefix(n, "s")
	sseq, err := strconv.ParseUint(n, 10, 64)
	if !ok || err != nil {
		return 0, false
	}
	hb.mu.Lock()
	defer hb.mu.Unlock()
	switch {
	case sseq > hb.last[sc.session]:
		return 0, false
	case sseq == 0:
		return 0, hb.lost[sc.session] == 0 // nothing of the session was ever dropped
	}
	for _, e := range hb.ring {
		if e.session == sc.session && e.sseq == sseq {
			return e.seq, true
		}
	}
	return 0, false
}

// serveEvents streams the runner's events that the request's scope sees (package doc,
// "Events" and "Sessions and people").
func (h *Handler) serveEvents(w http.ResponseWriter, req *http.Request) {
	hb := h.hub
	sc := scopeOf(req)
	wake, err := hb.join(h.opts.MaxStreams, sc)
	if err != nil {
		writeError(w, http.StatusServiceUnavailable, "unavailable", err.Error())
		return
	}
	defer hb.leave(wake, sc)
	// The page's client inspect providers live as long as this stream (docs/dynamic-plugins.md,
	// "Client providers and queries").
	page := h.r.Inspect().ConnectPage(req.Context())
	hb.own(func(o *owners) { o.pages[page] = sc.session })
	defer hb.own(func(o *owners) { delete(o.pages, page) })
	s := &stream{w: w, rc: http.NewResponseController(w), timeout: h.opts.WriteTimeout, hb: hb, sc: sc}
	hdr := w.Header()
	hdr.Set("Content-Type", "text/event-stream")
	hdr.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	s.write(retryField)

	cursor, resumed := hb.cursor(sc, req.Header.Get("Last-Event-ID"))
	if resumed {
		if _, _, ok := hb.since(sc, cursor); !ok {
			resumed = false
		}
	}
	hello, _ := json.Marshal(Connected{Resumed: resumed, Page: page}) // plain data: cannot fail
	if !resumed {
		cursor = s.fresh(Connected{}.EventName(), hello)
	} else {
		s.event(Connected{}.EventName(), "", hello)
	}
	beat := time.NewTicker(h.opts.Heartbeat)
	defer beat.Stop()
	for s.err == nil {
		es, last, ok := hb.since(sc, cursor)
		if !ok {
			// Too far behind: what was dropped cannot be replayed, so the page reloads.
			cursor = s.fresh(Reset{}.EventName(), behind)
			continue
		}
		for _, e := range es {
			s.event(e.name, hb.idOf(sc, e), e.data)
		}
		cursor = last
		s.flush()
		select {
		case <-wake:
		case <-beat.C:
			s.comment("ping")
		case <-hb.done:
			return
		case <-req.Context().Done():
			return
		}
	}
}

// behind is the data of the cordis/reset of a stream that fell behind.
var behind, _ = json.Marshal(Reset{Reason: "behind"})

// retryField opens every stream: an EventSource whose stream drops comes back after
// half a second (with its Last-Event-ID) instead of the browser's default of about 3 s.
const retryField = "retry: 500\n\n"

// A stream writes one SSE response; the first failed write ends it.
type stream struct {
	w       http.ResponseWriter
	rc      *http.ResponseController
	timeout time.Duration
	hb      *hub
	sc      scope // what the stream's page may see
	err     error
}

// fresh starts the stream (again) from now: the named event telling the page to reset
// its inventory, then the pending run requests. It returns the new cursor.
func (s *stream) fresh(name string, data []byte) uint64 {
	pending, seq, id := s.hb.snapshot(s.sc)
	s.event(name, id, data)
	for _, e := range pending {
		if e.seq <= seq {
			s.event(e.name, "", e.data) // no id: the cursor stays where the reset put it
		}
	}
	s.flush()
	return seq
}

func (s *stream) event(name, id string, data []byte) {
	var b strings.Builder
	b.WriteString("event: " + name + "\n")
	if id != "" {
		b.WriteString("id: " + id + "\n")
	}
	b.WriteString("data: ")
	b.Write(data) // JSON from json.Marshal has no raw newlines
	b.WriteString("\n\n")
	s.write(b.String())
}

func (s *stream) comment(c string) {
	s.write(": " + c + "\n\n")
	s.flush()
}

func (s *stream) write(text string) {
	if s.err != nil {
		return
	}
	_ = s.rc.SetWriteDeadline(time.Now().Add(s.timeout)) // unsupported by some writers: then unbounded
	_, s.err = s.w.Write([]byte(text))
}

func (s *stream) flush() {
	if s.err == nil {
		if err := s.rc.Flush(); err != nil && !errors.Is(err, http.ErrNotSupported) {
			s.err = err
		}
	}
}
