package runner

import (
	"github.com/cordiskit/cordiskit/tooldecl/dynamic"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestFindReferences(t *testing.T) {
	for _, tc := range []struct {
		text string
		want string // ids, space-separated
	}{
		// Mentions delimited by punctuation or CJK text (docs/dynamic-plugins.md, "References
		// and the system prompt").
		{"请修改@clock-1的显示", "clock-1"},
		{"(@clock-1)", "clock-1"},
		{"look at @clock-1.", "clock-1"},
		{"@clock-1, please", "clock-1"},
		{"@clock-1,@panel-2", "clock-1 panel-2"},
		// Spaces and edges.
		{"@clock-1", "clock-1"},
		{"fix @clock-12 and @panel-3 now", "clock-12 panel-3"},
		{"@clock-1 again @clock-1", "clock-1"},
		{"[@clock-1]「@panel-2」、@abc-3：ok", "clock-1 panel-2 abc-3"},
		{"日本語の@clock-1を直して", "clock-1"},
		{"한국어@clock-1수정", "clock-1"},
		{"＠clock-1を見て", "clock-1"},
		{"@clock-1.\n@panel-2!", "clock-1 panel-2"},
		{"see @clock-1. Then @panel-2?", "clock-1 panel-2"},
		// Not mentions: glued to a word, or not an id.
		{"mail@clock-1x", ""},
		{"mail@clock-1", ""},
		{"@clock-1x", ""},
		{"@clock-1_", ""},
		{"@clock-1-2", ""},
		{"@clock-1.com", ""},
		{"@clock-01", ""},
		{"@clock-0", ""},
		{"@cl-1", ""},
		{"@clocked-1", ""},
		{"@Clock-1", ""},
		{"@clock-", ""},
		{"@clock", ""},
		{"@", ""},
		{"café@clock-1", ""},
		{"x_@clock-1", ""},
		{"9@clock-1", ""},
		{"@@clock-1", "clock-1"},
		{"a@b @clock-1", "clock-1"},
	} {
		if got := strings.Join(FindReferences(tc.text), " "); got != tc.want {
			t.Errorf("FindReferences(%q) = %q, want %q", tc.text, got, tc.want)
		}
	}
}

func FuzzFindReferences(f *testing.F) {
	for _, s := range []string{"请修改@clock-1的显示", "(@clock-1)", "@clock-1,@panel-2", "mail@clock-1x", "＠abc-9", "@clock-1.com"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		ids := FindReferences(text)
		seen := map[string]bool{}
		for _, id := range ids {
			if seen[id] {
				t.Fatalf("%q reported twice", id)
			}
			seen[id] = true
			if !strings.Contains(text, "@"+id) && !strings.Contains(text, "＠"+id) {
				t.Fatalf("%q is not mentioned in %q", id, text)
			}
			if _, ok := mentionEnd(id, 0); !ok || !utf8.ValidString(id) {
				t.Fatalf("%q is not an id", id)
			}
		}
		// A mention standing alone is always found.
		if len(ids) > 0 && !slices.Contains(FindReferences(" "+text+" "), ids[0]) {
			t.Fatalf("padding %q lost %q", text, ids[0])
		}
	})
}

func TestReferenceBlocks(t *testing.T) {
	e := newEnv(t, &Options{Host: &fakeHost{}})
	d := e.define(newPlugin("clock"), "return (ctx) => {}", "")
	ctx := as("s1")
	if _, err := e.r.Run(ctx, dynamic.RunInput{PluginID: d.PluginID, PackageID: d.PackageID, Mode: dynamic.ModeRun}); err != nil {
		t.Fatal(err)
	}
	other, err := e.r.Define(as("s2"), dynamic.DefineInput{Plugin: newPlugin("panel"), Name: "Panel", Purpose: "Not yours.", Code: dynamic.Code{Host: ptr("return (ctx) => {}")}})
	if err != nil {
		t.Fatal(err)
	}
	blocks := e.r.ReferenceBlocks(ctx, "请修改@"+d.PluginID+"的显示, and (@"+other.PluginID+")")
	if len(blocks) != 2 {
		t.Fatalf("blocks = %q", blocks)
	}
	if strings.Contains(blocks[0], "return (ctx)") {
		t.Errorf("the reference shows source code:\n%s", blocks[0])
	}
	for _, want := range []string{`"pluginId": "clock-1"`, `"packageId": "pkg-1"`, `"currentPackageId": "pkg-1"`, `"activeRun": {`, `"latestRun": {`, `"mode": "update"`} {
		if !strings.Contains(blocks[0], want) {
			t.Errorf("block for clock-1 lacks %s:\n%s", want, blocks[0])
		}
	}
	// Another session's Plugin reads as unavailable, like a removed one.
	if want := RenderReference(other.PluginID, Reference{}, false); blocks[1] != want {
		t.Errorf("block for another session's Plugin =\n%s\nwant\n%s", blocks[1], want)
	}
}

func TestRenderReference(t *testing.T) {
	ref := Reference{PluginID: "clock-1", PackageID: "pkg-2", Name: "Clock", Purpose: "Shows the time.", NextPackageID: "pkg-2",
		LatestRun: &dynamic.Attempt{PluginRunID: "run-3", PackageID: "pkg-2", Mode: dynamic.ModeRun, Status: dynamic.RunFailed,
			Error: &dynamic.Diagnostic{Phase: dynamic.PhaseHostLoad, Message: "boom", Stack: "at apply (1:1)", PluginID: "clock-1", PackageID: "pkg-2", PluginRunID: "run-3"}}}
	got := RenderReference("clock-1", ref, true)
	for _, want := range []string{
		"<cordis_dynamic_plugin_context>\nThe user referenced dynamic Plugin @clock-1. Its state now (without source code):\n{\n  \"pluginId\": \"clock-1\",\n  \"packageId\": \"pkg-2\",",
		`"message": "boom"`, `"stack": "at apply (1:1)"`,
		"1. Read Package pkg-2 first: cordis_inspect_self {\"pluginId\": \"clock-1\", \"packageId\": \"pkg-2\"}.\n",
		"2. Define the change as a new Package of the same Plugin: cordis_define with plugin {\"kind\": \"existing\", \"pluginId\": \"clock-1\"}. Do not create a new Plugin.\n",
		"3. Start it: cordis_run {\"pluginId\": \"clock-1\", \"packageId\": <the packageId cordis_define returned>, \"mode\": \"run\"}.\n</cordis_dynamic_plugin_context>",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("RenderReference lacks %q:\n%s", want, got)
		}
	}
	want := "<cordis_dynamic_plugin_context>\n" +
		"The user referenced dynamic Plugin @clock-9, but it is not available in this session: it was removed (cordis_undefine), lost on a restart, or belongs to another session.\n" +
		"Tell the user so. Do not silently create a replacement; define a new Plugin only if the user asks for one.\n" +
		"</cordis_dynamic_plugin_context>"
	if got := RenderReference("clock-9", Reference{}, false); got != want {
		t.Errorf("unavailable =\n%s\nwant\n%s", got, want)
	}
}
