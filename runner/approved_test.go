package runner

import (
	"strings"
	"testing"

	"github.com/cordiskit/cordiskit/runner/page"
	"github.com/cordiskit/cordiskit/tooldecl/dynamic"
	"github.com/google/go-cmp/cmp"
)

// TestReviewPackageBase follows the version a person is shown the changes against through
// a Plugin's life: none at first, the approved one, the current one after a revoke, the
// newest approved one after an update.
func TestReviewPackageBase(t *testing.T) {
	e := newEnv(t, nil)
	ctx := as("s1")
	pg := testPage{e}
	review := func(pkg string) Review {
		t.Helper()
		rv, err := e.r.ReviewPackage(ctx, page.ReviewArgs{Session: "s1", PluginID: "clock-1", PackageID: pkg})
		if err != nil {
			t.Fatalf("ReviewPackage %s: %v", pkg, err)
		}
		return rv
	}
	base := func(rv Review) string {
		if rv.Base == nil {
			return ""
		}
		return rv.Base.ID
	}
	pkg := func(id, host, client string) Package {
		return Package{ID: id, Name: "Clock", Purpose: "Shows the time.", Host: host, Client: client}
	}

	d := e.define(newPlugin("clock"), clockHost, clientCode)
	if diff := cmp.Diff(Review{PluginID: "clock-1", Package: pkg("pkg-1", clockHost, clientCode)}, review("pkg-1")); diff != "" {
		t.Fatalf("a first Package (-want +got):\n%s", diff)
	}

	if _, err := e.r.Run(ctx, dynamic.RunInput{PluginID: d.PluginID, PackageID: d.PackageID, Mode: dynamic.ModeRun}); err != nil {
		t.Fatal(err)
	}
	pg.approve(t, e.lastRequest(), false)
	const host2 = clockHost + "\n// v2"
	e.define(existing("clock-1"), host2, clientCode)
	want := Review{PluginID: "clock-1", Package: pkg("pkg-2", host2, clientCode), Base: ptr(pkg("pkg-1", clockHost, clientCode)), Grants: Grants{Packages: []string{"pkg-1"}}}
	if diff := cmp.Diff(want, review("pkg-2")); diff != "" {
		t.Fatalf("after approving pkg-1 (-want +got):\n%s", diff)
	}

	// Revoked, pkg-1 still runs: it is what the person last let run.
	if _, err := e.r.RevokeGrant(ctx, page.RevokeArgs{Session: "s1", PluginID: "clock-1", PackageID: "pkg-1"}); err != nil {
		t.Fatal(err)
	}
	if got := base(review("pkg-2")); got != "pkg-1" {
		t.Fatalf("base after revoking the current pkg-1 = %q, want pkg-1", got)
	}

	// Approving the update to pkg-2 makes it the base of pkg-3, not of itself.
	if _, err := e.r.Run(ctx, dynamic.RunInput{PluginID: "clock-1", PackageID: "pkg-2", Mode: dynamic.ModeUpdate}); err != nil {
		t.Fatal(err)
	}
	pg.approve(t, e.lastRequest(), false)
	e.define(existing("clock-1"), host2+"\n// v3", clientCode)
	if got := base(review("pkg-3")); got != "pkg-2" {
		t.Fatalf("base of pkg-3 = %q, want pkg-2", got)
	}
	if got := base(review("pkg-2")); got != "" {
		t.Fatalf("base of pkg-2, approved and current = %q, want none: no other Package was approved or is current", got)
	}
	if got := base(review("pkg-1")); got != "pkg-2" {
		t.Fatalf("base of pkg-1 = %q, want pkg-2", got)
	}
}

// TestReviewPackageOfAnotherSession: a session learns nothing of another session's
// Plugin, not even that it exists.
func TestReviewPackageOfAnotherSession(t *testing.T) {
	e := newEnv(t, nil)
	e.define(newPlugin("clock"), clockHost, clientCode)
	_, theirs := e.r.ReviewPackage(as("s2"), page.ReviewArgs{Session: "s2", PluginID: "clock-1", PackageID: "pkg-1"})
	_, none := e.r.ReviewPackage(as("s2"), page.ReviewArgs{Session: "s2", PluginID: "clock-9", PackageID: "pkg-1"})
	if theirs == nil || none == nil {
		t.Fatalf("errors = %v, %v; want both refused", theirs, none)
	}
	if got, want := strings.ReplaceAll(theirs.Error(), "clock-1", "clock-9"), none.Error(); got != want || ReasonOf(theirs) != ReasonPluginMissing {
		t.Fatalf("another session's Plugin reads %q (%s), a missing one %q", theirs, ReasonOf(theirs), none)
	}
	_, err := e.r.ReviewPackage(as("s1"), page.ReviewArgs{Session: "s1", PluginID: "clock-1", PackageID: "pkg-7"})
	if ReasonOf(err) != ReasonPackageMissing {
		t.Fatalf("an unknown Package: %v (%s), want package-missing", err, ReasonOf(err))
	}
}
