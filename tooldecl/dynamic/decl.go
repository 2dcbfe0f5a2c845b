// Package dynamic declares the seven model-facing tools of the dynamic-plugin runner — their
// names, input and output types — so that gen-cordis-api derives their JSON Schemas and
// describes them in tool-catalog.md. The behaviour lives in package runner; this package
// has no logic and no dependencies beyond the kit, so the generated core tier can
// reference it.
//
// The seven build things a person keeps: a Plugin ("clock-1") owned by the session that
// defined it, with immutable, versioned Packages whose host half runs in the host process
// and whose client half runs in the user's browser page. The three mount tools
// (cordis_mount and friends) make throw-away plugins instead.
//
// These types are also the runner's Go API: what a model sends and reads is what Go code
// passes and gets, one type per concept, with no second copy to convert to:
//
//	d, err := r.Define(ctx, decl.DefineInput{Plugin: decl.Target{Kind: decl.TargetNew, IDPrefix: "clock"}, …})
//	out, err := r.Run(ctx, decl.RunInput{PluginID: d.PluginID, PackageID: d.PackageID, Mode: decl.ModeRun})
//	self, err := r.InspectSelf(ctx, decl.InspectSelfInput{PluginID: d.PluginID})
//
// # Statuses
//
// Four status types say four different things, and their constants carry their type's
// name so none is taken for another's: PluginState (Plugin…) is what a Plugin is doing,
// derived on each read; RunStatus (Run…) how far one run attempt got, stored as the
// Plugin's latest run; HalfStatus (Half…) the state of one half of an attempt; and
// StartStatus (Start…) what a start answered (cordis_run's status, BootRestart.Status).
// Each type's comment lists its values and what moves a status to each.
package dynamic

import "github.com/cordiskit/cordiskit/kit"

// InspectList lists the inspect providers: the catalogues you query with
// cordis_inspect_query before writing a Package — the host's services, events, builtins
// and tools, and what the user's browser pages report (their slots, theme, services).
// Each provider lists its methods with their input and output JSON Schemas. Call it
// before you create or modify a Package, and query what you need; never guess a
// service, event, slot or method name. It changes nothing and never fails.
var InspectList = kit.NewTool[InspectListInput, InspectListOutput]("cordis_inspect_list")

// InspectQuery runs one method of one inspect provider listed by cordis_inspect_list and
// returns its data: for example platform "host", provider "Service", method
// "listService", input {"service": "kv"} gives the kv service's method signatures and the
// types they name. input must match the method's inputSchema (omit it for {}). A host
// query answers at once; a client query is answered by a connected browser page and
// fails with a message when no page answers in time.
var InspectQuery = kit.NewTool[InspectQueryInput, InspectQueryOutput]("cordis_inspect_query")

// InspectSelf reads the dynamic Plugins of this session; it changes nothing.
//
//   - no ids: every Plugin of this session (mode "plugins") with its state, version
//     pointers, live run and latest run with its diagnostic, plus messages the runner
//     kept for this session while it was not connected.
//   - pluginId: one Plugin (mode "plugin") with the same summary and its Packages.
//   - pluginId and packageId: one Package (mode "package") with its source code and its
//     runtime: the host half's status, provided services, missing services and
//     handlers, the client half's status, and errors.
//
// Read a Package's source here before you fix it. state is one of: defined (never ran),
// awaiting-approval (the user must decide; do not retry), starting or client-pending (not
// yet running; the outcome arrives as a message), running, waiting (running, but parked
// until the services in waitingFor appear), stopped, failed (latestRun.error says where
// and why), rejected (the user declined: do not ask again unless the user asks),
// cancelled (cordis_stop or cordis_undefine cancelled it), expired (nobody answered in
// time). Plugins of other sessions read as absent.
var InspectSelf = kit.NewTool[InspectSelfInput, InspectSelfOutput]("cordis_inspect_self")

