package panel

import (
	"encoding/json"
	"testing"

	"github.com/cordiskit/cordiskit/runner"
	"github.com/cordiskit/cordiskit/tooldecl/dynamic"
)

func TestCallState(t *testing.T) {
	for _, tc := range []struct {
		c    Call
		want CardState
	}{
		{Call{}, CardRunning},
		{Call{Result: json.RawMessage(`{}`)}, CardOK},
		{Call{Error: "refused"}, CardError},
		{Call{Interrupted: true, Error: "x"}, CardStopped},
	} {
		if got := tc.c.State(); got != tc.want {
			t.Errorf("%+v: state %s, want %s", tc.c, got, tc.want)
		}
	}
}

func TestDefineCard(t *testing.T) {
	args := `{"plugin":{"kind":"new","idPrefix":"clock"},"name":"Clock","purpose":"Shows the time.","code":{"host":"H","client":"C"}}`
	for _, tc := range []struct {
		name string
		c    Call
		want DefineCard
	}{
		{"ok", Call{Args: args, Result: json.RawMessage(`{"pluginId":"clock-1","packageId":"pkg-1"}`)},
			DefineCard{State: CardOK, Name: "Clock", Purpose: "Shows the time.", Host: ptr("H"), Client: ptr("C"), PluginID: "clock-1", PackageID: "pkg-1"}},
		{"pending: no ids yet", Call{Args: args}, DefineCard{State: CardRunning, Name: "Clock", Purpose: "Shows the time.", Host: ptr("H"), Client: ptr("C")}},
		{"refused: ids only on a success", Call{Args: args, Error: "no name"},
			DefineCard{State: CardError, Error: "no name", Name: "Clock", Purpose: "Shows the time.", Host: ptr("H"), Client: ptr("C")}},
		{"truncated: the raw first line", Call{Args: "{\"name\":\"Clo\nck\"", Interrupted: true},
			DefineCard{State: CardStopped, Error: ErrorInterrupted, Name: `{"name":"Clo`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := DefineCardOf(tc.c)
			if !sameDefine(got, tc.want) {
				t.Errorf("DefineCardOf = %+v, want %+v", got, tc.want)
			}
		})
	}
}

func sameDefine(a, b DefineCard) bool {
	eq := func(x, y *string) bool { return (x == nil) == (y == nil) && (x == nil || *x == *y) }
	return eq(a.Host, b.Host) && eq(a.Client, b.Client) &&
		a.State == b.State && a.Error == b.Error && a.Name == b.Name && a.Purpose == b.Purpose && a.PluginID == b.PluginID && a.PackageID == b.PackageID
}

// row is an inventory row of Plugin clock-1 with pkg-1 (host only) and pkg-2 (with a
// client half), active on pkg (none when ""), whose latest attempt is latest.
func row(pkg, runID string, latest *dynamic.Attempt) runner.InventoryRow {
	r := runner.InventoryRow{PluginID: "clock-1", Session: "s1", LatestRun: latest, Packages: []dynamic.PackageInfo{
		{PackageID: "pkg-1", HasHostHalf: true}, {PackageID: "pkg-2", HasHostHalf: true, HasClientHalf: true}}}
	if pkg != "" {
		r.ActiveRun = &dynamic.ActiveRun{PackageID: pkg, PluginRunID: runID}
	}
	return r
}

func TestVisibleStatus(t *testing.T) {
	loaded := []LoadedRun{{"clock-1", "pkg-2", "run-2"}}
	for _, tc := range []struct {
		name   string
		row    runner.InventoryRow
		pkg    string
		loaded []LoadedRun
		want   Reading
	}{
		{"no active run", row("", "", nil), "pkg-1", nil, ReadingIdle},
		{"another Package runs", row("pkg-1", "run-1", nil), "pkg-2", loaded, ReadingIdle},
		{"host only: running on every page", row("pkg-1", "run-1", nil), "pkg-1", nil, ReadingRunning},
		{"client half loaded here", row("pkg-2", "run-2", nil), "pkg-2", loaded, ReadingRunning},
		{"client half not loaded here", row("pkg-2", "run-2", nil), "pkg-2", nil, ReadingClientPending},
		{"an older run of it loaded here", row("pkg-2", "run-3", nil), "pkg-2", loaded, ReadingClientPending},
	} {
		if got := VisibleStatus(tc.row, tc.pkg, tc.loaded); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, got, tc.want)
		}
	}
}

func TestDefineCardReading(t *testing.T) {
	ok := DefineCardOf(Call{Args: `{"name":"Clock"}`, Result: json.RawMessage(`{"pluginId":"clock-1","packageId":"pkg-1"}`)})
	for _, tc := range []struct {
		name string
		card DefineCard
		page Page
		want Reading
	}{
		{"removed", ok, Page{Rows: []runner.InventoryRow{row("pkg-1", "run-1", nil)}, Removed: map[string]bool{"clock-1": true}}, ReadingRemoved},
		{"its Package runs", ok, Page{Rows: []runner.InventoryRow{row("pkg-1", "run-1", nil)}}, ReadingRunning},
		{"not running", ok, Page{Rows: []runner.InventoryRow{row("", "", nil)}}, ReadingIdle},
		{"a failed define has no Plugin", DefineCardOf(Call{Error: "refused"}), Page{Rows: []runner.InventoryRow{row("pkg-1", "run-1", nil)}}, ReadingIdle},
	} {
		if got := tc.card.Reading(tc.page); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, got, tc.want)
		}
	}
}

