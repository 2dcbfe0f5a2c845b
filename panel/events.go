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
)

// The wire payloads of the streamed events, with the names of spec §9.
type (
	requestRunWire struct {
		RequestID        string      `json:"requestId"`
		Ticket           string      `json:"ticket"`
		AgentID          string      `json:"agentId"`
		PluginID         string      `json:"pluginId"`
		PackageID        string      `json:"packageId"`
		Mode             runner.Mode `json:"mode"`
		Name             string      `json:"name"`
		Purpose          string      `json:"purpose"`
		RequiresApproval bool        `json:"requiresApproval"`
		HasClientHalf    bool        `json:"hasClientHalf"`
	}
	resolvedWire struct {
		RequestID string         `json:"requestId"`
		PluginID  string         `json:"pluginId"`
		Outcome   runner.Outcome `json:"outcome"`
	}
	runWire struct {
		PluginID    string `json:"pluginId"`
		PackageID   string `json:"packageId"`
		PluginRunID string `json:"pluginRunId"`
		Name        string `json:"name,omitempty"`
	}
	definitionWire struct {
		AgentID   string                  `json:"agentId"`
		PluginID  string                  `json:"pluginId"`
		PackageID string                  `json:"packageId,omitempty"`
		Change    runner.DefinitionChange `json:"change"`
	}
	// connectedWire starts every stream. Page is the id the runner gave this connection
	// (runner.ConnectPage): the page passes it to syncInspectManifest and
	// resolveInspectQuery, and it expires when the stream ends.
	connectedWire struct {
		Resumed bool   `json:"resumed"`
		Page    string `json:"page"`
	}
	inspectWire struct {
		RequestID string          `json:"requestId"`
		AgentID   string          `json:"agentId,omitempty"`
		Provider  string          `json:"provider,omitempty"`
		Method    string          `json:"method,omitempty"`
		Input     json.RawMessage `json:"input,omitempty"`
	}
)

// An entry is one event as it goes on the stream.
type entry struct {
	seq  uint64
	name string
	data []byte
}

// A hub keeps the last events for streams that resume, and the run requests still
// pending for streams that start fresh (a page that opens after the model asked must
// still be able to answer). Listeners append under mu and never block the emitter.
type hub struct {
	epoch string // per Handler: an id from another process (or handler) never resumes
	max   int

	mu      sync.Mutex
	seq     uint64
	ring    []entry          // the last max events, oldest first
	pending map[string]entry // cordis/request-run by request id, until resolved
	// settled keeps how the last max requests ended, oldest first, so an answer that
	// comes too late (another page answered first) is told what happened.
	settled []settledRequest
	subs    map[chan struct{}]struct{}
	streams int
	closed  bool

	done chan struct{}
	wg   sync.WaitGroup // open streams
}

func newHub(max int) *hub {
	return &hub{epoch: rand.Text()[:8], max: max, pending: map[string]entry{}, subs: map[chan struct{}]struct{}{}, done: make(chan struct{})}
}

