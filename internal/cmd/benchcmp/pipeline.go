package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"golang.org/x/tools/go/packages"

	"github.com/cordiskit/cordiskit/catalog/scan"
	"github.com/cordiskit/cordiskit/internal/benchfix"
	"github.com/cordiskit/cordiskit/internal/gen"
)

// synthModule is the synthetic module on disk, generated once per run.
type synthModule struct {
	dir    string // the module root (a temp dir)
	api    string // its api/ directory, where the generator runs
	cfg    *gen.Config
	decls  []string // the declaring packages, relative to api
	facade bool     // whether -facade could be generated (the façade emitter exists)
}

// pipeline records the wall time of a generation (load, scan, render, write) and of a
// verification on the synthetic module, each beside a bare packages.Load of the same
// packages with the scanner's load mode. The three run back to back in every round, in a
// rotating order, after one untimed pass that warms the build cache.
func (b *bench) pipeline(ctx context.Context, _ bool) error {
	if b.mod == nil {
		m, err := newSynthModule(ctx, b.cfg.synth)
		if err != nil {
			return err
		}
		b.mod = m
	}
	m := b.mod
	var load, decls, scanned, generate, verify time.Duration
	steps := []struct {
		d  *time.Duration
		fn func() error
	}{
		{&load, m.load(ctx, m.cfg.Patterns...)}, {&generate, m.generate(ctx)}, {&verify, m.verify(ctx)},
		{&decls, m.load(ctx, m.decls...)}, {&scanned, m.scan(ctx)},
	}
	start := b.round % len(steps) // rotate with the round
	for i := range steps {
		s := steps[(start+i)%len(steps)]
		t0 := time.Now()
		if err := s.fn(); err != nil {
			return err
		}
		*s.d = time.Since(t0)
	}
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1e3 }
	floor := "a bare packages.Load of the same patterns with scan.Mode (" + b.cfg.synth.String() + ")"
	facade := ""
	if !m.facade {
		facade = " (no -facade: the façade emitter is not implemented)"
	}
	b.res.fig("gen", "gen-cordis-api wall time"+facade+", ms", floor, target{maxRatio: 1.3}).add(ms(generate), ms(load))
	b.res.fig("verify", "verify-cordis-api wall time, ms", floor, target{maxRatio: 1.3}).add(ms(verify), ms(load))
	b.res.fig("gen-scan", "of which scan.Load (the generator's one load and catalog build), ms", floor, target{}).add(ms(scanned), ms(load))
	b.res.fig("gen-decls", "gen-cordis-api wall time against a load of the declaring packages alone, ms",
		"a bare packages.Load of the declaring packages only, without the api package that holds the generated files (the scanner reads those as imports and one variable, the bare load type-checks them in full)",
		target{}).add(ms(generate), ms(decls))
	return nil
}

func (m *synthModule) load(ctx context.Context, patterns ...string) func() error {
	return func() error {
		pkgs, err := packages.Load(&packages.Config{Context: ctx, Mode: scan.Mode, Dir: m.api}, patterns...)
		if err != nil {
			return err
		}
		var errs []error
		packages.Visit(pkgs, nil, func(p *packages.Package) {
			for _, e := range p.Errors {
				errs = append(errs, e)
			}
		})
		return errors.Join(errs...)
	}
}

func (m *synthModule) scan(ctx context.Context) func() error {
	return func() error {
		_, err := scan.Load(ctx, &scan.Config{Dir: m.api, Patterns: m.cfg.Patterns})
		return err
	}
}

func (m *synthModule) generate(ctx context.Context) func() error {
	return func() error {
		files, err := gen.Generate(ctx, m.cfg)
		if err != nil {
			return err
		}
		_, err = gen.Write(m.api, files)
		return err
	}
}

func (m *synthModule) verify(ctx context.Context) func() error {
	return func() error {
		rep, err := gen.Verify(ctx, m.dir, []string{"./..."}, nil)
		if err != nil {
			return err
		}
		if !rep.OK() {
			var b bytes.Buffer
			rep.Print(&b)
			return fmt.Errorf("the synthetic module is not fresh:\n%s", b.String())
		}
		return nil
	}
}