// Define records a new immutable Package — a name, a purpose and its halves — on a new
// Plugin (plugin {"kind": "new", "idPrefix": "clock"} creates clock-N) or on an existing
// Plugin of this session (plugin {"kind": "existing", "pluginId": "clock-1"}: use it to
// fix or change a Plugin; never create a replacement). It runs NOTHING: a running Plugin
// keeps running its old Package until cordis_run. Every define makes a new Package id
// ("pkg-N"); Packages are never edited.
//
// Each half is the BODY of an async function and MUST return a plugin: a function
// (ctx) => { … } or an object { name, inject: ['timer'], apply(ctx) { … } }. code.host
// runs in the host process with ctx (services on ctx only if declared in inject; ctx.get
// for optional ones; ctx.on for events; ctx.tools.register for a tool of your own;
// ctx.effect for cleanup) and harness.handle(method, async (args) => json) for methods
// the client half calls with host.call(method, args) — JSON in, JSON out. code.client
// runs in the user's browser page and needs the user's approval before it first runs.
// Plain JavaScript only: no TypeScript, JSX, imports, require, setTimeout (inject
// 'timer' and use ctx.setTimeout) or fetch. Every side effect must be undone when the
// plugin stops: register it through ctx.
//
// Checks, in order: name and purpose non-empty; at least one half; no blank half; each
// half parses; the idPrefix is 3–6 lowercase letters, or the existing Plugin is yours.
// A failed define records nothing.
var Define = kit.NewTool[DefineInput, DefineOutput]("cordis_define")

// Run starts a Package of a Plugin of this session. mode "run" is the first activation
// of a Plugin, a restart of its current Package, a retry of it, or a rollback to it;
// mode "update" switches to any other Package once one has run. An update or a restart
// keeps the old run until the new host half has started, so a failed or declined one
// leaves the old run running; an old run that provides a service, or holds a tool name
// the new one registers too, is stopped first, and then a failure leaves nothing running
// (the error says which). currentPackageId names the old Package until the update
// succeeds: retry with "update" on the fixed Package, or roll back with "run" on
// currentPackageId.
//
// A host-only Package starts inside this call: status "running", or "waiting" when its
// host half waits for services named in host.waitingFor (it starts when they appear).
// A Package with a client half (or one the runtime gates) returns at once with status
// "awaiting-approval" (the user must approve it in the Cordis panel: do not wait, poll
// or retry) or "starting" (a page is loading it; this is not yet success): the outcome
// arrives later as a message to you. Never request again after the user rejected a run.
// The answer has one shape whatever the halves.
var Run = kit.NewTool[RunInput, RunOutput]("cordis_run")

// Stop ends a Plugin's run: everything its host half registered is removed before this
// returns, a pending approval request is cancelled, and a start in flight is cancelled.
// The Plugin keeps its Packages, version pointers and grants: cordis_run starts it
// again. Stopping a Plugin that is not running succeeds.
var Stop = kit.NewTool[StopInput, StopOutput]("cordis_stop")

// Undefine stops a Plugin like cordis_stop and removes it with all its Packages and
// grants. Its id is never reused; a second undefine of it fails because it no longer
// exists. Use cordis_stop instead to keep the definition.
var Undefine = kit.NewTool[UndefineInput, UndefineOutput]("cordis_undefine")

// Names returns the names of the seven tools, in the order the runner registers them.
// Package tooldecl's list of control tools reads it: a tool declared here joins that list
// here, beside its declaration. The slice is the caller's.
func Names() []string {
	return []string{InspectList.Name(), InspectQuery.Name(), InspectSelf.Name(), Define.Name(), Run.Name(), Stop.Name(), Undefine.Name()}
}

// InspectSelfInput is the input of cordis_inspect_self.
type InspectSelfInput struct {
	// A Plugin of this session, such as "clock-1"; omit it to list all of them.
	PluginID string `json:"pluginId,omitempty"`
	// A Package of that Plugin, such as "pkg-2", to read its source and runtime; only
	// together with pluginId.
	PackageID string `json:"packageId,omitempty"`
}

// SelfMode says which of the three answers cordis_inspect_self gave.
type SelfMode string

// The three answers of cordis_inspect_self.
const (
	// Every Plugin of this session, in plugins.
	SelfPlugins SelfMode = "plugins"
	// One Plugin and its Packages, in plugin.
	SelfPlugin SelfMode = "plugin"
	// One Package with its source and runtime, in plugin and package.
	SelfPackage SelfMode = "package"
)

// InspectSelfOutput is the result of cordis_inspect_self.
type InspectSelfOutput struct {
	// Which answer this is.
	Mode SelfMode `json:"mode"`
	// Mode "plugins": this session's Plugins, in creation order (an empty list when it has
	// none).
	Plugins *[]PluginSummary `json:"plugins,omitempty"`
	// Mode "plugins": messages for you that the runner kept while this session was not
	// connected, oldest first (they are also delivered when it connects).
	Messages []Message `json:"messages,omitempty"`
	// Modes "plugin" and "package": the Plugin (with its Packages in mode "plugin").
	Plugin *PluginSummary `json:"plugin,omitempty"`
	// Mode "package": the Package with its source and runtime.
	Package *PackageDetail `json:"package,omitempty"`
}

