package pgstore

import (
	"slices"

	"github.com/cordiskit/cordiskit/runner"
)

// prunable returns the Packages of p that KeepPackages lets go: neither current, next,
// the latest attempt's (what a run uses is one of these three), granted, nor among the
// newest keep. keep <= 0 keeps everything. (The rule of sqlstore's Options.KeepPackages.)
func prunable(p runner.Plugin, keep int) []string {
	if keep <= 0 || len(p.Packages) <= keep {
		return nil
	}
	held := []string{p.Current, p.Next}
	if p.Latest != nil {
		held = append(held, p.Latest.PackageID)
	}
	held = append(held, p.Grants.Packages...)
	var out []string
	for _, k := range p.Packages[:len(p.Packages)-keep] {
		if !slices.Contains(held, k.ID) {
			out = append(out, k.ID)
		}
	}
	return out
}
