package runner

import (
	"fmt"
	"slices"
	"unicode/utf8"

	"github.com/cordiskit/cordiskit/tooldecl/dynamic"
)

// MaxMessageTextBytes bounds the text of one message for a session's model. A longer
// text (a host half's failure with a long stack, say) is cut at a rune boundary and says
// so, so the messages kept for a session take at most Options.MaxQueuedMessages times
// this, whatever model-written code throws.
const MaxMessageTextBytes = 8 << 10

// A mailbox holds what a session's messages need: those kept until they are delivered,
// oldest first, at most Options.MaxQueuedMessages (older ones dropped and counted), and
// the watchers that see each new one (WatchMessages). It is forgotten when it holds
// nothing. r.msgMu guards it.
type mailbox struct {
	msgs     []ModelMessageEvent
	dropped  int
	watchers []*messageWatcher
}

type messageWatcher struct {
	notify func(kind, pluginID, text string)
}

// Connect marks session as connected — an agent loop in this process consumes
// ModelMessage for it — and emits the messages kept while it was not, in order. While a
// session is connected its messages are emitted as ModelMessage and not kept. Call the
// returned func when it disconnects; connections are counted, so several consumers of one
// session may connect. An MCP server does not connect: it takes a session's kept messages
// into the client's tool results (TakeMessages).
func (r *Runner) Connect(session string) (disconnect func()) {
	r.msgMu.Lock()
	r.connected[session]++
	var kept []ModelMessageEvent
	if box := r.queued[session]; box != nil {
		if box.dropped > 0 {
			kept = append(kept, ModelMessageEvent{Session: session, Kind: dynamic.MessageInject, Text: r.droppedText(box.dropped)})
		}
		kept = append(kept, box.msgs...)
		box.msgs, box.dropped = nil, 0
		r.tidyMailbox(session, box)
	}
	r.msgMu.Unlock()
	for _, m := range kept {
		r.emitMessage(m)
	}
	done := false
	return func() {
		r.msgMu.Lock()
		defer r.msgMu.Unlock()
		if done {
			return
		}
		done = true
		if r.connected[session]--; r.connected[session] <= 0 {
			delete(r.connected, session)
		}
	}
}

// Messages returns the messages kept for session, oldest first, without taking them:
// they are delivered when it connects (Connect) or taken into a tool result
// (TakeMessages); cordis_inspect_self shows them.
func (r *Runner) Messages(session string) []ModelMessageEvent {
	r.msgMu.Lock()
	defer r.msgMu.Unlock()
	box := r.queued[session]
	if box == nil {
		return nil
	}
	return slices.Clone(box.msgs)
}

// TakeMessages hands the messages kept for session to take, oldest first, and forgets
// each one take accepts, so each is delivered once. It stops at the first take refuses
// (returns false: no room left in the tool result it is filling), which stays kept with
// the rest, in order, for the next call. When messages were dropped (more than
// Options.MaxQueuedMessages waited), take is first handed an inject saying how many.
// take runs with the Runner's message lock held: it must not block or call the Runner.
//
// With WatchMessages it makes the Runner an mcpkit.MessageSource: an MCP server appends
// each session's messages to that session's next tool result.
func (r *Runner) TakeMessages(session string, take func(kind, pluginID, text string) bool) {
	r.msgMu.Lock()
	defer r.msgMu.Unlock()
	box := r.queued[session]
	if box == nil {
		return
	}
	defer r.tidyMailbox(session, box)
	if box.dropped > 0 {
		if !take(string(dynamic.MessageInject), "", r.droppedText(box.dropped)) {
			return
		}
		box.dropped = 0
	}
	n := 0
	for _, m := range box.msgs {
		if !take(string(m.Kind), m.PluginID, m.Text) {
			break
		}
		n++
	}
	box.msgs = slices.Delete(box.msgs, 0, n)
}

// WatchMessages calls notify with each message sent for session's model from now on, in
// order, until cancel is called. It takes nothing: the message is still kept for the
// session (or emitted, while it is connected). An MCP server watches the sessions of the
// clients that asked for log notifications (logging/setLevel) and sends them a copy.
// notify runs with the Runner's message lock held: it must not block or call the Runner.
func (r *Runner) WatchMessages(session string, notify func(kind, pluginID, text string)) (cancel func()) {
	w := &messageWatcher{notify: notify}
	r.msgMu.Lock()
	box := r.mailbox(session)
	box.watchers = append(box.watchers, w)
	r.msgMu.Unlock()
	return func() {
		r.msgMu.Lock()
		defer r.msgMu.Unlock()
		if box := r.queued[session]; box != nil {
			box.watchers = slices.DeleteFunc(box.watchers, func(o *messageWatcher) bool { return o == w })
			r.tidyMailbox(session, box)
		}
	}
}

// message delivers a message to session's model: emitted while the session is connected,
// else kept; either way its watchers see it. Never call it with r.mu held (the listener
// may call the Runner): use an outbox.
func (r *Runner) message(session string, kind dynamic.MessageKind, pluginID, text string) {
	m := ModelMessageEvent{Session: session, Kind: kind, PluginID: pluginID, Text: clipMessage(text)}
	r.msgMu.Lock()
	box := r.queued[session]
	if box != nil {
		for _, w := range box.watchers {
			w.notify(string(m.Kind), m.PluginID, m.Text)
		}
	}
	if r.connected[session] > 0 {
		r.msgMu.Unlock()
		r.emitMessage(m)
		return
	}
	if box == nil {
		box = r.mailbox(session)
	}
	box.msgs = append(box.msgs, m)
	if over := len(box.msgs) - r.opts.MaxQueuedMessages; over > 0 {
		box.msgs = slices.Delete(box.msgs, 0, over)
		box.dropped += over
	}
	r.msgMu.Unlock()
}

// mailbox returns session's mailbox, made if needed. r.msgMu held.
func (r *Runner) mailbox(session string) *mailbox {
	box := r.queued[session]
	if box == nil {
		box = &mailbox{}
		r.queued[session] = box
	}
	return box
}

// tidyMailbox forgets session's mailbox once it holds nothing. r.msgMu held.
func (r *Runner) tidyMailbox(session string, box *mailbox) {
	if len(box.msgs) == 0 && box.dropped == 0 && len(box.watchers) == 0 && r.queued[session] == box {
		delete(r.queued, session)
	}
}

func (r *Runner) droppedText(n int) string {
	return fmt.Sprintf("%d earlier messages from the Cordis runner were dropped before they were delivered (at most %d are kept for a session); check your Plugins with cordis_inspect_self", n, r.opts.MaxQueuedMessages)
}

// clipMessage cuts text to MaxMessageTextBytes, at a rune boundary, saying so.
func clipMessage(text string) string {
	if len(text) <= MaxMessageTextBytes {
		return text
	}
	const note = " … (cut: the message was %d bytes, and at most %d are kept; cordis_inspect_self shows the Plugin's state)"
	n := MaxMessageTextBytes - len(note) - 20
	for n > 0 && !utf8.RuneStart(text[n]) {
		n--
	}
	return text[:n] + fmt.Sprintf(note, len(text), MaxMessageTextBytes)
}

func (r *Runner) emitMessage(m ModelMessageEvent) { ModelMessage.Emit(r.ctx(), m) }
