package panel

import (
	"context"
	"encoding/json"
	"slices"
	"sync"

	"github.com/cordiskit/cordiskit/kit"
)

// The activity list: what the model did, as the cards of spec §15.5, newest first. The
// panel cannot see a runtime's transcript, so the runtime hands it the model's calls:
// Handler.Observe wraps the runner's tools it serves, or Handler.Record takes calls it
// already keeps. Each card is derived from its call alone, so a page that reads the list
// again (a reload, a replay) renders the same cards.

// MaxActivity is how many cards the activity list keeps; older ones are dropped.
const MaxActivity = 200

// activityWire is one card of the activity list on the wire (the verb activity and the
// event cordis/activity): the call's place and state, and the card of its tool.
type activityWire struct {
	Seq     int64       `json:"seq"`
	Session string      `json:"session"`
	Tool    string      `json:"tool"`
	State   CardState   `json:"state"`
	Define  *DefineCard `json:"define,omitempty"`
	Run     *RunCard    `json:"run,omitempty"`
	Row     *RowCard    `json:"row,omitempty"` // cordis_stop, cordis_undefine
}

// cardOf is the activity card of c; false for a tool that has no card.
func cardOf(c Call) (activityWire, bool) {
	w := activityWire{Seq: c.Seq, Session: c.Session, Tool: c.Tool, State: c.State()}
	switch c.Tool {
	case "cordis_define":
		d := DefineCardOf(c)
		w.Define = &d
	case "cordis_run":
		r := RunCardOf(c)
		w.Run = &r
	case "cordis_stop", "cordis_undefine":
		r := RowCardOf(c)
		w.Row = &r
	default:
		return activityWire{}, false
	}
	return w, true
}

// activityLog keeps the last MaxActivity cards, by session and seq.
type activityLog struct {
	mu    sync.Mutex
	seq   int64
	cards []activityWire // oldest first
}

// put adds w, or replaces the card of the same call (a running call that answered).
func (l *activityLog) put(w activityWire) {
	l.mu.Lock()
	defer l.mu.Unlock()
	i := slices.IndexFunc(l.cards, func(o activityWire) bool { return o.Seq == w.Seq && o.Session == w.Session })
	if i >= 0 {
		l.cards[i] = w
		return
	}
	l.cards = append(l.cards, w)
	if n := len(l.cards) - MaxActivity; n > 0 {
		l.cards = slices.Delete(l.cards, 0, n)
	}
}

// list returns the cards, newest first.
func (l *activityLog) list() []activityWire {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := slices.Clone(l.cards)
	slices.Reverse(out)
	return out
}

func (l *activityLog) next() int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.seq++
	return l.seq
}

// Record adds the card of c to the activity list, or replaces the card of the same call
// (same Session and Seq): record a call when it starts (no Result, no Error: the card
// reads running) and again when it answers. Only cordis_define, cordis_run, cordis_stop
// and cordis_undefine have cards; other calls are ignored. Open pages show it at once.
func (h *Handler) Record(c Call) {
	w, ok := cardOf(c)
	if !ok {
		return
	}
	h.activity.put(w)
	h.hub.publish("cordis/activity", "", w)
}

// Observe returns t with its calls recorded in the activity list (Record), numbered in
// the order they start, each with the session on its ctx (kit.WithSession). A tool without
// a card is returned unchanged. A runtime that serves the runner's tools itself wraps
// them:
//
//	for _, t := range r.Tools() {
//		serve(h.Observe(t))
//	}
func (h *Handler) Observe(t kit.Tool) kit.Tool {
	if _, ok := cardOf(Call{Tool: t.Name}); !ok || t.Execute == nil {
		return t
	}
	exec := t.Execute
	t.Execute = func(ctx context.Context, input json.RawMessage) (json.RawMessage, error) {
		session, _ := kit.SessionFrom(ctx)
		c := Call{Tool: t.Name, Session: session, Seq: h.activity.next(), Args: string(input)}
		h.Record(c)
		out, err := exec(ctx, input)
		switch {
		case err != nil && ctx.Err() != nil:
			c.Interrupted = true
		case err != nil:
			c.Error = err.Error()
		default:
			c.Result = resultOf(out)
		}
		h.Record(c)
		return out, err
	}
	return t
}

// resultOf is a tool's result as a card's Result: a success with no value is JSON null, not
// a call without an answer.
func resultOf(out json.RawMessage) json.RawMessage {
	if len(out) == 0 {
		return json.RawMessage("null")
	}
	return out
}