// PluginState is what a Plugin is doing, as cordis_inspect_self shows it (PluginSummary.State,
// Runtime.State). It is never stored: each read derives it from the Plugin's latest
// attempt (RunStatus), its live run and its version pointers. A define makes it defined;
// cordis_run moves it to awaiting-approval, starting or client-pending, then running or
// waiting (or straight there for a host-only Package); a person's decline, a failure,
// cordis_stop and an expired deadline move it to rejected, failed, cancelled or stopped,
// and expired. A Plugin whose working run outlived a later attempt that failed or was
// declined reads running: latestRun says what became of the attempt.
type PluginState string

// The states of a Plugin.
const (
	// Defined and never run.
	PluginDefined PluginState = "defined"
	// The user must approve the run in the Cordis panel; do not retry.
	PluginAwaitingApproval PluginState = "awaiting-approval"
	// A host half is starting.
	PluginStarting PluginState = "starting"
	// A page is loading the client half; the outcome arrives as a message.
	PluginClientPending PluginState = "client-pending"
	// Running.
	PluginRunning PluginState = "running"
	// Running, but parked until the services in waitingFor appear.
	PluginWaiting PluginState = "waiting"
	// Stopped; its Packages remain.
	PluginStopped PluginState = "stopped"
	// The latest run failed; latestRun.error says where and why.
	PluginFailed PluginState = "failed"
	// The user declined the latest run; do not ask again unless the user asks.
	PluginRejected PluginState = "rejected"
	// cordis_stop or cordis_undefine cancelled the latest run before it started.
	PluginCancelled PluginState = "cancelled"
	// Nobody answered the latest run request in time.
	PluginExpired PluginState = "expired"
)

// PluginSummary is one Plugin of this session.
type PluginSummary struct {
	// The Plugin id, such as "clock-1".
	PluginID string `json:"pluginId"`
	// The name of its reference Package (next, else current, else the last defined).
	Name string `json:"name"`
	// How many Packages it has.
	PackageCount int `json:"packageCount"`
	// Its state.
	State PluginState `json:"state"`
	// The last Package whose run completed.
	CurrentPackageID string `json:"currentPackageId,omitempty"`
	// The Package being approved, started, or that failed most recently.
	NextPackageID string `json:"nextPackageId,omitempty"`
	// The run that is live now.
	ActiveRun *ActiveRun `json:"activeRun,omitempty"`
	// The run waiting for the user's approval.
	PendingApproval *PendingApproval `json:"pendingApproval,omitempty"`
	// The most recent run attempt, with its diagnostic when it failed.
	LatestRun *Attempt `json:"latestRun,omitempty"`
	// Mode "plugin": its Packages in define order, without source.
	Packages []PackageInfo `json:"packages,omitempty"`
	// True when the Plugin was defined before the runtime last restarted and was read back
	// from its definition store: its Packages and grants were kept, its run was not.
	Restored bool `json:"restored,omitempty"`
	// Set when the runtime restarted this Plugin at its last boot because it was running
	// when the previous process ended. Absent on a restored Plugin whose run was not
	// restarted: start it again with cordis_run.
	BootRestart *BootRestart `json:"bootRestart,omitempty"`
}

// BootRestart is what the runtime did at boot for a Plugin that was running when the
// previous process ended.
type BootRestart struct {
	// The Package it started again: the Plugin's current Package.
	PackageID string `json:"packageId"`
	// The run it started, such as "run-7"; absent when the start failed before a run was made.
	PluginRunID string `json:"pluginRunId,omitempty"`
	// What the restart did: "running", "waiting", "starting" (a page of the panel must
	// start its client half), "awaiting-approval" (no grant covers it: the user must
	// approve it again) or "failed" (see error).
	Status StartStatus `json:"status"`
	// Why the restart failed, when status is "failed".
	Error string `json:"error,omitempty"`
}

// ActiveRun names the live run of a Plugin.
type ActiveRun struct {
	// The run id, such as "run-3".
	PluginRunID string `json:"pluginRunId"`
	// The Package it runs.
	PackageID string `json:"packageId"`
}

