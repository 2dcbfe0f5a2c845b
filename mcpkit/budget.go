package mcpkit

import (
	"encoding/json"
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/cordiskit/cordiskit/kit"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Default budgets of a Server. They bound the encoded bytes the Server sends, since what
// matters is what the client reads: JSON escaping grows text ('<' in a tool result's text
// is sent as \u003c, six bytes), and the SDK's clients drop the whole session — every
// tool, cordis_unmount included — on a frame larger than they read.
const (
	// DefaultMaxMessageBytes is the default Options.MaxMessageBytes: half of
	// mcp.DefaultMaxLineLength (16 MiB), the largest frame the SDK's stdio, in-memory and
	// IO transports read, and the default MaxEventSize of its SSE and streamable clients.
	DefaultMaxMessageBytes = mcp.DefaultMaxLineLength / 2
	// DefaultMaxToolBytes is the default Options.MaxToolBytes, 1 MiB.
	DefaultMaxToolBytes = 1 << 20
)

// messageOverhead is what a message adds around a result or a page of tools (the
// JSON-RPC envelope, the id, a cursor), with room to spare.
const messageOverhead = 4 << 10

// errorTextBytes is how much of an error's text a tool error result keeps when the whole
// text would not fit in a message.
const errorTextBytes = 64 << 10

// budgets are a Server's limits, defaults applied.
type budgets struct {
	message, tool int
}

func newBudgets(o *Options) budgets {
	b := budgets{message: o.MaxMessageBytes, tool: o.MaxToolBytes}
	if b.message <= 0 {
		b.message = DefaultMaxMessageBytes
	}
	if b.tool <= 0 {
		b.tool = DefaultMaxToolBytes
	}
	return b
}

// encodedSize is the size of v as the SDK sends it: encoding/json without HTML escaping
// (values with their own MarshalJSON, such as content, escape as they do on the wire).
func encodedSize(v any) (int, error) {
	var n countingWriter
	enc := json.NewEncoder(&n)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return 0, err
	}
	return int(n) - 1, nil // Encode's newline is not sent
}

type countingWriter int

func (w *countingWriter) Write(p []byte) (int, error) {
	*w += countingWriter(len(p))
	return len(p), nil
}

// sizeUpperBound bounds the encoded size of a result without encoding it (escapedLen per
// text and structured content). ok is false for content it does not know.
func sizeUpperBound(res *mcp.CallToolResult) (n int, ok bool) {
	n = 1 << 10
	for _, c := range res.Content {
		tc, isText := c.(*mcp.TextContent)
		if !isText {
			return 0, false
		}
		n += escapedLen(tc.Text) + 64
	}
	switch sc := res.StructuredContent.(type) {
	case nil:
	case json.RawMessage:
		n += escapedLen(string(sc))
	default:
		return 0, false
	}
	return n, true
}

// escapedLen bounds the length of s encoded as the inside of a JSON string by
// encoding/json, HTML escaping included: <, >, &, U+2028, U+2029, control characters and
// each byte of invalid UTF-8 take six bytes, quote and backslash two.
func escapedLen(s string) int {
	n := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '<' || c == '>' || c == '&' || c < 0x20:
				n += 6
			case c == '"' || c == '\\':
				n += 2
			default:
				n++
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			n += 6
		case r == '\u2028' || r == '\u2029':
			n += 6
		default:
			n += size
		}
		i += size
	}
	return n
}

// fit returns res if it fits in one message, or else a tool error that says so: how big
// the result was, the limit, and how to return less. An error result that is too large
// keeps the start of its text.
func (s *Server) fit(tool string, res *mcp.CallToolResult) *mcp.CallToolResult {
	limit := s.budgets.message - messageOverhead
	n, ok := sizeUpperBound(res)
	if !ok {
		var err error
		if n, err = encodedSize(res); err != nil {
			return toolError(fmt.Errorf("tool %q returned a result that cannot be encoded for MCP (%v); return JSON data", tool, err))
		}
	}
	if n <= limit {
		return res
	}
	if res.IsError {
		return toolError(errors.New(truncateText(text(res), errorTextBytes) +
			fmt.Sprintf(" … (the error message was cut: the whole of it, %s once encoded, is more than one MCP message carries)", byteSize(n))))
	}
	return toolError(fmt.Errorf("tool %q returned a result too large to send: %s once encoded for MCP, and one message carries at most %s; return less: take arguments that select a part (an offset and a limit, a page, a filter), or return a summary", tool, byteSize(n), byteSize(limit)))
}

func text(res *mcp.CallToolResult) string {
	var s string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			s += tc.Text
		}
	}
	return s
}

// truncateText cuts s to at most n bytes, at a rune boundary.
func truncateText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// entrySize is the encoded size of a tool's entry in tools/list, with its comma.
func entrySize(tool *mcp.Tool) (int, error) {
	n, err := encodedSize(tool)
	return n + 1, err
}

// admit checks that a tool's entry (size bytes) fits: alone, under the per-tool budget,
// and with the served tools (listed bytes, not counting the entry it replaces), under the
// message budget. The error is written for the model that registered the tool.
func (b budgets) admit(size, listed int) error {
	if size > b.tool {
		return fmt.Errorf("mcpkit: the tool's entry in the MCP tool list would be %s once encoded, and this server lists at most %s per tool; shorten its description or its parameters schema", byteSize(size), byteSize(b.tool))
	}
	if total := listed + size + messageOverhead; total > b.message {
		return fmt.Errorf("mcpkit: with this tool the MCP tool list would be %s once encoded, more than one message carries (%s); unregister tools that are no longer needed, or shorten their descriptions and schemas", byteSize(total), byteSize(b.message))
	}
	return nil
}

// check is the registry check (kit.Tools.AddCheck) that refuses, when it is registered, a
// tool that could not be listed for its size.
func (s *Server) check(session string, schema kit.ToolSchema) error {
	tool, _, err := s.mcpTool(schema)
	if err != nil {
		return nil // not a size problem: sync reports it, and the tool is not served
	}
	size, err := entrySize(tool)
	if err != nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.budgets.admit(size, s.listedFor(session))
}

// byteSize renders n for a message: "3.0 MiB (3145728 bytes)".
func byteSize(n int) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB (%d bytes)", float64(n)/(1<<20), n)
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB (%d bytes)", float64(n)/(1<<10), n)
	}
	return fmt.Sprintf("%d bytes", n)
}
