package gen

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/cordiskit/cordiskit/catalog/scan"
)

// Exit codes of both commands.
const (
	ExitOK    = 0 // generated, or fresh
	ExitStale = 1 // verify: something generated is stale, missing or orphaned
	ExitError = 2 // usage, load or completeness errors; nothing written
)

const genUsage = `usage: gen-cordis-api [-out DIR] [-pkg NAME] [-docs DIR] [-facade] PATTERNS...

gen-cordis-api scans the Go packages PATTERNS for events, services and tools declared
with the kit's constructors and writes, into -out, catalog_gen.go (and with -facade,
facade_gen.go); with -docs, events-and-services.md and tool-catalog.md into that
directory. Only files whose bytes change are written. Paths must be relative: the
command is recorded in every file it generates, for verify-cordis-api.
`

// parseArgs parses a gen-cordis-api command line (from os.Args or a recorded header).
func parseArgs(args []string, stderr io.Writer) (*Config, error) {
	fs := flag.NewFlagSet(GeneratorName, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, genUsage); fs.PrintDefaults() }
	cfg := &Config{}
	fs.StringVar(&cfg.Out, "out", ".", "directory of the generated Go files")
	fs.StringVar(&cfg.Pkg, "pkg", "", "package name of the generated Go files (default: the package already in -out, else its base name)")
	fs.StringVar(&cfg.Docs, "docs", "", "directory of the generated markdown (default: no markdown)")
	fs.BoolVar(&cfg.Facade, "facade", false, "also generate facade_gen.go, the sandbox bindings")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	cfg.Patterns = fs.Args()
	if len(cfg.Patterns) == 0 {
		fs.Usage()
		return nil, errors.New("no package patterns given")
	}
	return cfg, nil
}

// GenMain is gen-cordis-api: it parses args (without the program name), generates and
// writes, and returns the exit code.
func GenMain(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	cfg, err := parseArgs(args, stderr)
	if err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintf(stderr, "%s: %v\n", GeneratorName, err)
		}
		return ExitError
	}
	cwd, err := os.Getwd()
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", GeneratorName, err)
		return ExitError
	}
	cfg.Dir = cwd
	files, err := Generate(ctx, cfg)
	if err != nil {
		printErr(stderr, GeneratorName, cwd, err)
		fmt.Fprintf(stderr, "%s: nothing was written\n", GeneratorName)
		return ExitError
	}
	if _, err := Write(cwd, files); err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", GeneratorName, err)
		return ExitError
	}
	return ExitOK
}

// printErr prints diagnostics one per line relative to dir, or any other error.
func printErr(w io.Writer, prog, dir string, err error) {
	var ds scan.Diagnostics
	if errors.As(err, &ds) {
		for _, d := range ds.Rel(dir) {
			fmt.Fprintln(w, d)
		}
		fmt.Fprintf(w, "%s: %d problem(s)\n", prog, len(ds))
		return
	}
	fmt.Fprintf(w, "%s: %v\n", prog, err)
}

// splitArgs splits a command line the way go generate does: on spaces, with Go
// double-quoted strings as single arguments.
func splitArgs(line string) ([]string, error) {
	var out []string
	for line = strings.TrimSpace(line); line != ""; line = strings.TrimSpace(line) {
		if line[0] == '"' {
			end := 1
			for ; end < len(line); end++ {
				if line[end] == '\\' {
					end++
				} else if line[end] == '"' {
					break
				}
			}
			if end >= len(line) {
				return nil, fmt.Errorf("unterminated quoted string in %q", line)
			}
			s, err := strconv.Unquote(line[:end+1])
			if err != nil {
				return nil, err
			}
			out = append(out, s)
			line = line[end+1:]
			continue
		}
		i := strings.IndexAny(line, " \t")
		if i < 0 {
			i = len(line)
		}
		out = append(out, line[:i])
		line = line[i:]
	}
	return out, nil
}
