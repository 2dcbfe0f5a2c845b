package runner

import "fmt"

// A mailbox keeps the messages of a session that is not connected, oldest first, bounded
// by Options.MaxQueuedMessages.
type mailbox struct {
	msgs    []ModelMessageEvent
	dropped int
}

// Connect marks session as connected (an agent loop or an MCP client session consumes
// ModelMessage for it) and delivers the messages kept while it was not, in order. Call the
// returned func when it disconnects; connections are counted, so several consumers of one
// session may connect.
func (r *Runner) Connect(session string) (disconnect func()) {
	r.msgMu.Lock()
	r.connected[session]++
	box := r.queued[session]
	delete(r.queued, session)
	r.msgMu.Unlock()
	if box != nil {
		if box.dropped > 0 {
			r.emitMessage(ModelMessageEvent{Session: session, Kind: Inject,
				Text: fmt.Sprintf("%d earlier messages from the Cordis runner were dropped while this session was not connected (at most %d are kept); check your Plugins with cordis_inspect_self", box.dropped, r.opts.MaxQueuedMessages)})
		}
		for _, m := range box.msgs {
			r.emitMessage(m)
		}
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

// Messages returns the messages kept for session because it was not connected (they are
// delivered when it connects; cordis_inspect_self shows them).
func (r *Runner) Messages(session string) []ModelMessageEvent {
	r.msgMu.Lock()
	defer r.msgMu.Unlock()
	box := r.queued[session]
	if box == nil {
		return nil
	}
	return append([]ModelMessageEvent(nil), box.msgs...)
}

// message delivers a message to session's model, or keeps it while nobody is connected.
// Never call it with r.mu held (the listener may call the Runner): use an outbox.
func (r *Runner) message(session string, kind MessageKind, pluginID, text string) {
	m := ModelMessageEvent{Session: session, Kind: kind, PluginID: pluginID, Text: text}
	r.msgMu.Lock()
	if r.connected[session] == 0 {
		box := r.queued[session]
		if box == nil {
			box = &mailbox{}
			r.queued[session] = box
		}
		box.msgs = append(box.msgs, m)
		if over := len(box.msgs) - r.opts.MaxQueuedMessages; over > 0 {
			box.msgs = append(box.msgs[:0:0], box.msgs[over:]...)
			box.dropped += over
		}
		r.msgMu.Unlock()
		return
	}
	r.msgMu.Unlock()
	r.emitMessage(m)
}

func (r *Runner) emitMessage(m ModelMessageEvent) { ModelMessage.Emit(r.ctx(), m) }
