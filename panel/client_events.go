package panel

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strings"
)

// An Event is one event of the panel's stream.
type Event struct {
	Name string // "cordis/request-run"
	// ID is the event's id, to resume after it (EventStream.LastID); "" for an event sent
	// without one (the pending requests after a Connected or Reset that did not resume).
	ID   string
	Data json.RawMessage // the event's JSON data
	// Payload is Data decoded into the type of Name (RequestRun, Connected, …, as values);
	// nil for an event this Client does not know.
	Payload Payload
}

// An EventStream reads the panel's event stream (Client.Events). One goroutine reads it;
// Close may be called from another, to end a Next that waits.
type EventStream struct {
	body io.ReadCloser
	br   *bufio.Reader
	max  int
	last string
	err  error // sticky: the stream cannot go on
}

// Events opens the event stream. With lastID (an EventStream.LastID of an earlier stream
// of the same panel) the handler resumes after that event when it still can: the first
// event, Connected, says whether it did. The stream lives until ctx ends, Close is
// called, or the handler ends it.
func (c *Client) Events(ctx context.Context, lastID string) (*EventStream, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.base+"events", nil)
	if err != nil {
		return nil, fmt.Errorf("panel: events: %w", err)
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	req.Header.Set("Accept", "text/event-stream")
	if lastID != "" {
		req.Header.Set("Last-Event-ID", lastID)
	}
	res, err := c.hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("panel: events: %w", err)
	}
	if ct := res.Header.Get("Content-Type"); res.StatusCode != http.StatusOK || !strings.HasPrefix(ct, "text/event-stream") {
		defer res.Body.Close()
		raw, _ := io.ReadAll(io.LimitReader(res.Body, 64<<10))
		var a Answer
		if json.Unmarshal(raw, &a) == nil && a.Error != nil {
			a.Error.Status = res.StatusCode
			return nil, a.Error
		}
		return nil, fmt.Errorf("panel: events: HTTP %d (%s) is not an event stream: %.200s", res.StatusCode, ct, raw)
	}
	return newEventStream(res.Body, c.event, lastID), nil
}

// newEventStream reads the events of body, each at most max bytes.
func newEventStream(body io.ReadCloser, max int, lastID string) *EventStream {
	// The buffer is small: a line longer than it is read in pieces, up to max in all.
	return &EventStream{body: body, br: bufio.NewReaderSize(body, 4<<10), max: max, last: lastID}
}

// Next returns the next event, waiting for it. At the stream's end it returns io.EOF;
// after the stream's context ends, its error. An event over ClientOptions.MaxEventBytes
// or a line that never ends ends the stream with an error. Data that does not decode
// into its event's type is returned with the event and an error, and the stream goes on.
func (s *EventStream) Next() (Event, error) {
	if s.err != nil {
		return Event{}, s.err
	}
	ev, err := s.read()
	if err != nil {
		s.err = err
		s.body.Close()
		return Event{}, err
	}
	if ev.ID != "" {
		s.last = ev.ID
	}
	return ev, decode(&ev)
}

// LastID is the id of the last event read that had one (or the lastID the stream was
// opened with): pass it to Client.Events to resume.
func (s *EventStream) LastID() string { return s.last }

// Close ends the stream: a Next that waits returns an error, and so does every Next after.
func (s *EventStream) Close() error {
	return s.body.Close()
}

// read reads one event: its fields up to the blank line that ends it. Comments (":
// ping"), retry fields and events without data are skipped. A line ends in LF or CRLF
// (the handler sends LF; a lone CR is not a line end here).
func (s *EventStream) read() (Event, error) {
	var ev Event
	var data []byte
	hasData, size := false, 0
	for {
		line, err := s.line(s.max - size)
		if err != nil {
			if errors.Is(err, io.EOF) && (size > 0 || hasData) {
				err = io.ErrUnexpectedEOF // an event cut short is not delivered
			}
			return Event{}, err
		}
		if len(line) == 0 {
			if hasData {
				if ev.Name == "" {
					ev.Name = "message"
				}
				ev.Data = data
				return ev, nil
			}
			ev, size = Event{}, 0
			continue
		}
		size += len(line) + 1
		field, value, _ := bytes.Cut(line, []byte(":"))
		value = bytes.TrimPrefix(value, []byte(" "))
		switch string(field) {
		case "event":
			ev.Name = string(value)
		case "data":
			if hasData {
				data = append(data, '\n')
			}
			data, hasData = append(data, value...), true
		case "id":
			if bytes.IndexByte(value, 0) < 0 {
				ev.ID = string(value)
			}
		}
	}
}

// line reads one line without its end, failing when it is longer than room.
func (s *EventStream) line(room int) ([]byte, error) {
	var line []byte
	for {
		chunk, err := s.br.ReadSlice('\n')
		if len(line)+len(chunk) > room+1 {
			return nil, fmt.Errorf("panel: events: an event is over %d bytes (ClientOptions.MaxEventBytes); raise it if the panel is yours", s.max)
		}
		line = append(line, chunk...)
		switch {
		case err == nil:
			line = bytes.TrimSuffix(line[:len(line)-1], []byte("\r"))
			return line, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF) && len(line) > 0:
			return nil, io.ErrUnexpectedEOF
		default:
			return nil, err
		}
	}
}

// decode sets ev.Payload from its data, for the events this Client knows.
func decode(ev *Event) error {
	for _, p := range payloads {
		if p.EventName() != ev.Name {
			continue
		}
		v := reflect.New(reflect.TypeOf(p))
		if err := json.Unmarshal(ev.Data, v.Interface()); err != nil {
			return fmt.Errorf("panel: event %s (id %q): its data is not a %T: %w", ev.Name, ev.ID, p, err)
		}
		ev.Payload = v.Elem().Interface().(Payload)
		return nil
	}
	return nil
}