// PendingApproval names a run waiting for the user's approval.
type PendingApproval struct {
	// The run id.
	PluginRunID string `json:"pluginRunId"`
	// The Package to approve.
	PackageID string `json:"packageId"`
	// The mode it was requested with.
	Mode Mode `json:"mode"`
}

// PackageInfo describes one Package without its source.
type PackageInfo struct {
	// The Package id, such as "pkg-2".
	PackageID string `json:"packageId"`
	// Its name.
	Name string `json:"name"`
	// Its purpose.
	Purpose string `json:"purpose"`
	// Whether it has a host half.
	HasHostHalf bool `json:"hasHostHalf"`
	// Whether it has a client half.
	HasClientHalf bool `json:"hasClientHalf"`
	// Whether it is the current Package.
	IsCurrent bool `json:"isCurrent"`
	// Whether it is the next Package.
	IsNext bool `json:"isNext"`
}

// RunStatus is how far one run attempt got (Attempt.Status); it is stored with the
// Plugin as its latest run. cordis_run makes an attempt starting-host, or
// awaiting-approval when a person must approve it first; the approval (or a page, when
// none is needed) starts the host half, and client-pending follows while a page loads the
// client half. Once every half started the attempt is running, or waiting while a half is
// parked on missing services. It ends rejected (a person declined), failed (a half
// failed), cancelled (cordis_stop or cordis_undefine before it started, or a restart of
// the runtime), expired (nobody answered in time) or, once it ran, stopped.
type RunStatus string

// The statuses of a run attempt.
const (
	// Waiting for the user's approval.
	RunAwaitingApproval RunStatus = "awaiting-approval"
	// The host half is starting.
	RunStartingHost RunStatus = "starting-host"
	// A page is loading the client half.
	RunClientPending RunStatus = "client-pending"
	// Running.
	RunRunning RunStatus = "running"
	// Running, parked until missing services appear.
	RunWaiting RunStatus = "waiting"
	// The user declined it.
	RunRejected RunStatus = "rejected"
	// A half failed; error says where and why.
	RunFailed RunStatus = "failed"
	// A stop or undefine cancelled it before it started.
	RunCancelled RunStatus = "cancelled"
	// Nobody answered in time.
	RunExpired RunStatus = "expired"
	// It ran and was stopped.
	RunStopped RunStatus = "stopped"
)

// Attempt is the most recent run attempt of a Plugin, kept after the run is gone so its
// failure stays readable.
type Attempt struct {
	// The run id.
	PluginRunID string `json:"pluginRunId"`
	// The Package it ran.
	PackageID string `json:"packageId"`
	// The mode it was started with.
	Mode Mode `json:"mode"`
	// How far it got.
	Status RunStatus `json:"status"`
	// The run request a page answers, while one is pending.
	ApprovalRequestID string `json:"approvalRequestId,omitempty"`
	// Whether the request needs the user's approval.
	RequiresApproval bool `json:"requiresApproval,omitempty"`
	// The host half.
	Host Half `json:"host"`
	// The client half.
	Client Half `json:"client"`
	// Where and why it failed.
	Error *Diagnostic `json:"error,omitempty"`
	// A crash of the client UI while the run is live; the run keeps running.
	RenderFailure *RenderFailure `json:"renderFailure,omitempty"`
}

// HalfStatus is the state of one half, host or client, of a run attempt (Half.Status,
// HostState.Status). A half the Package lacks is absent throughout. A present half is
// pending until its run starts it, then running, or waiting while it is parked on
// services it injects that are missing; it is failed when its code threw while loading or
// applying, and stopped once its run ended or when it is not the running Package's.
type HalfStatus string

// The states of a half.
const (
	// The Package has no such half.
	HalfAbsent HalfStatus = "absent"
	// Not started yet.
	HalfPending HalfStatus = "pending"
	// Not running.
	HalfStopped HalfStatus = "stopped"
	// Running.
	HalfRunning HalfStatus = "running"
	// Running, parked until the services in waitingFor appear.
	HalfWaiting HalfStatus = "waiting"
	// It failed; error says why.
	HalfFailed HalfStatus = "failed"
)

// Half is the state of one half of a run.
type Half struct {
	// Its state.
	Status HalfStatus `json:"status"`
	// Services it waits for.
	WaitingFor []string `json:"waitingFor"`
	// Why it failed.
	Error string `json:"error,omitempty"`
}

