package runner

import (
	"context"
	"github.com/cordiskit/cordiskit/tooldecl/dynamic"
	"strings"
	"testing"
)

func TestDefineValidation(t *testing.T) {
	e := newEnv(t, nil)
	ok := "return () => {}"
	tests := []struct {
		name string
		in   dynamic.DefineInput
		want string
	}{
		{"blank name", dynamic.DefineInput{Plugin: newPlugin("clock"), Name: "  ", Purpose: "p", Code: dynamic.Code{Host: &ok}},
			`cordis_define needs a non-empty name: a short readable name for this Package, such as "Clock widget"`},
		{"blank purpose", dynamic.DefineInput{Plugin: newPlugin("clock"), Name: "n", Purpose: "", Code: dynamic.Code{Host: &ok}},
			"cordis_define needs a non-empty purpose: one sentence, for the user, saying what this Package does"},
		{"no halves", dynamic.DefineInput{Plugin: newPlugin("clock"), Name: "n", Purpose: "p"},
			"cordis_define needs code.host, code.client, or both: code.host runs in the host process, code.client in the user's browser page"},
		{"blank host half", dynamic.DefineInput{Plugin: newPlugin("clock"), Name: "n", Purpose: "p", Code: dynamic.Code{Host: ptr(" \n")}},
			"cordis_define: code.host is blank; omit it for a Package without that half, or give the body of an async function that returns a plugin, such as: return (ctx) => { … }"},
		{"blank client half", dynamic.DefineInput{Plugin: newPlugin("clock"), Name: "n", Purpose: "p", Code: dynamic.Code{Host: &ok, Client: ptr("")}},
			"cordis_define: code.client is blank; omit it for a Package without that half, or give the body of an async function that returns a plugin, such as: return (ctx) => { … }"},
		{"host does not parse", dynamic.DefineInput{Plugin: newPlugin("clock"), Name: "n", Purpose: "p", Code: dynamic.Code{Host: ptr("return (ctx => {")}},
			"cordis_define: code.host: mount code failed to parse at line 1"},
		{"client does not parse", dynamic.DefineInput{Plugin: newPlugin("clock"), Name: "n", Purpose: "p", Code: dynamic.Code{Host: &ok, Client: ptr("return {")}},
			"cordis_define: code.client: mount code failed to parse"},
		{"host declares harness", dynamic.DefineInput{Plugin: newPlugin("clock"), Name: "n", Purpose: "p", Code: dynamic.Code{Host: ptr("let harness; return () => {}")}},
			"cordis_define: code.host declares the name `harness`, which the host half is given"},
		{"bad prefix", dynamic.DefineInput{Plugin: newPlugin("Clock1"), Name: "n", Purpose: "p", Code: dynamic.Code{Host: &ok}},
			`cordis_define: plugin.idPrefix must be 3–6 lowercase English letters, such as "clock" (the Plugin's id becomes clock-N); got "Clock1"`},
		{"bad kind", dynamic.DefineInput{Plugin: dynamic.Target{Kind: "old"}, Name: "n", Purpose: "p", Code: dynamic.Code{Host: &ok}},
			`cordis_define: plugin.kind must be "new" (with idPrefix) or "existing" (with pluginId); got "old"`},
		{"missing existing", dynamic.DefineInput{Plugin: existing("clock-9"), Name: "n", Purpose: "p", Code: dynamic.Code{Host: &ok}},
			`no dynamic plugin "clock-9" in this session — it may have been removed (cordis_undefine), lost on a restart, or belong to another session. List yours with cordis_inspect_self; define a new one with cordis_define plugin:{kind:"new", idPrefix}`},
		{"name too long", dynamic.DefineInput{Plugin: newPlugin("clock"), Name: strings.Repeat("n", 201), Purpose: "p", Code: dynamic.Code{Host: &ok}},
			"cordis_define: name is 201 bytes, more than 200; use a short label and put details in purpose"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := e.r.Define(as("s1"), tt.in)
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Fatalf("Define error =\n%v\nwant prefix\n%s", err, tt.want)
			}
		})
	}
	// No failed define consumed a number.
	out := e.define(newPlugin(" clock "), ok, "")
	if out.PluginID != "clock-1" || out.PackageID != "pkg-1" {
		t.Fatalf("first successful define = %s/%s, want clock-1/pkg-1", out.PluginID, out.PackageID)
	}
}

func TestDefineIDs(t *testing.T) {
	e := newEnv(t, nil)
	code := "return () => {}"
	var got []string
	for _, ref := range []dynamic.Target{newPlugin("clock"), newPlugin("panel"), existing("clock-1"), newPlugin("abc")} {
		out := e.define(ref, code, "")
		got = append(got, out.PluginID+"/"+out.PackageID)
	}
	want := "clock-1/pkg-1 panel-2/pkg-2 clock-1/pkg-3 abc-3/pkg-4"
	if strings.Join(got, " ") != want {
		t.Fatalf("ids = %v, want %s", got, want)
	}
	if _, err := e.r.Undefine(as("s1"), dynamic.UndefineInput{PluginID: "abc-3"}); err != nil {
		t.Fatal(err)
	}
	if out := e.define(newPlugin("abc"), code, ""); out.PluginID != "abc-4" || out.PackageID != "pkg-5" {
		t.Fatalf("after undefine: %s/%s, want abc-4/pkg-5 (ids are never reused)", out.PluginID, out.PackageID)
	}
}

func TestSessionIsolation(t *testing.T) {
	e := newEnv(t, nil)
	e.define(newPlugin("clock"), "return () => {}", "")
	ctx := as("s2")
	wantMissing := `no dynamic plugin "clock-1" in this session`
	checks := map[string]error{}
	_, checks["define existing"] = e.r.Define(ctx, dynamic.DefineInput{Plugin: existing("clock-1"), Name: "n", Purpose: "p", Code: dynamic.Code{Host: ptr("return () => {}")}})
	_, checks["run"] = e.r.Run(ctx, dynamic.RunInput{PluginID: "clock-1", PackageID: "pkg-1", Mode: dynamic.ModeRun})
	_, checks["stop"] = e.r.Stop(ctx, dynamic.StopInput{PluginID: "clock-1"})
	_, checks["undefine"] = e.r.Undefine(ctx, dynamic.UndefineInput{PluginID: "clock-1"})
	_, checks["inspect"] = e.inspectPlugin(ctx, "clock-1")
	_, _, checks["capability"] = e.r.RunCapability(ctx, "clock-1")
	for name, err := range checks {
		if err == nil || !strings.HasPrefix(err.Error(), wantMissing) {
			t.Errorf("%s from another session: %v, want %q", name, err, wantMissing)
		}
	}
	if list, err := listPlugins(e.r, ctx); err != nil || len(list) != 0 {
		t.Errorf("cordis_inspect_self of s2 = %v, %v; want none", list, err)
	}
	if _, ok := e.r.Reference(ctx, "clock-1"); ok {
		t.Error("Reference resolved another session's Plugin")
	}
	if _, err := e.r.Define(context.Background(), dynamic.DefineInput{}); ReasonOf(err) != ReasonNoSession {
		t.Errorf("Define without a session: %v, want %s", err, ReasonNoSession)
	}
}