// newSynthModule writes the synthetic module to a temp dir, requiring this repository
// through a replace directive, and runs the generator once (untimed) so the build cache
// holds the dependencies' export data and the outputs exist for verify.
func newSynthModule(ctx context.Context, size benchfix.SynthSize) (*synthModule, error) {
	repo, err := repoRoot(ctx)
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "benchcmp-synth-")
	if err != nil {
		return nil, err
	}
	m := &synthModule{dir: dir, api: filepath.Join(dir, "api")}
	for p := range size.Pkgs {
		m.decls = append(m.decls, fmt.Sprintf("../p%d", p))
	}
	if err := writeSynth(dir, repo, size); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	// Prefer the run a runtime makes (with the sandbox bindings); fall back to the
	// catalog and docs alone while the façade emitter is not there.
	for _, facade := range []bool{true, false} {
		m.cfg = &gen.Config{Dir: m.api, Patterns: []string{"../..."}, Out: ".", Docs: "../docs", Facade: facade}
		if err := os.WriteFile(filepath.Join(m.api, "gen.go"), []byte(synthGenGo(m.cfg)), 0o644); err != nil {
			os.RemoveAll(dir)
			return nil, err
		}
		if err = m.generate(ctx)(); err == nil {
			m.facade = facade
			break
		}
	}
	if err == nil {
		err = m.load(ctx, m.cfg.Patterns...)()
	}
	if err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("synthetic module: %w", err)
	}
	return m, nil
}

func synthGenGo(cfg *gen.Config) string {
	return "// Package api is generated.\npackage api\n\n//go:generate gen-cordis-api " + strings.Join(cfg.Args(), " ") + "\n"
}

// repoRoot returns the directory of this repository's go.mod, found by the go command
// from the working directory.
func repoRoot(ctx context.Context) (string, error) {
	out, err := exec.CommandContext(ctx, "go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	gomod := strings.TrimSpace(string(out))
	data, err := os.ReadFile(gomod)
	if gomod == "" || gomod == os.DevNull || err != nil || !bytes.HasPrefix(data, []byte("module github.com/cordiskit/cordiskit\n")) {
		return "", errors.New("run benchcmp from inside the cordiskit repository (go run ./internal/cmd/benchcmp): the synthetic module replaces github.com/cordiskit/cordiskit with it")
	}
	return filepath.Dir(gomod), nil
}

// writeSynth lays out the synthetic module: go.mod (with a replace to repo, and repo's
// own requirements, since the generated façade imports goja directly), repo's go.sum, and
// the declaring packages of size ([benchfix.SynthSize.Packages]).
func writeSynth(dir, repo string, size benchfix.SynthSize) error {
	sum, err := os.ReadFile(filepath.Join(repo, "go.sum"))
	if err != nil {
		return err
	}
	mod, err := os.ReadFile(filepath.Join(repo, "go.mod"))
	if err != nil {
		return err
	}
	files := size.Packages()
	files["go.sum"] = string(sum)
	files["go.mod"] = "module example.com/synth\n\ngo 1.26.0\n\nrequire github.com/cordiskit/cordiskit v0.0.0\n\n" +
		requirements(string(mod)) + "replace github.com/cordiskit/cordiskit => " + repo + "\n"
	for name, content := range files {
		file := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(file, []byte(content), 0o644); err != nil {
			return err
		}
	}
	return os.MkdirAll(filepath.Join(dir, "api"), 0o755)
}

// requirements returns the require directives of a go.mod file, verbatim.
func requirements(gomod string) string {
	var b strings.Builder
	in := false
	for _, line := range strings.Split(gomod, "\n") {
		t := strings.TrimSpace(line)
		switch {
		case in:
			b.WriteString(line + "\n")
			if t == ")" {
				in = false
				b.WriteString("\n")
			}
		case t == "require (":
			in = true
			b.WriteString(line + "\n")
		case strings.HasPrefix(t, "require "):
			b.WriteString(line + "\n\n")
		}
	}
	return b.String()
}