// listen registers the runner's events on c (the "cordis-panel" plugin).
func (hb *hub) listen(c *kit.Context) error {
	regs := []func() (func(), error){
		func() (func(), error) {
			return runner.RequestRun.On(c, func(p runner.RequestRunEvent) {
				hb.publish("cordis/request-run", p.RequestID, requestRunWire{p.RequestID, p.Ticket, p.AgentID, p.PluginID, p.PackageID, p.Mode, p.Name, p.Purpose, p.RequiresApproval, p.HasClientHalf})
			})
		},
		func() (func(), error) {
			return runner.RequestRunResolved.On(c, func(p runner.RequestRunResolvedEvent) {
				hb.publish("cordis/request-run-resolved", "", resolvedWire{p.RequestID, p.PluginID, p.Outcome})
				hb.resolve(p.RequestID, p.Outcome)
			})
		},
		func() (func(), error) {
			return runner.DynamicPackage.On(c, func(p runner.DynamicPackageEvent) {
				hb.publish("cordis/dynamic-package", "", runWire{p.PluginID, p.PackageID, p.PluginRunID, p.Name})
			})
		},
		func() (func(), error) {
			return runner.DynamicRetract.On(c, func(p runner.DynamicRetractEvent) {
				hb.publish("cordis/dynamic-retract", "", runWire{p.PluginID, p.PackageID, p.PluginRunID, ""})
			})
		},
		func() (func(), error) {
			return runner.DefinitionChanged.On(c, func(p runner.DefinitionChangedEvent) {
				hb.publish("cordis/definition-changed", "", definitionWire{p.AgentID, p.PluginID, p.PackageID, p.Change})
			})
		},
		func() (func(), error) {
			return runner.InspectQuery.On(c, func(p runner.InspectQueryEvent) {
				w := inspectWire{RequestID: p.RequestID, AgentID: p.AgentID, Provider: p.Provider, Method: p.Method}
				if json.Valid([]byte(p.Input)) {
					w.Input = json.RawMessage(p.Input)
				}
				hb.publish("cordis/inspect-query", "", w)
			})
		},
		func() (func(), error) {
			return runner.InspectQueryResolved.On(c, func(p runner.InspectQueryResolvedEvent) {
				hb.publish("cordis/inspect-query-resolved", "", inspectWire{RequestID: p.RequestID})
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

// publish appends an event and wakes every stream. pendingID, when set, keeps the event
// for fresh streams until the request is resolved.
func (hb *hub) publish(name, pendingID string, v any) {
	data, err := json.Marshal(v)
	if err != nil {
		return // the wire structs are plain data: cannot happen
	}
	hb.mu.Lock()
	defer hb.mu.Unlock()
	if hb.closed {
		return
	}
	hb.seq++
	e := entry{seq: hb.seq, name: name, data: data}
	hb.ring = append(hb.ring, e)
	if len(hb.ring) > hb.max {
		hb.ring = slices.Delete(hb.ring, 0, len(hb.ring)-hb.max)
	}
	if pendingID != "" && len(hb.pending) < hb.max {
		hb.pending[pendingID] = e
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
	outcome runner.Outcome
}

func (hb *hub) resolve(id string, outcome runner.Outcome) {
	hb.mu.Lock()
	defer hb.mu.Unlock()
	delete(hb.pending, id)
	hb.settled = append(hb.settled, settledRequest{id, outcome})
	if n := len(hb.settled) - hb.max; n > 0 {
		hb.settled = slices.Delete(hb.settled, 0, n)
	}
}

// outcome is how request id ended; "" when it is pending, unknown or long gone.
func (hb *hub) outcome(id string) runner.Outcome {
	hb.mu.Lock()
	defer hb.mu.Unlock()
	for _, s := range slices.Backward(hb.settled) {
		if s.id == id {
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

// join registers a stream; false when the hub is closed or full.
func (hb *hub) join(max int) (chan struct{}, error) {
	hb.mu.Lock()
	defer hb.mu.Unlock()
	switch {
	case hb.closed:
		return nil, fmt.Errorf("the Cordis panel has been shut down")
	case hb.streams >= max:
		return nil, fmt.Errorf("%d event streams are open already (panel.Options.MaxStreams); close other panel tabs and reload", max)
	}
	hb.streams++
	hb.wg.Add(1)
	ch := make(chan struct{}, 1)
	hb.subs[ch] = struct{}{}
	return ch, nil
}

func (hb *hub) leave(ch chan struct{}) {
	hb.mu.Lock()
	delete(hb.subs, ch)
	hb.streams--
	hb.mu.Unlock()
	hb.wg.Done()
}

// since returns the events after cursor, or ok=false when some of them were dropped
// (the stream is too far behind, or the cursor is not this hub's).
func (hb *hub) since(cursor uint64) (es []entry, last uint64, ok bool) {
	hb.mu.Lock()
	defer hb.mu.Unlock()
	if cursor > hb.seq || len(hb.ring) > 0 && cursor+1 < hb.ring[0].seq {
		return nil, hb.seq, false
	}
	i, _ := slices.BinarySearchFunc(hb.ring, cursor+1, func(e entry, s uint64) int { return cmpU(e.seq, s) })
	return slices.Clone(hb.ring[i:]), hb.seq, true
}

// snapshot returns the pending run requests, oldest first, and the current position.
func (hb *hub) snapshot() ([]entry, uint64) {
	hb.mu.Lock()
	defer hb.mu.Unlock()
	es := make([]entry, 0, len(hb.pending))
	for _, e := range hb.pending {
		es = append(es, e)
	}
	slices.SortFunc(es, func(a, b entry) int { return cmpU(a.seq, b.seq) })
	return es, hb.seq
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

// id is the SSE id of position seq.
func (hb *hub) id(seq uint64) string { return hb.epoch + "-" + strconv.FormatUint(seq, 10) }

// cursor parses a Last-Event-ID of this hub.
func (hb *hub) cursor(last string) (uint64, bool) {
	ep, n, ok := strings.Cut(last, "-")
	if !ok || ep != hb.epoch {
		return 0, false
	}
	seq, err := strconv.ParseUint(n, 10, 64)
	return seq, err == nil
}

// serveEvents streams the runner's events (package doc, "Events").
func (h *Handler) serveEvents(w http.ResponseWriter, req *http.Request) {
	hb := h.hub
	wake, err := hb.join(h.opts.MaxStreams)
	if err != nil {
		writeError(w, http.StatusServiceUnavailable, "unavailable", err.Error())
		return
	}
	defer hb.leave(wake)
	// The page's client inspect providers live as long as this stream (spec §13.1).
	page := h.r.ConnectPage(req.Context())
	s := &stream{w: w, rc: http.NewResponseController(w), timeout: h.opts.WriteTimeout, hb: hb}
	hdr := w.Header()
	hdr.Set("Content-Type", "text/event-stream")
	hdr.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	s.write(retryField)

	cursor, resumed := hb.cursor(req.Header.Get("Last-Event-ID"))
	if resumed {
		if _, _, ok := hb.since(cursor); !ok {
			resumed = false
		}
	}
	hello, _ := json.Marshal(connectedWire{Resumed: resumed, Page: page}) // plain data: cannot fail
	if !resumed {
		cursor = s.fresh("cordis/connected", hello)
	} else {
		s.event("cordis/connected", "", hello)
	}
	beat := time.NewTicker(h.opts.Heartbeat)
	defer beat.Stop()
	for s.err == nil {
		es, last, ok := hb.since(cursor)
		if !ok {
			// Too far behind: what was dropped cannot be replayed, so the page reloads.
			cursor = s.fresh("cordis/reset", []byte(`{"reason":"behind"}`))
			continue
		}
		for _, e := range es {
			s.event(e.name, hb.id(e.seq), e.data)
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

// retryField opens every stream: an EventSource whose stream drops comes back after
// half a second (with its Last-Event-ID) instead of the browser's default of about 3 s.
const retryField = "retry: 500\n\n"

// A stream writes one SSE response; the first failed write ends it.
type stream struct {
	w       http.ResponseWriter
	rc      *http.ResponseController
	timeout time.Duration
	hb      *hub
	err     error
}

// fresh starts the stream (again) from now: the named event telling the page to reset
// its inventory, then the pending run requests. It returns the new cursor.
func (s *stream) fresh(name string, data []byte) uint64 {
	pending, seq := s.hb.snapshot()
	s.event(name, s.hb.id(seq), data)
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
