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
	"bytes"
	"context"
	"maps"
	"path/filepath"

	"github.com/cordiskit/cordiskit/internal/gen"
)

// Config is one run of gen-cordis-api: its flags, and where it runs.
type Config struct {
	// Dir is the directory the command runs in; every other path is relative to it.
	// Empty means the current directory.
	Dir string
	// Patterns are the go package patterns to scan (the command's arguments).
	Patterns []string
	// Out is the directory of the generated Go files (-out); empty means ".".
	Out string
	// Pkg is the generated package's name (-pkg); empty means the name the Go files
	// already in Out declare, else Out's base name.
	Pkg string
	// Docs is the directory of the generated markdown (-docs); empty means none.
	Docs string
	// Facade adds facade_gen.go, the sandbox bindings (-facade).
	Facade bool
	// Env is the go command's environment; nil means the current process's.
	Env []string
}

// Generate renders every file the run cfg describes, without writing anything. The
// map's keys are slash-separated paths relative to cfg.Dir.
func Generate(ctx context.Context, cfg *Config) (map[string][]byte, error) {
	return gen.Generate(ctx, &gen.Config{
		Dir: cfg.Dir, Patterns: cfg.Patterns, Out: cfg.Out, Pkg: cfg.Pkg,
		Docs: cfg.Docs, Facade: cfg.Facade, Env: cfg.Env,
	})
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
	rep, err := gen.Verify(ctx, abs, patterns, nil)
	if err != nil {
		return nil, err
	}
	return &Report{
		Fresh: rep.Fresh, Stale: maps.Clone(rep.Stale), Missing: rep.Missing,
		Orphaned: rep.Orphaned, Fix: rep.Fix,
	}, nil
}

// A Report is the outcome of Verify. Paths are slash-separated, relative to its dir.
type Report struct {
	Fresh    []string          // up to date
	Stale    map[string][]byte // path → unified diff from the disk to the fresh rendering
	Missing  []string          // generated in memory, absent on disk
	Orphaned []string          // carry a generator header, but no run generates them
	Fix      []string          // the commands that regenerate the stale and missing files
}

// OK reports whether nothing is stale, missing or orphaned.
func (r *Report) OK() bool { return len(r.Stale) == 0 && len(r.Missing) == 0 && len(r.Orphaned) == 0 }

// String is the report as verify-cordis-api prints it: each stale file's diff, the
// missing and orphaned files, and the commands that fix them.
func (r *Report) String() string {
	var b bytes.Buffer
	(&gen.Report{Fresh: r.Fresh, Stale: r.Stale, Missing: r.Missing, Orphaned: r.Orphaned, Fix: r.Fix}).Print(&b)
	return b.String()
}
