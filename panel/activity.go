package panel

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/cordiskit/cordiskit/kit"
	"github.com/cordiskit/cordiskit/runner"
)

// The activity list: what the model did, as the cards of docs/dynamic-plugins.md, "The panel's
// readings and cards", newest first. The
// runner announces each call of its registered tools (runner.ToolCall) and the handler
// records it; a runtime that replays calls it kept from before this process started hands
// them to Handler.Record. Each card is derived from its call alone, so a page that reads
// the list again (a reload, a replay) renders the same cards.

// MaxActivity is how many cards the activity list keeps of each session, and how many a
// page reads; older ones are dropped.
const MaxActivity = 200

// maxActivityCards bounds the cards of every session together. Past it the session with
// the most cards loses its oldest, so a busy session drops its own cards, not a quiet
// one's.
const maxActivityCards = 16 * MaxActivity

// Activity is one card of the activity list on the wire (the verb activity and the
// event cordis/activity): the call's place and state, and the card of its tool.
type Activity struct {
	Seq     int64       `json:"seq"`              // the call's place: later calls are higher; a card that answers replaces the running one
	Session string      `json:"session"`          // the session whose model made the call
	Tool    string      `json:"tool"`             // cordis_define, cordis_run, cordis_stop or cordis_undefine
	State   CardState   `json:"state"`            // the state of the call
	Define  *DefineCard `json:"define,omitempty"` // the card of a cordis_define call
	Run     *RunCard    `json:"run,omitempty"`    // the card of a cordis_run call
	Row     *RowCard    `json:"row,omitempty"`    // cordis_stop, cordis_undefine
}

// cardOf is the activity card of c; false for a tool that has no card.
func cardOf(c Call) (Activity, bool) {
	w := Activity{Seq: c.Seq, Session: c.Session, Tool: c.Tool, State: c.State()}
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
		return Activity{}, false
	}
	return w, true
}

// activityLog keeps the last MaxActivity cards of each session, by session and seq.
type activityLog struct {
	mu    sync.Mutex
	cards []Activity     // oldest first
	count map[string]int // cards per session
}

// put adds w, or replaces the card of the same call (a running call that answered).
func (l *activityLog) put(w Activity) {
	l.mu.Lock()
	defer l.mu.Unlock()
	i := slices.IndexFunc(l.cards, func(o Activity) bool { return o.Seq == w.Seq && o.Session == w.Session })
	if i >= 0 {
		l.cards[i] = w
		return
	}
	if l.count == nil {
		l.count = map[string]int{}
	}
	l.cards = append(l.cards, w)
	l.count[w.Session]++
	switch {
	case l.count[w.Session] > MaxActivity:
		l.dropOldest(w.Session)
	case len(l.cards) > maxActivityCards:
		busiest := w.Session
		for s, n := range l.count {
			if n > l.count[busiest] {
				busiest = s
			}
		}
		l.dropOldest(busiest)
	}
}

// dropOldest drops session's oldest card. l.mu held.
func (l *activityLog) dropOldest(session string) {
	i := slices.IndexFunc(l.cards, func(o Activity) bool { return o.Session == session })
	l.cards = slices.Delete(l.cards, i, i+1)
	if l.count[session]--; l.count[session] == 0 {
		delete(l.count, session)
	}
}

// list returns the newest MaxActivity cards sc sees, newest first.
func (l *activityLog) list(sc scope) []Activity {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := []Activity{} // [] on the wire, not null, when empty
	for _, c := range slices.Backward(l.cards) {
		if len(out) == MaxActivity {
			break
		}
		if sc.sees(c.Session) {
			out = append(out, c)
		}
	}
	return out
}

// Record adds the card of c to the activity list, or replaces the card of the same call
// (same Session and Seq): record a call when it starts (no Result, no Error: the card
// reads running) and again when it answers. Only cordis_define, cordis_run, cordis_stop
// and cordis_undefine have cards; other calls are ignored. Open pages show it at once.
//
// The handler records the calls of this process itself (runner.ToolCall); Record is for a
// runtime that replays calls it kept from before, such as a transcript read back after a
// restart. Pages order cards by Seq and the runner numbers this process's calls 1, 2, …,
// so number replayed calls 0 and below, the oldest lowest.
func (h *Handler) Record(c Call) {
	w, ok := cardOf(c)
	if !ok {
		return
	}
	h.activity.put(w)
	h.hub.publish(w.Session, "", w)
}

// listen registers the handler's listeners on c (the "cordis-panel" plugin): the runner
// events its streams carry, and the runner's announced tool calls (runner.ToolCall),
// recorded as cards, so every runtime whose model calls the runner's registered tools
// fills the list without wiring.
//
// It then reads who owns the Plugins defined before it listened; every later define
// comes as cordis/definition-changed.
func (h *Handler) listen(c *kit.Context) error {
	if err := h.listenRunner(c); err != nil {
		return err
	}
	_, err := runner.ToolCall.On(c, func(p runner.ToolCallEvent) {
		h.Record(Call{Tool: p.Tool, Session: p.Session, Seq: p.Seq, Args: p.Args, Result: p.Result, Error: p.Error, Interrupted: p.Interrupted})
	})
	if err != nil {
		return err
	}
	rows, err := h.r.Inventory(context.Background())
	if err != nil {
		return fmt.Errorf("reading who owns the Plugins defined so far: %w", err)
	}
	h.hub.seed(rows)
	return nil
}
