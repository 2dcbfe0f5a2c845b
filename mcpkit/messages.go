package mcpkit

import (
	"context"
	"crypto/rand"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A MessageSource holds messages for the models of sessions: outcomes that arrive after
// a tool call returned, failures at run time, what a person did in a panel. The
// dynamic-plugin runner (runner.Runner) is one. A Server appends a session's messages to
// that session's next tool result (TakeMessages) and, for a client that asked for log
// notifications, also sends each as one (WatchMessages); see the package doc, "Messages
// for the model".
type MessageSource interface {
	// TakeMessages hands the messages kept for session to take, oldest first, and
	// forgets each one take accepts; at the first one take refuses it stops, and that
	// one and the rest stay kept, in order. take does not block or call the source.
	TakeMessages(session string, take func(kind, pluginID, text string) bool)
	// WatchMessages calls notify with each message for session from now on, in order,
	// until cancel is called, without taking it. notify must not block.
	WatchMessages(session string, notify func(kind, pluginID, text string)) (cancel func())
}

// MessageMetaKey is the _meta key of a content block that carries a message for the
// model rather than the tool's result; its value is {"kind", "pluginId"}. Clients that
// read _meta can tell the blocks apart by it; a model reads the markers in the text.
const MessageMetaKey = "io.github.cordiskit/message"

// MessageTag is the name of the marker that opens and closes each message block in a
// tool result's text (see the package doc, "Messages for the model").
const MessageTag = "cordis-runtime-message"

// maxMessageText bounds one message's text in a result: a longer one is cut, saying so.
// A block is also kept under a sixteenth of the message budget, so it always fits beside
// a small result.
const maxMessageText = 64 << 10

// boundaryLen is the length of the random boundary that marks one result's message
// blocks.
const boundaryLen = 16

// messageMeta is the value of MessageMetaKey.
type messageMeta struct {
	Kind     string `json:"kind"`
	PluginID string `json:"pluginId,omitempty"`
}

type pendingMessage struct{ kind, pluginID, text string }

// addMessages appends the messages kept for session to res, each its own text block
// after the tool's content, oldest first, as many as fit in the message budget beside
// res; the rest stay with the source for the next result. Nothing is taken for a call
// whose client has gone (ctx done): its result is not read.
func (s *Server) addMessages(ctx context.Context, session string, res *mcp.CallToolResult) {
	if s.opts.Messages == nil || session == "" || ctx.Err() != nil {
		return
	}
	limit := s.budgets.message - messageOverhead
	perText := min(maxMessageText, limit/16)
	placeholder := strings.Repeat("X", boundaryLen)
	used := -1 // measured with the first message: a call with none pays nothing
	var took []pendingMessage
	s.opts.Messages.TakeMessages(session, func(kind, pluginID, text string) bool {
		if used < 0 {
			var ok bool
			if used, ok = sizeUpperBound(res); !ok {
				n, err := encodedSize(res)
				if err != nil {
					return false
				}
				used = n
			}
		}
		m := pendingMessage{kind, pluginID, clip(text, perText)}
		n, err := encodedSize(messageContent(placeholder, m))
		if err != nil || used+n+1 > limit {
			return false
		}
		used += n + 1
		took = append(took, m)
		return true
	})
	if len(took) == 0 {
		return
	}
	boundary := newBoundary(took)
	for _, m := range took {
		res.Content = append(res.Content, messageContent(boundary, m))
	}
}

// messageContent is the block that carries m: the text between markers that name the
// boundary, the kind and the Plugin, meant for the model (audience assistant), with
// MessageMetaKey in its _meta.
func messageContent(boundary string, m pendingMessage) *mcp.TextContent {
	var b strings.Builder
	fmt.Fprintf(&b, "<%s boundary=%q kind=%q", MessageTag, boundary, m.kind)
	if m.pluginID != "" {
		fmt.Fprintf(&b, " plugin=%q", m.pluginID)
	}
	fmt.Fprintf(&b, " from=\"the Cordis runtime, for this session; not part of the tool's result\">\n%s\n</%s boundary=%q>", m.text, MessageTag, boundary)
	return &mcp.TextContent{
		Text:        b.String(),
		Meta:        mcp.Meta{MessageMetaKey: messageMeta{Kind: m.kind, PluginID: m.pluginID}},
		Annotations: &mcp.Annotations{Audience: []mcp.Role{"assistant"}},
	}
}

// newBoundary picks a random boundary that appears in none of the messages, so no text
// can close its own block or open another (the text was written before the boundary was
// drawn, and is checked anyway).
func newBoundary(ms []pendingMessage) string {
	for {
		b := rand.Text()[:boundaryLen]
		if !containsAny(ms, b) {
			return b
		}
	}
}

func containsAny(ms []pendingMessage, b string) bool {
	for _, m := range ms {
		if strings.Contains(m.text, b) || strings.Contains(m.kind, b) || strings.Contains(m.pluginID, b) {
			return true
		}
	}
	return false
}

// clip cuts text to at most n bytes at a rune boundary, saying how long it was.
func clip(text string, n int) string {
	if len(text) <= n {
		return text
	}
	note := fmt.Sprintf(" … (cut: the message was %d bytes)", len(text))
	return truncateText(text, max(0, n-len(note))) + note
}
