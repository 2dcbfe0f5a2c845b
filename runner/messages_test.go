package runner

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// taken is a message as TakeMessages hands it over.
type taken struct{ Kind, PluginID, Text string }

// takeAll takes every message kept for session.
func takeAll(r *Runner, session string) []taken {
	var out []taken
	r.TakeMessages(session, func(kind, pluginID, text string) bool {
		out = append(out, taken{kind, pluginID, text})
		return true
	})
	return out
}

// TakeMessages hands a session's kept messages over oldest first, each once; one that
// take refuses stays, with those after it, for the next take. Another session's are
// never handed over.
func TestTakeMessages(t *testing.T) {
	e := newEnv(t, &Options{Host: &fakeHost{}})
	e.r.message("alice", "steer", "clock-1", "one")
	e.r.message("bob", "inject", "web-2", "bob's")
	e.r.message("alice", "inject", "clock-1", "two")
	e.r.message("alice", "inject", "", "three")

	var first []taken
	e.r.TakeMessages("alice", func(kind, pluginID, text string) bool {
		if len(first) == 1 {
			return false // no room for a second
		}
		first = append(first, taken{kind, pluginID, text})
		return true
	})
	if diff := cmp.Diff([]taken{{"steer", "clock-1", "one"}}, first); diff != "" {
		t.Errorf("first take (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]taken{{"inject", "clock-1", "two"}, {"inject", "", "three"}}, takeAll(e.r, "alice")); diff != "" {
		t.Errorf("second take (-want +got):\n%s", diff)
	}
	if got := takeAll(e.r, "alice"); len(got) != 0 {
		t.Errorf("taken twice: %+v", got)
	}
	if diff := cmp.Diff([]taken{{"inject", "web-2", "bob's"}}, takeAll(e.r, "bob")); diff != "" {
		t.Errorf("bob's take (-want +got):\n%s", diff)
	}
	if n := e.mailboxes(); n != 0 {
		t.Errorf("%d mailboxes left once every message was taken", n)
	}
}

// A flood of messages for one session keeps at most MaxQueuedMessages of them, each
// text at most MaxMessageTextBytes, and the next take begins with how many were dropped.
func TestMessageFloodIsBounded(t *testing.T) {
	const keep = 5
	e := newEnv(t, &Options{Host: &fakeHost{}, MaxQueuedMessages: keep})
	huge := strings.Repeat("é", MaxMessageTextBytes) // twice the bound in bytes
	for i := range 1000 {
		e.r.message("alice", "steer", "clock-1", fmt.Sprint(i, huge))
	}
	kept := e.r.Messages("alice")
	cut := fmt.Sprintf(" … (cut: the message was %d bytes, and at most %d are kept; cordis_inspect_self shows the Plugin's state)", len(fmt.Sprint(999, huge)), MaxMessageTextBytes)
	size := 0
	for _, m := range kept {
		size += len(m.Text)
		if len(m.Text) > MaxMessageTextBytes || !strings.HasSuffix(m.Text, cut) {
			t.Fatalf("a kept text of %d bytes ends %q; want it cut to at most %d, saying so", len(m.Text), m.Text[max(0, len(m.Text)-80):], MaxMessageTextBytes)
		}
	}
	if len(kept) != keep || size > keep*MaxMessageTextBytes {
		t.Errorf("after 1000 messages %d are kept in %d bytes; want %d in at most %d", len(kept), size, keep, keep*MaxMessageTextBytes)
	}
	got := takeAll(e.r, "alice")
	want := fmt.Sprintf("995 earlier messages from the Cordis runner were dropped before they were delivered (at most %d are kept for a session); check your Plugins with cordis_inspect_self", keep)
	if len(got) != keep+1 || got[0] != (taken{"inject", "", want}) || !strings.HasPrefix(got[1].Text, "995é") || !strings.HasPrefix(got[keep].Text, "999é") {
		t.Errorf("the take after the flood: %d messages, the first %+v", len(got), got[0])
	}
}

// A refused drop notice stays first: nothing after it is handed over before it.
func TestDropNoticeStaysFirst(t *testing.T) {
	e := newEnv(t, &Options{Host: &fakeHost{}, MaxQueuedMessages: 1})
	e.r.message("alice", "steer", "clock-1", "old")
	e.r.message("alice", "steer", "clock-1", "new")
	e.r.TakeMessages("alice", func(string, string, string) bool { return false })
	got := takeAll(e.r, "alice")
	if len(got) != 2 || !strings.HasPrefix(got[0].Text, "1 earlier messages") || got[1].Text != "new" {
		t.Errorf("after a refused take: %+v", got)
	}
}

// WatchMessages sees each new message of its session, and only its session's, without
// taking it; after cancel it sees none, and its mailbox is forgotten once empty.
func TestWatchMessages(t *testing.T) {
	e := newEnv(t, &Options{Host: &fakeHost{}})
	var seen []taken
	cancel := e.r.WatchMessages("alice", func(kind, pluginID, text string) {
		seen = append(seen, taken{kind, pluginID, text})
	})
	e.r.message("alice", "steer", "clock-1", "one")
	e.r.message("bob", "steer", "web-2", "bob's")
	disconnect := e.r.Connect("alice") // an agent loop: emitted, not kept, and still watched
	e.r.message("alice", "inject", "clock-1", "two")
	disconnect()
	cancel()
	e.r.message("alice", "inject", "clock-1", "three")
	if diff := cmp.Diff([]taken{{"steer", "clock-1", "one"}, {"inject", "clock-1", "two"}}, seen); diff != "" {
		t.Errorf("watched (-want +got):\n%s", diff)
	}
	if got := texts(e.takeMessages()); !cmp.Equal(got, []string{"steer clock-1: one", "inject clock-1: two"}) {
		t.Errorf("emitted to the connected agent loop: %q", got)
	}
	if diff := cmp.Diff([]taken{{"inject", "clock-1", "three"}}, takeAll(e.r, "alice")); diff != "" {
		t.Errorf("kept (-want +got):\n%s", diff)
	}
	takeAll(e.r, "bob")
	if n := e.mailboxes(); n != 0 {
		t.Errorf("%d mailboxes left once the watch ended and every message was taken", n)
	}
}

// mailboxes counts the sessions the runner holds message state for.
func (e *env) mailboxes() int {
	e.r.msgMu.Lock()
	defer e.r.msgMu.Unlock()
	return len(e.r.queued)
}
