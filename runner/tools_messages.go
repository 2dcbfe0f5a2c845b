package runner

// Subscribe delivers the messages for session's model (ModelMessage) to deliver, in
// order, until cancel is called: first those kept while the session was not connected,
// then each new one. While subscribed the session counts as connected (Connect), so
// nothing more is kept for it. It makes the Runner a mcpkit.MessageSource: an MCP server
// forwards each client session's messages to that client. deliver must not block; it
// runs on the goroutine that sent the message.
func (r *Runner) Subscribe(session string, deliver func(kind, pluginID, text string)) (cancel func()) {
	off, err := ModelMessage.On(r.ctx(), func(m ModelMessageEvent) {
		if m.Session == session {
			deliver(string(m.Kind), m.PluginID, m.Text)
		}
	})
	if err != nil { // the runner is gone: it sends nothing more
		return func() {}
	}
	disconnect := r.Connect(session) // after the listener, which receives the kept ones
	return func() {
		disconnect()
		off()
	}
}
