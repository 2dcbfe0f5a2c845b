package panel

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/cordiskit/cordiskit/runner"
)

// TestReviewPackageStaysInItsSession is what bob's page tries against alice's Plugin
// with the verb that reads code: he is told what he would be told of a Plugin that does
// not exist, whichever session he names, and reads none of her code; alice and the
// operator read it.
func TestReviewPackageStaysInItsSession(t *testing.T) {
	e := newPeopleEnv(t, nil)
	const secret = "alice's secret host half"
	alice := e.defineIn("alice", "clock", "// "+secret+"\n"+clockHost, clientCode)
	e.defineIn("bob", "tick", clockHost, clientCode)
	ghost := "clock-999"
	for _, session := range []string{"alice", "bob", ""} {
		ask := func(plugin string) string {
			_, _, body := e.callAs(bobToken, "reviewPackage", map[string]any{"session": session, "pluginId": plugin, "packageId": alice.PackageID})
			return body
		}
		theirs, missing := ask(alice.PluginID), ask(ghost)
		sameAs(t, "reviewPackage as "+session, theirs, missing, alice.PluginID, ghost)
		if strings.Contains(theirs, secret) || !strings.Contains(theirs, `"code":"plugin-missing"`) {
			t.Errorf("bob's reviewPackage of alice's Plugin as %q = %s", session, theirs)
		}
	}
	for _, token := range []string{aliceToken, e.h.Token()} {
		_, en, body := e.callAs(token, "reviewPackage", map[string]any{"session": "alice", "pluginId": alice.PluginID, "packageId": alice.PackageID})
		var rv PackageReview
		if !en.OK || json.Unmarshal(en.Value, &rv) != nil || len(rv.Halves) != 2 || !strings.Contains(rv.Halves[0].Code, secret) {
			t.Errorf("reviewPackage with token %s = %s, want alice's code", token, body)
		}
	}
	// Without a token nothing is answered at all.
	if res, body := e.doAs("", "POST", "/rpc/reviewPackage", `{"session":"alice","pluginId":"`+alice.PluginID+`","packageId":"pkg-1"}`, map[string]string{"Content-Type": "application/json"}); res.StatusCode != 401 || strings.Contains(body, secret) {
		t.Errorf("reviewPackage without a token = %d %s", res.StatusCode, body)
	}
}

// TestReviewPackageOverTheWire: the verb answers the halves as JSON text, hostile markup
// included as it was written, and an unknown Package with how to find the right one.
func TestReviewPackageOverTheWire(t *testing.T) {
	e := newEnv(t, nil)
	const hostile = "</script><img src=x onerror=\"alert(1)\">"
	d := e.define("// "+hostile+"\n"+clockHost, clientCode)
	var rv PackageReview
	e.value("reviewPackage", map[string]any{"session": "s1", "pluginId": d.PluginID, "packageId": d.PackageID}, &rv)
	want := PackageReview{PluginID: d.PluginID, PackageID: d.PackageID, Name: "Clock", Purpose: "Shows the time.",
		Halves: []ReviewHalf{
			{Half: "host", Code: "// " + hostile + "\n" + clockHost, Lines: 3, Bytes: len("// " + hostile + "\n" + clockHost), Change: changeNew},
			{Half: "client", Code: clientCode, Lines: 1, Bytes: len(clientCode), Change: changeNew},
		}}
	if diff := cmp.Diff(want, rv); diff != "" {
		t.Fatalf("reviewPackage (-want +got):\n%s", diff)
	}
	_, en := e.call("reviewPackage", map[string]any{"session": "s1", "pluginId": d.PluginID, "packageId": "pkg-9"})
	if en.OK || en.Error.Code != "package-missing" || !strings.Contains(en.Error.Message, "cordis_inspect_self") {
		t.Fatalf("an unknown Package: %+v", en)
	}
}

