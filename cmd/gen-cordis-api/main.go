// Command gen-cordis-api generates a cordiskit runtime's API catalog, tool schemas,
// sandbox bindings and markdown docs from its Go declarations.
//
// Usage:
//
//	gen-cordis-api [-out DIR] [-pkg NAME] [-docs DIR] [-facade] PATTERNS...
//
// Run it with go generate, from a line such as
//
//	//go:generate go tool gen-cordis-api -out ./cordisapi -docs ./docs ./...
//
// It scans PATTERNS once and writes, into -out, catalog_gen.go (and, with -facade,
// facade_gen.go) and, with -docs, events-and-services.md and tool-catalog.md. Only files
// whose bytes change are written. Paths must be relative: the command line is recorded
// in the first line of every generated file, where verify-cordis-api finds it. That line
// also marks the file as replaceable: the scan reads none of it, so output an older
// cordiskit wrote, which may no longer compile against this kit, is simply rewritten.
//
// Exit status: 0 on success; 2 on a usage error or when the source has problems, which
// are printed all at once as "path:line:col: [rule] message", and nothing is written.
// See package github.com/cordiskit/cordiskit/internal/gen for the rules.
package main

import (
	"context"
	"os"

	"github.com/cordiskit/cordiskit/internal/gen"
)

func main() {
	os.Exit(gen.GenMain(context.Background(), os.Args[1:], os.Stdout, os.Stderr))
}
