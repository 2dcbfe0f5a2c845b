package panel

import (
	"cmp"
	"encoding/json"
	"strings"

	"github.com/cordiskit/cordiskit/runner"
	"github.com/cordiskit/cordiskit/tooldecl/dynamic"
)

// The card models (docs/dynamic-plugins.md, "The panel's readings and cards"): what a chat
// UI shows for the model's cordis_define, cordis_run, cordis_stop and cordis_undefine
// calls. A card's fields come only from the call and its result as the transcript keeps
// them, so a replay renders the same card; only its reading, which says what the Plugin
// does now, looks at the page (the inventory, what was removed, what this page loaded).

// A Call is one tool call as a transcript keeps it.
type Call struct {
	Tool    string          // "cordis_define", "cordis_run", "cordis_stop", "cordis_undefine"
	Session string          // the session that made it
	Seq     int64           // its position in the session's log: later calls are higher
	Args    string          // the arguments as the model sent them; may be truncated
	Result  json.RawMessage // the structured result of a success; nil otherwise
	Error   string          // the tool error's text; "" when it did not fail
	// Interrupted: the call was cut off (the turn was cancelled) before it answered.
	Interrupted bool
}

// CardState is the state of the call a card shows (not of its Plugin).
type CardState string

// Card states.
const (
	CardRunning CardState = "running" // no answer yet
	CardOK      CardState = "ok"
	CardError   CardState = "error"
	CardStopped CardState = "stopped" // interrupted; ErrorCode says so
)

// ErrorInterrupted is the error code of a stopped card.
const ErrorInterrupted = "interrupted"

// State is the card state of c.
func (c Call) State() CardState {
	switch {
	case c.Interrupted:
		return CardStopped
	case c.Error != "":
		return CardError
	case c.Result != nil:
		return CardOK
	}
	return CardRunning
}

// Reading is what a card says its Plugin does now.
type Reading string

// Readings of a card: the row readings (docs/dynamic-plugins.md, "The panel's readings and
// cards"), and two of cards only.
const (
	ReadingIdle             Reading = "idle"
	ReadingRunning          Reading = "running"
	ReadingClientPending    Reading = "client-pending" // the host runs it; this page did not load it
	ReadingAwaitingApproval Reading = "awaiting-approval"
	ReadingFailed           Reading = "failed"
	ReadingRemoved          Reading = "removed"    // the Plugin was undefined
	ReadingSuperseded       Reading = "superseded" // a later successful run of the same Package
)

// A LoadedRun is a run whose client half this page has loaded.
type LoadedRun struct {
	PluginID, PackageID, PluginRunID string
}

// Page is what a card's reading looks at: the page's last inventory, the Plugins it saw
// go, and the runs it loaded.
type Page struct {
	Rows    []runner.InventoryRow
	Removed map[string]bool
	Loaded  []LoadedRun
}

func (p Page) row(pluginID string) (runner.InventoryRow, bool) {
	for _, r := range p.Rows {
		if r.PluginID == pluginID {
			return r, true
		}
	}
	return runner.InventoryRow{}, false
}

// VisibleStatus is the reading of Package packageID of row on a page that
// loaded the runs loaded. A host-only run reads running on every page; a client-bearing
// one only on the page that loaded exactly that run.
func VisibleStatus(row runner.InventoryRow, packageID string, loaded []LoadedRun) Reading {
	a := row.ActiveRun
	if a == nil || a.PackageID != packageID {
		return ReadingIdle
	}
	if !hasClient(row, packageID) {
		return ReadingRunning
	}
	for _, l := range loaded {
		if l == (LoadedRun{row.PluginID, a.PackageID, a.PluginRunID}) {
			return ReadingRunning
		}
	}
	return ReadingClientPending
}

func hasClient(row runner.InventoryRow, packageID string) bool {
	for _, k := range row.Packages {
		if k.PackageID == packageID {
			return k.HasClientHalf
		}
	}
	return false
}

// A DefineCard shows a cordis_define call: what the model defined, its sources, and the
// ids the runner gave it. It has no switch and no approval button.
type DefineCard struct {
	State   CardState `json:"state"`            // the state of the call
	Error   string    `json:"error,omitempty"`  // the tool error, or ErrorInterrupted
	Name    string    `json:"name"`             // from the arguments; their first line when they do not parse
	Purpose string    `json:"purpose"`          // from the arguments
	Host    *string   `json:"host,omitempty"`   // the host half's source; nil when absent
	Client  *string   `json:"client,omitempty"` // the client half's source
	// PluginID and PackageID come from the result: only on a success.
	PluginID  string `json:"pluginId,omitempty"`
	PackageID string `json:"packageId,omitempty"` // from the result: only on a success
}

// DefineCardOf is the card of a cordis_define call.
func DefineCardOf(c Call) DefineCard {
	d := DefineCard{State: c.State(), Error: callError(c)}
	var in dynamic.DefineInput
	if err := json.Unmarshal([]byte(c.Args), &in); err != nil {
		// Truncated or not JSON: show what there is rather than nothing.
		d.Name, _, _ = strings.Cut(c.Args, "\n")
	} else {
		d.Name, d.Purpose, d.Host, d.Client = in.Name, in.Purpose, in.Code.Host, in.Code.Client
	}
	var out dynamic.DefineOutput
	if d.State == CardOK && json.Unmarshal(c.Result, &out) == nil {
		d.PluginID, d.PackageID = out.PluginID, out.PackageID
	}
	return d
}