func TestRunCard(t *testing.T) {
	args := `{"pluginId":"clock-1","packageId":"pkg-2","mode":"run"}`
	for _, tc := range []struct {
		name string
		c    Call
		want RunCard
	}{
		{"ids from the result", Call{Session: "s1", Seq: 4, Args: `{"pluginId":"clock-1","packageId":"pkg-1","mode":"run"}`,
			Result: json.RawMessage(`{"status":"running","pluginId":"clock-1","packageId":"pkg-2","pluginRunId":"run-2","mode":"update"}`)},
			RunCard{State: CardOK, Session: "s1", Seq: 4, PluginID: "clock-1", PackageID: "pkg-2", PluginRunID: "run-2", Mode: dynamic.ModeUpdate}},
		{"failed: the arguments, no run id", Call{Args: args, Error: "no such package"},
			RunCard{State: CardError, Error: "no such package", PluginID: "clock-1", PackageID: "pkg-2", Mode: dynamic.ModeRun}},
		{"unparsable arguments", Call{Args: `{"plugin`}, RunCard{State: CardRunning}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := RunCardOf(tc.c); got != tc.want {
				t.Errorf("RunCardOf = %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestRunCardReading(t *testing.T) {
	card := func(seq int64, pkg, runID string, state CardState) RunCard {
		return RunCard{State: state, Session: "s1", Seq: seq, PluginID: "clock-1", PackageID: pkg, PluginRunID: runID}
	}
	mine := card(1, "pkg-2", "run-2", CardOK)
	awaiting := &dynamic.Attempt{PluginRunID: "run-2", PackageID: "pkg-2", Status: dynamic.RunAwaitingApproval}
	failed := &dynamic.Attempt{PluginRunID: "run-2", PackageID: "pkg-2", Status: dynamic.RunFailed}
	loaded := []LoadedRun{{"clock-1", "pkg-2", "run-2"}}
	for _, tc := range []struct {
		name  string
		page  Page
		cards []RunCard
		want  Reading
	}{
		{"removed comes first", Page{Rows: []runner.InventoryRow{row("", "", awaiting)}, Removed: map[string]bool{"clock-1": true}},
			[]RunCard{card(2, "pkg-2", "run-3", CardOK)}, ReadingRemoved},
		{"a later successful run of the same Package supersedes", Page{Rows: []runner.InventoryRow{row("pkg-2", "run-3", nil)}},
			[]RunCard{mine, card(2, "pkg-2", "run-3", CardOK)}, ReadingSuperseded},
		{"a later failed run does not", Page{Rows: []runner.InventoryRow{row("", "", awaiting)}},
			[]RunCard{mine, card(2, "pkg-2", "", CardError)}, ReadingAwaitingApproval},
		{"an earlier run does not", Page{Rows: []runner.InventoryRow{row("pkg-2", "run-2", nil)}, Loaded: loaded},
			[]RunCard{card(0, "pkg-2", "run-1", CardOK), mine}, ReadingRunning},
		{"another session's run does not", Page{Rows: []runner.InventoryRow{row("pkg-2", "run-2", nil)}, Loaded: loaded},
			[]RunCard{mine, {State: CardOK, Session: "s2", Seq: 9, PluginID: "clock-1", PackageID: "pkg-2"}}, ReadingRunning},
		{"another Package's run does not", Page{Rows: []runner.InventoryRow{row("pkg-1", "run-4", nil)}},
			[]RunCard{mine, card(3, "pkg-1", "run-4", CardOK)}, ReadingIdle},
		{"awaiting approval", Page{Rows: []runner.InventoryRow{row("", "", awaiting)}}, nil, ReadingAwaitingApproval},
		{"failed: the attempt of this run", Page{Rows: []runner.InventoryRow{row("", "", failed)}}, nil, ReadingFailed},
		{"another run's failure is not this card's", Page{Rows: []runner.InventoryRow{row("pkg-2", "run-2", &dynamic.Attempt{PluginRunID: "run-1", Status: dynamic.RunFailed})}}, nil, ReadingClientPending},
		{"running here", Page{Rows: []runner.InventoryRow{row("pkg-2", "run-2", nil)}, Loaded: loaded}, nil, ReadingRunning},
		{"no row yet", Page{}, nil, ReadingIdle},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := mine.Reading(tc.page, tc.cards); got != tc.want {
				t.Errorf("reading %s, want %s", got, tc.want)
			}
			if got := mine.ShowsView(tc.page, tc.cards); got != (tc.want == ReadingRunning) {
				t.Errorf("ShowsView %v with reading %s", got, tc.want)
			}
		})
	}
	if k := mine.ViewKey(); k != "clock-1.pkg-2" {
		t.Errorf("ViewKey = %q", k)
	}
}

func TestRowCard(t *testing.T) {
	for _, tc := range []struct {
		c    Call
		want RowCard
	}{
		{Call{Tool: "cordis_stop", Args: `{"pluginId":"clock-1"}`, Result: json.RawMessage(`{"pluginId":"clock-1","wasRunning":true}`)},
			RowCard{State: CardOK, Tool: "cordis_stop", PluginID: "clock-1", Output: `{"pluginId":"clock-1","wasRunning":true}`}},
		{Call{Tool: "cordis_undefine", Args: `{"pluginId":"clock-9"}`, Error: "clock-9 does not exist"},
			RowCard{State: CardError, Tool: "cordis_undefine", PluginID: "clock-9", Error: "clock-9 does not exist"}},
		{Call{Tool: "cordis_stop", Args: `{"plug`, Interrupted: true},
			RowCard{State: CardStopped, Tool: "cordis_stop", Error: ErrorInterrupted}},
	} {
		if got := RowCardOf(tc.c); got != tc.want {
			t.Errorf("RowCardOf(%+v) = %+v, want %+v", tc.c, got, tc.want)
		}
	}
}
