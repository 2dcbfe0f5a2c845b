package runner

import (
	"context"
	"slices"

	"github.com/cordiskit/cordiskit/runner/page"
)

// A Review is what a person deciding whether a Package may run reads: its source, and the
// version of the same Plugin to show the changes against.
type Review struct {
	PluginID string  `json:"pluginId"`
	Package  Package `json:"package"`
	// Base is the version the person last let run: of the Plugin's other Packages, the
	// newest one (in define order) that a grant covers by name (Grants.Packages: approved
	// in the panel, or run from it) or that is the Plugin's current Package. Nil when
	// there is none: a first run, or every approval was revoked and nothing ran.
	Base *Package `json:"base,omitempty"`
	// Grants are the Plugin's grants as they are now.
	Grants Grants `json:"grants"`
}

// ReviewPackage returns Package a.PackageID of Plugin a.PluginID with the Package a person
// last approved, for the panel's approval card. A Plugin of another session reads as one
// that does not exist (plugin-missing); an unknown Package is package-missing.
func (r *Runner) ReviewPackage(ctx context.Context, a page.ReviewArgs) (Review, error) {
	p, err := r.owned(ctx, a.Session, a.PluginID)
	if err != nil {
		return Review{}, err
	}
	k, ok := p.Package(a.PackageID)
	if !ok {
		return Review{}, refuse(ReasonPackageMissing, "plugin %s has no package %q; its packages are listed by cordis_inspect_self {pluginId:%q}", p.ID, a.PackageID, p.ID)
	}
	rv := Review{PluginID: p.ID, Package: k, Grants: p.Grants}
	rv.Grants.Packages = slices.Clone(p.Grants.Packages)
	if b, ok := lastApproved(p, k.ID); ok {
		rv.Base = &b
	}
	return rv, nil
}

// lastApproved is the newest Package of p other than except that a grant names or that is
// p's current Package.
func lastApproved(p Plugin, except string) (Package, bool) {
	for _, k := range slices.Backward(p.Packages) {
		if k.ID != except && (k.ID == p.Current || slices.Contains(p.Grants.Packages, k.ID)) {
			return k, true
		}
	}
	return Package{}, false
}
