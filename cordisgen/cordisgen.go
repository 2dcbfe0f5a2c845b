// Package cordisgen runs gen-cordis-api and verify-cordis-api in process, for the tests
// and tools of a module that uses them. The call most modules make is a freshness test
// next to their //go:generate line:
//
//	rep, err := cordisgen.Verify(ctx, ".", "./...")   // re-render in memory, compare with the disk
//	if !rep.OK() { t.Errorf("generated files are stale:\n%s", rep) }
//
// and a tool that generates without the command line calls
//
//	files, err := cordisgen.Generate(ctx, &cordisgen.Config{Patterns: []string{"./..."}, Out: "cordisapi", Facade: true})
//	written, err := cordisgen.Write(".", files)
//
// # Verify
//
// [Verify] is verify-cordis-api: it finds every run of gen-cordis-api in the directories
// the patterns cover (the //go:generate lines and the command recorded in each generated
// file's first line), renders each in memory and compares with the disk. The [Report]
// lists the fresh, stale (with a unified diff), missing and orphaned files and the
// commands that fix them; it prints as verify-cordis-api does. It never writes.
//
// # Generate
//
// [Generate] is gen-cordis-api without the writing: one scan of the packages, every
// output rendered in memory, keyed by its path relative to [Config.Dir]. Problems in the
// source come back as one error listing every problem as "path:line:col: [rule] message".
// [Write] writes only the files whose bytes changed.
//
// # Imports
//
// This package loads and type-checks source (golang.org/x/tools/go/packages) and renders
// Go code: import it from tests and tools only. A runtime that only runs imports the kit,
// the toolset and its generated package, none of which depend on it.
package cordisgen

import (
	"context"
	"path/filepath"

	"github.com/cordiskit/cordiskit/internal/gen"
)

// Config is one run of gen-cordis-api: its flags (Out is -out, Pkg -pkg, Docs -docs,
// Facade -facade, Patterns the arguments), and where it runs (Dir, Env). It is the
// generator's own type, re-exported, so the two cannot drift apart.
type Config = gen.Config

// Generate renders every file the run cfg describes, without writing anything. The
// map's keys are slash-separated paths relative to cfg.Dir.
func Generate(ctx context.Context, cfg *Config) (map[string][]byte, error) {
	return gen.Generate(ctx, cfg)
}

// Write writes files, as Generate returns them, under dir: only those whose bytes
// changed, each through a temporary file renamed into place. It returns the paths it
// wrote, sorted.
func Write(dir string, files map[string][]byte) (written []string, err error) {
	return gen.Write(dir, files)
}

// Verify re-renders every generated file under the patterns of dir (default ./...) and
// compares it with the disk, as verify-cordis-api run in dir does. Paths in the report
// are relative to dir. An error means the check could not run (a package that does not
// load, a generator problem), not that something is stale: that is [Report.OK]. Files
// an older cordiskit generated that no longer compile against this kit are stale, not an
// error.
func Verify(ctx context.Context, dir string, patterns ...string) (*Report, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	if len(patterns) == 0 {
		patterns = []string{"./..."}
	}
	return gen.Verify(ctx, abs, patterns, nil)
}

// A Report is the outcome of Verify: the fresh, stale (each with a unified diff from the
// disk to the fresh rendering), missing and orphaned files, slash-separated and relative
// to its dir, and the commands that fix them. OK says whether all is fresh; String (and
// Print) give it as verify-cordis-api prints it. It is the verifier's own type,
// re-exported.
type Report = gen.Report
