package agent

import "github.com/cordiskit/cordiskit/kit"

// TurnStart is emitted when the agent begins a turn, before the model sees the prompt.
// Listeners run synchronously and cannot change the turn; use it to log, count or prime
// state for the turn.
var TurnStart = kit.NewEvent[TurnStartEvent]("agent/turn-start")

// TurnStartEvent is the payload of TurnStart.
type TurnStartEvent struct {
	// Session identifies the conversation the turn belongs to.
	Session kit.Session `json:"session"`
	// Turn is the turn's number within its session, starting at 1.
	Turn int `json:"turn"`
	// Prompt is the user message that started the turn.
	Prompt string `json:"prompt"`
}

// PreExecute runs before every tool call the runtime makes, as a waterfall: each listener
// receives the call and a next function that runs the rest of the chain and returns its
// decision. Call next to let the call proceed (optionally changing the decision it
// returns, e.g. rewriting Input); return a decision with Allow false and a Reason, without
// calling next, to veto the call. The Reason is shown to the model. next runs the rest of
// the chain once; calling it again returns the same decision.
//
// Listeners that mounted plugins register never see calls of the cordis control tools
// (cordis_inspect, cordis_mount and cordis_unmount): whatever they decide, the model can
// still inspect, mount and unmount. They do see every other tool call of their own
// session, with its full arguments, including calls of tools other mounts registered;
// that is what the gate is for. The event is session-scoped: a plugin of one session never
// sees, vetoes or fails another session's calls. The runtime's own Go listeners see every
// call.
var PreExecute = kit.NewWaterfall[PreExecuteEvent, Decision]("tools/pre-execute")

// PreExecuteEvent is the payload of PreExecute: the tool call about to run.
type PreExecuteEvent struct {
	// Session identifies the conversation that makes the call.
	Session kit.Session `json:"session"`
	// Tool is the name of the tool being called.
	Tool string `json:"tool"`
	// Input is the call's arguments as JSON text, "{}" when the model sent none.
	Input string `json:"input"`
}

// Decision is what a PreExecute listener returns.
type Decision struct {
	// Allow lets the call run. The end of the chain allows every call.
	Allow bool `json:"allow"`
	// Reason explains a veto to the model; it should say what to do instead.
	Reason string `json:"reason,omitempty"`
	// Input, when not empty, replaces the call's arguments (JSON text). The tool's input
	// schema is checked against the replacement.
	Input string `json:"input,omitempty"`
}

// SessionFlush asks every listener to persist what it holds for a session, and waits for
// all of them (parallel). The runtime emits it at the end of a turn and when it shuts down;
// a listener's error fails the flush, but the others still run.
var SessionFlush = kit.NewParallel[SessionFlushEvent]("session/flush")

// SessionFlushEvent is the payload of SessionFlush.
type SessionFlushEvent struct {
	// Session identifies the conversation being flushed; empty for the runtime-wide
	// flush at shutdown.
	Session kit.Session `json:"session"`
	// Reason says why, e.g. "end of turn" or "shutdown".
	Reason string `json:"reason"`
}
