package gen

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/rogpeppe/go-internal/diff"
)

// VerifierName is the freshness gate's command name.
const VerifierName = "verify-cordis-api"

const verifyUsage = `usage: verify-cordis-api [PATTERNS...]

verify-cordis-api finds every file gen-cordis-api generated in the directories PATTERNS
cover (default ./...), from the //go:generate lines that run it and the command recorded
in each generated file's first line, renders them again in memory and compares. It exits
0 when everything is fresh, 1 with a unified diff per stale file and the lists of missing
and orphaned files, and 2 on usage, load or completeness errors. It never writes.
With GITHUB_ACTIONS=true it also prints a GitHub workflow annotation (::error file=…)
per stale, missing or orphaned file and per problem, with the fix.
`

// A Report is the outcome of a verification.
type Report struct {
	Fresh    []string          // up to date, relative to the working directory
	Stale    map[string][]byte // path → unified diff from disk to the fresh rendering
	Missing  []string          // generated in memory, absent on disk
	Orphaned []string          // carry a generator header, but no command generates them
	Fix      []string          // the commands that regenerate the stale and missing files

	notes map[string]fileNote // stale and missing files: where to annotate, and their fix
}

// OK reports whether nothing is stale, missing or orphaned.
func (r *Report) OK() bool { return len(r.Stale) == 0 && len(r.Missing) == 0 && len(r.Orphaned) == 0 }

// Verify re-renders every generated output under the patterns and compares it with the
// disk, relative to cwd.
func Verify(ctx context.Context, cwd string, patterns, env []string) (*Report, error) {
	f, err := discover(ctx, cwd, patterns, env)
	if err != nil {
		return nil, err
	}
	if len(f.problems) > 0 {
		return nil, errors.New(strings.Join(f.problems, "\n"))
	}
	rep := &Report{Stale: map[string][]byte{}, notes: map[string]fileNote{}}
	expected := map[string]bool{}
	fixes := map[string]bool{}
	for _, c := range f.commands {
		cfg := *c.cfg
		cfg.Dir, cfg.Env = c.dir, env
		files, err := Generate(ctx, &cfg)
		if err != nil {
			return nil, fmt.Errorf("re-running %s in %s: %w", GeneratorName, rel(cwd, c.dir), err)
		}
		for name, want := range files {
			abs := filepath.Join(c.dir, filepath.FromSlash(name))
			if expected[abs] {
				continue // two commands generate one file; the first wins
			}
			expected[abs] = true
			path := rel(cwd, abs)
			// Discover read every file with a generator header; read the rest now. err is
			// per file: a stale error from the previous file must not leak into this one.
			have, ok := f.contents[abs]
			var err error
			if !ok {
				have, err = os.ReadFile(abs)
			}
			note := fileNote{fix: fixCommand(cwd, c)}
			switch {
			case errors.Is(err, os.ErrNotExist):
				rep.Missing = append(rep.Missing, path)
				if file, line, ok := cutLine(c.directive); ok {
					note.directive = fmt.Sprintf("%s:%d", rel(cwd, file), line)
				}
			case err != nil:
				return nil, err
			case bytes.Equal(have, want):
				rep.Fresh = append(rep.Fresh, path)
				continue
			default:
				rep.Stale[path] = diff.Diff("a/"+path, have, "b/"+path, want)
				note.line = firstDiff(have, want)
			}
			rep.notes[path] = note
			fixes[note.fix] = true
		}
	}
	for _, out := range f.outputs {
		if !expected[out] {
			rep.Orphaned = append(rep.Orphaned, rel(cwd, out))
		}
	}
	for fix := range fixes {
		rep.Fix = append(rep.Fix, fix)
	}
	for _, s := range [][]string{rep.Fresh, rep.Missing, rep.Orphaned, rep.Fix} {
		slices.Sort(s)
	}
	return rep, nil
}

// fixCommand is the shell command that regenerates a command's files.
func fixCommand(cwd string, c *command) string {
	dir := rel(cwd, c.dir)
	if c.directive != "" {
		if !strings.HasPrefix(dir, ".") {
			dir = "./" + dir
		}
		return "go generate " + dir
	}
	q := make([]string, 0, len(c.cfg.Args()))
	for _, a := range c.cfg.Args() {
		q = append(q, quoteArg(a))
	}
	return fmt.Sprintf("(cd %s && go run github.com/cordiskit/cordiskit/cmd/%s %s)", dir, GeneratorName, strings.Join(q, " "))
}

func rel(base, p string) string {
	if r, err := filepath.Rel(base, p); err == nil {
		return filepath.ToSlash(r)
	}
	return p
}

// String is the report as Print writes it.
func (r *Report) String() string {
	var b strings.Builder
	r.Print(&b)
	return b.String()
}

// Print writes the report: the diffs, the missing and orphaned lists and the fix.
func (r *Report) Print(w io.Writer) {
	if r.OK() {
		fmt.Fprintf(w, "%s: %d generated file(s) are fresh\n", VerifierName, len(r.Fresh))
		return
	}
	stale := make([]string, 0, len(r.Stale))
	for p := range r.Stale {
		stale = append(stale, p)
	}
	slices.Sort(stale)
	for _, p := range stale {
		fmt.Fprintf(w, "stale: %s\n", p)
		w.Write(r.Stale[p])
		fmt.Fprintln(w)
	}
	for _, p := range r.Missing {
		fmt.Fprintf(w, "missing: %s (generated, but not on disk)\n", p)
	}
	for _, p := range r.Orphaned {
		fmt.Fprintf(w, "orphaned: %s (has a %s header, but no command generates it)\n", p, GeneratorName)
	}
	fmt.Fprintf(w, "%s: %d stale, %d missing, %d orphaned generated file(s).\n", VerifierName, len(stale), len(r.Missing), len(r.Orphaned))
	if len(r.Fix) > 0 {
		fmt.Fprintf(w, "To fix, run:\n\t%s\n", strings.Join(r.Fix, "\n\t"))
	}
	if len(r.Orphaned) > 0 {
		fmt.Fprintf(w, "and delete the orphaned files:\n\trm %s\n", strings.Join(r.Orphaned, " "))
	}
}

// VerifyMain is verify-cordis-api: args are its arguments without the program name.
func VerifyMain(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet(VerifierName, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, verifyUsage) }
	if err := fs.Parse(args); err != nil {
		return ExitError
	}
	patterns := fs.Args()
	if len(patterns) == 0 {
		patterns = []string{"./..."}
	}
	cwd, err := os.Getwd()
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", VerifierName, err)
		return ExitError
	}
	// In a GitHub Actions job, problems are also annotations on the files of the pull
	// request; their paths are relative to the repository's root.
	annotate := os.Getenv("GITHUB_ACTIONS") == "true"
	root := cmp.Or(os.Getenv("GITHUB_WORKSPACE"), cwd)
	rep, err := Verify(ctx, cwd, patterns, nil)
	if err != nil {
		printErr(stderr, VerifierName, cwd, err)
		if annotate {
			for _, a := range errorAnnotations(err, root) {
				fmt.Fprintln(stdout, a)
			}
		}
		return ExitError
	}
	rep.Print(stdout)
	if annotate {
		rep.Annotate(stdout, cwd, root)
	}
	if !rep.OK() {
		return ExitStale
	}
	return ExitOK
}