// Reading is the card's reading on p: removed, else the visible status of its Package.
func (d DefineCard) Reading(p Page) Reading {
	if d.PluginID == "" {
		return ReadingIdle
	}
	if p.Removed[d.PluginID] {
		return ReadingRemoved
	}
	row, ok := p.row(d.PluginID)
	if !ok {
		return ReadingIdle
	}
	return VisibleStatus(row, d.PackageID, p.Loaded)
}

// A RunCard shows a cordis_run call. While it reads running it renders the
// tool.view.cordis slot keyed ViewKey with the props {pluginId, packageId, pluginRunId}.
type RunCard struct {
	State   CardState `json:"state"`           // the state of the call
	Error   string    `json:"error,omitempty"` // the tool error, or ErrorInterrupted
	Session string    `json:"session"`         // the session that made the call
	Seq     int64     `json:"seq"`             // the call's place among the session's calls
	// PluginID, PackageID and Mode come from the result, else the arguments;
	// PluginRunID from the result only.
	PluginID    string       `json:"pluginId"`
	PackageID   string       `json:"packageId"`             // from the result, else the arguments
	PluginRunID string       `json:"pluginRunId,omitempty"` // from the result only
	Mode        dynamic.Mode `json:"mode,omitempty"`        // from the result, else the arguments
}

// RunCardOf is the card of a cordis_run call.
func RunCardOf(c Call) RunCard {
	r := RunCard{State: c.State(), Error: callError(c), Session: c.Session, Seq: c.Seq}
	var in dynamic.RunInput
	if json.Unmarshal([]byte(c.Args), &in) == nil {
		r.PluginID, r.PackageID, r.Mode = in.PluginID, in.PackageID, in.Mode
	}
	var out dynamic.RunOutput
	if r.State == CardOK && json.Unmarshal(c.Result, &out) == nil {
		r.PluginID = cmp.Or(out.PluginID, r.PluginID)
		r.PackageID = cmp.Or(out.PackageID, r.PackageID)
		r.Mode = cmp.Or(out.Mode, r.Mode)
		r.PluginRunID = out.PluginRunID
	}
	return r
}

// ViewKey is the key of the card's tool.view.cordis slot: "<pluginId>.<packageId>".
func (r RunCard) ViewKey() string { return r.PluginID + "." + r.PackageID }

// Reading is the card's reading on p, with cards the session's other run cards (for
// superseded), checked in the order docs/dynamic-plugins.md, "The panel's readings and
// cards", gives: removed, superseded, awaiting-approval, failed (the attempt of this run),
// the visible status, idle.
func (r RunCard) Reading(p Page, cards []RunCard) Reading {
	if p.Removed[r.PluginID] {
		return ReadingRemoved
	}
	for _, o := range cards {
		if o.State == CardOK && o.Session == r.Session && o.ViewKey() == r.ViewKey() && o.Seq > r.Seq {
			return ReadingSuperseded
		}
	}
	row, ok := p.row(r.PluginID)
	if !ok {
		return ReadingIdle
	}
	if a := row.LatestRun; a != nil && r.PluginRunID != "" && a.PluginRunID == r.PluginRunID {
		switch a.Status {
		case dynamic.RunAwaitingApproval:
			return ReadingAwaitingApproval
		case dynamic.RunFailed:
			return ReadingFailed
		}
	}
	return VisibleStatus(row, r.PackageID, p.Loaded)
}

// ShowsView reports whether the card renders its tool.view.cordis slot: only when it
// reads running.
func (r RunCard) ShowsView(p Page, cards []RunCard) bool {
	return r.Reading(p, cards) == ReadingRunning
}

// A RowCard is the compact row of a cordis_stop or cordis_undefine call: the Plugin it
// names and what the call answered.
type RowCard struct {
	State    CardState `json:"state"`            // the state of the call
	Error    string    `json:"error,omitempty"`  // the tool error, or ErrorInterrupted
	Tool     string    `json:"tool"`             // cordis_stop or cordis_undefine
	PluginID string    `json:"pluginId"`         // from the arguments
	Output   string    `json:"output,omitempty"` // the result as JSON; "" unless it succeeded
}

// RowCardOf is the card of a cordis_stop or cordis_undefine call.
func RowCardOf(c Call) RowCard {
	rc := RowCard{State: c.State(), Error: callError(c), Tool: c.Tool}
	var in dynamic.StopInput
	if json.Unmarshal([]byte(c.Args), &in) == nil {
		rc.PluginID = in.PluginID
	}
	if rc.State == CardOK {
		rc.Output = string(c.Result)
	}
	return rc
}

func callError(c Call) string {
	if c.Interrupted {
		return ErrorInterrupted
	}
	return c.Error
}