// Phase names where a run failed.
type Phase string

// The phases a run can fail in.
const (
	// The approval step (declined, cancelled or expired).
	PhaseApproval Phase = "approval"
	// Evaluating the host half.
	PhaseHostLoad Phase = "host-load"
	// The host half's apply.
	PhaseHostApply Phase = "host-apply"
	// Loading the client half.
	PhaseClientLoad Phase = "client-load"
	// The client half's apply.
	PhaseClientApply Phase = "client-apply"
	// Rendering the client half.
	PhaseClientRender Phase = "client-render"
)

// Diagnostic says where and why a run failed.
type Diagnostic struct {
	// Where it failed.
	Phase Phase `json:"phase"`
	// What went wrong and how to fix it.
	Message string `json:"message"`
	// The JavaScript stack, when known.
	Stack string `json:"stack,omitempty"`
	// The Plugin.
	PluginID string `json:"pluginId"`
	// The Package.
	PackageID string `json:"packageId"`
	// The run.
	PluginRunID string `json:"pluginRunId"`
}

// RenderFailure is a crash of a live run's client UI, reported by a page.
type RenderFailure struct {
	// The slot it rendered into.
	Slot string `json:"slot"`
	// The error.
	Message string `json:"message"`
	// The JavaScript stack, when known.
	Stack string `json:"stack,omitempty"`
	// Whether it gave up its slot.
	Abdicated bool `json:"abdicated"`
}

// PackageDetail is one Package with its source and runtime.
type PackageDetail struct {
	// The Package id.
	PackageID string `json:"packageId"`
	// Its name.
	Name string `json:"name"`
	// Its purpose.
	Purpose string `json:"purpose"`
	// Its source.
	Code Code `json:"code"`
	// Its halves now: live when it is the running Package, else from its latest run.
	Runtime Runtime `json:"runtime"`
}

// Runtime is the state of a Package's halves.
type Runtime struct {
	// The state of the Package: running or waiting when it is the live run, else the
	// status of its latest run, else stopped or defined.
	State PluginState `json:"state"`
	// The host half.
	Host HostState `json:"host"`
	// The client half.
	Client Half `json:"client"`
}

// HostState is the state of a host half.
type HostState struct {
	// Its state.
	Status HalfStatus `json:"status"`
	// Services it provides, sorted.
	Provides []string `json:"provides"`
	// Services it waits for; it starts when they appear.
	WaitingFor []string `json:"waitingFor"`
	// The methods it registered with harness.handle.
	Handlers []string `json:"handlers,omitempty"`
	// Why it failed.
	Error string `json:"error,omitempty"`
}

// MessageKind is how a message reached you.
type MessageKind string

// The kinds of message.
const (
	// An outcome or failure that needs your attention.
	MessageSteer MessageKind = "steer"
	// Context about what the user did.
	MessageInject MessageKind = "inject"
)

// Message is a message the runner sent to this session's model.
type Message struct {
	// How it was sent.
	Kind MessageKind `json:"kind"`
	// The Plugin it is about.
	PluginID string `json:"pluginId,omitempty"`
	// The message.
	Text string `json:"text"`
}

// TargetKind says whether cordis_define makes a new Plugin or adds to an existing one.
type TargetKind string

// The two targets of cordis_define.
const (
	// A new Plugin; give idPrefix.
	TargetNew TargetKind = "new"
	// An existing Plugin of this session; give pluginId.
	TargetExisting TargetKind = "existing"
)

// Target names the Plugin cordis_define adds a Package to.
type Target struct {
	// "new" with idPrefix, or "existing" with pluginId.
	Kind TargetKind `json:"kind"`
	// With kind "new": 3–6 lowercase English letters, such as "clock"; the Plugin's id
	// becomes clock-N.
	IDPrefix string `json:"idPrefix,omitempty"`
	// With kind "existing": a Plugin of this session, such as "clock-1".
	PluginID string `json:"pluginId,omitempty"`
}

// Code holds a Package's halves; omit a half the Package does not have.
type Code struct {
	// The host half: the body of an async function that returns a plugin; it runs in the
	// host process.
	Host *string `json:"host,omitempty"`
	// The client half: the body of an async function that returns a plugin; it runs in
	// the user's browser page after the user approves it.
	Client *string `json:"client,omitempty"`
}