// TestReviewOf: what the approval card is given for each change of a half.
func TestReviewOf(t *testing.T) {
	pkg := func(id, host, client string) runner.Package {
		return runner.Package{ID: id, Name: "Clock " + id, Purpose: "Shows the time.", Host: host, Client: client}
	}
	base := pkg("pkg-1", "a\nb\nc\nd\ne\nf\ng\nh\ni\nj\n", "view()")
	for _, c := range []struct {
		name string
		rv   runner.Review
		want []ReviewHalf
	}{{
		name: "a first version: the whole code",
		rv:   runner.Review{Package: pkg("pkg-1", "one\ntwo", "")},
		want: []ReviewHalf{{Half: "host", Code: "one\ntwo", Lines: 2, Bytes: 7, Change: changeNew}},
	}, {
		name: "one line changed in the middle, the client the same but for its last newline",
		rv:   runner.Review{Package: pkg("pkg-2", "a\nb\nc\nd\nE\nf\ng\nh\ni\nj\n", "view()\n"), Base: &base},
		want: []ReviewHalf{
			{Half: "host", Code: "a\nb\nc\nd\nE\nf\ng\nh\ni\nj\n", Lines: 10, Bytes: 20, Change: changeChanged, Added: 1, Removed: 1,
				Hunks: []ReviewHunk{{OldStart: 2, OldLines: 7, NewStart: 2, NewLines: 7, Lines: []ReviewLine{
					{Op: " ", Old: 2, New: 2, Text: "b"}, {Op: " ", Old: 3, New: 3, Text: "c"}, {Op: " ", Old: 4, New: 4, Text: "d"},
					{Op: "-", Old: 5, Text: "e"}, {Op: "+", New: 5, Text: "E"},
					{Op: " ", Old: 6, New: 6, Text: "f"}, {Op: " ", Old: 7, New: 7, Text: "g"}, {Op: " ", Old: 8, New: 8, Text: "h"},
				}}}},
			{Half: "client", Code: "view()\n", Lines: 1, Bytes: 7, Change: changeSame},
		},
	}, {
		name: "the host half removed, a client half where there was none",
		rv:   runner.Review{Package: pkg("pkg-3", "", "view()"), Base: ptr(pkg("pkg-2", "x\ny\n", ""))},
		want: []ReviewHalf{
			{Half: "host", Change: changeRemoved, Removed: 2},
			{Half: "client", Code: "view()", Lines: 1, Bytes: 6, Change: changeAdded, Added: 1},
		},
	}, {
		name: "lines inserted at the top: numbers shift",
		rv:   runner.Review{Package: pkg("pkg-2", "new\n"+base.Host, "view()"), Base: &base},
		want: []ReviewHalf{
			{Half: "host", Code: "new\n" + base.Host, Lines: 11, Bytes: 24, Change: changeChanged, Added: 1,
				Hunks: []ReviewHunk{{OldStart: 1, OldLines: 3, NewStart: 1, NewLines: 4, Lines: []ReviewLine{
					{Op: "+", New: 1, Text: "new"}, {Op: " ", Old: 1, New: 2, Text: "a"}, {Op: " ", Old: 2, New: 3, Text: "b"}, {Op: " ", Old: 3, New: 4, Text: "c"},
				}}}},
			{Half: "client", Code: "view()", Lines: 1, Bytes: 6, Change: changeSame},
		},
	}} {
		t.Run(c.name, func(t *testing.T) {
			got := reviewOf(c.rv)
			if diff := cmp.Diff(c.want, got.Halves); diff != "" {
				t.Errorf("halves (-want +got):\n%s", diff)
			}
			if (c.rv.Base != nil) != (got.Base != nil) || got.Base != nil && got.Base.PackageID != c.rv.Base.ID {
				t.Errorf("base = %+v, want %+v", got.Base, c.rv.Base)
			}
		})
	}
}

// TestReviewBounded: a half of megabytes sends at most MaxReviewBytes of it, cut at a line
// end, and so does its diff, while the counts say how much there is.
func TestReviewBounded(t *testing.T) {
	// Numbered lines: each is unique, so the anchored diff pairs them up.
	line := func(i int) string { return fmt.Sprintf("%6d %s\n", i, strings.Repeat("x", 92)) }
	n := 3 * MaxReviewBytes / len(line(0))
	var o, b strings.Builder
	for i := range n {
		o.WriteString(line(i))
		if i%2 == 0 {
			b.WriteString("changed ")
		}
		b.WriteString(line(i))
	}
	old, code := o.String(), b.String()
	base := runner.Package{ID: "pkg-1", Host: old}
	rv := reviewOf(runner.Review{Package: runner.Package{ID: "pkg-2", Host: code}, Base: &base})
	h := rv.Halves[0]
	if len(h.Code) > MaxReviewBytes || !h.Cut || !strings.HasSuffix(h.Code, "\n") || !strings.HasPrefix(code, h.Code) {
		t.Errorf("code: %d bytes, cut %v, ends %q; want a prefix of whole lines within %d", len(h.Code), h.Cut, h.Code[len(h.Code)-5:], MaxReviewBytes)
	}
	if h.Lines != n || h.Bytes != len(code) || h.Added != n/2+n%2 || h.Removed != n/2+n%2 {
		t.Errorf("counts: lines %d bytes %d added %d removed %d; want %d %d %d %d", h.Lines, h.Bytes, h.Added, h.Removed, n, len(code), n/2+n%2, n/2+n%2)
	}
	sent := 0
	for _, hk := range h.Hunks {
		for _, l := range hk.Lines {
			sent += len(l.Text) + diffLineCost
		}
	}
	if !h.HunksCut || sent > MaxReviewBytes || sent < MaxReviewBytes/2 {
		t.Errorf("diff: %d bytes of lines sent, cut %v; want between %d and %d, cut", sent, h.HunksCut, MaxReviewBytes/2, MaxReviewBytes)
	}
	// One line longer than the bound is cut inside it, never inside a character.
	long := strings.Repeat("é", MaxReviewBytes)
	got, cut := cutLines(long, MaxReviewBytes)
	if !cut || len(got) > MaxReviewBytes || !strings.HasPrefix(long, got) || len(got) < MaxReviewBytes-1 || strings.ToValidUTF8(got, "?") != got {
		t.Errorf("a long line cut to %d bytes (cut %v)", len(got), cut)
	}
}