// DefineInput is the input of cordis_define.
type DefineInput struct {
	// The Plugin to add the Package to.
	Plugin Target `json:"plugin"`
	// A short readable name for the Package, such as "Clock widget".
	Name string `json:"name"`
	// One sentence, for the user, saying what the Package does.
	Purpose string `json:"purpose"`
	// The Package's halves: host, client, or both.
	Code Code `json:"code"`
}

// DefineOutput is the result of cordis_define.
type DefineOutput struct {
	// The Plugin.
	PluginID string `json:"pluginId"`
	// The new Package; pass it to cordis_run.
	PackageID string `json:"packageId"`
	// The Package's name, trimmed.
	Name string `json:"name"`
	// The Package's purpose, trimmed.
	Purpose string `json:"purpose"`
	// Whether it has a host half.
	HasHostHalf bool `json:"hasHostHalf"`
	// Whether it has a client half.
	HasClientHalf bool `json:"hasClientHalf"`
}

// Mode is how cordis_run starts a Package.
type Mode string

// The two modes.
const (
	// The first activation, or a restart, retry or rollback of the current Package.
	ModeRun Mode = "run"
	// A switch to a Package other than the current one.
	ModeUpdate Mode = "update"
)

// RunInput is the input of cordis_run.
type RunInput struct {
	// A Plugin of this session.
	PluginID string `json:"pluginId"`
	// The Package to start.
	PackageID string `json:"packageId"`
	// "run" or "update"; see the tool's description.
	Mode Mode `json:"mode"`
}

// StartStatus is what a start did: the status of cordis_run's answer (RunOutput.Status)
// and of a restart at boot (BootRestart.Status). It is fixed when the call answers and
// does not move afterwards: what became of the run later is the Plugin's state
// (PluginState) and its latest run's status (RunStatus), and arrives as a message. A
// Package that needs a person's approval answers awaiting-approval; one with a client
// half that needs none answers starting (a page loads it); a host-only Package starts
// inside the call and answers running, or waiting while its host half is parked on
// missing services. Only a restart at boot, which has no caller to return an error to,
// is ever failed: cordis_run returns an error instead.
type StartStatus string

// The answers of cordis_run, and StartFailed.
const (
	// The user must approve the run in the Cordis panel; the outcome arrives as a message.
	StartAwaitingApproval StartStatus = "awaiting-approval"
	// A page is starting it; not yet success; the outcome arrives as a message.
	StartStarting StartStatus = "starting"
	// It runs.
	StartRunning StartStatus = "running"
	// It runs, parked until the services in host.waitingFor appear.
	StartWaiting StartStatus = "waiting"
	// A restart at boot failed; BootRestart.Error says why. cordis_run returns an error
	// instead.
	StartFailed StartStatus = "failed"
)

// RunOutput is the result of cordis_run: one shape whatever the Package's halves.
type RunOutput struct {
	// What happened.
	Status StartStatus `json:"status"`
	// The Plugin.
	PluginID string `json:"pluginId"`
	// The Package started.
	PackageID string `json:"packageId"`
	// The new run's id.
	PluginRunID string `json:"pluginRunId"`
	// The mode it was started with.
	Mode Mode `json:"mode"`
	// The last Package whose run completed (this one once it runs).
	CurrentPackageID string `json:"currentPackageId,omitempty"`
	// The Package still being started, until it completes.
	NextPackageID string `json:"nextPackageId,omitempty"`
	// The run request pages answer, while the run waits for one.
	ApprovalRequestID string `json:"approvalRequestId,omitempty"`
	// The host half.
	Host HostState `json:"host"`
	// The client half.
	Client Half `json:"client"`
}

// StopInput is the input of cordis_stop.
type StopInput struct {
	// A Plugin of this session.
	PluginID string `json:"pluginId"`
}

// StopOutput is the result of cordis_stop.
type StopOutput struct {
	// The Plugin that is stopped; its Packages remain.
	PluginID string `json:"pluginId"`
}

// UndefineInput is the input of cordis_undefine.
type UndefineInput struct {
	// A Plugin of this session.
	PluginID string `json:"pluginId"`
}

// UndefineOutput is the result of cordis_undefine.
type UndefineOutput struct {
	// The Plugin that was removed with all its Packages.
	PluginID string `json:"pluginId"`
	// Whether it had a live run.
	WasRunning bool `json:"wasRunning"`
}
