// Command verify-cordis-api is the freshness gate for gen-cordis-api's output.
//
// Usage:
//
//	verify-cordis-api [PATTERNS...]
//
// It finds every file gen-cordis-api generated in the directories PATTERNS cover
// (default ./...), using the //go:generate lines that run the generator and the command
// recorded in each generated file's first line, renders everything again in memory and
// compares it with the disk. It never writes.
//
// Exit status: 0 when everything is fresh; 1 when a file is stale (a unified diff is
// printed for each), missing or orphaned, followed by the command that fixes it; 2 on a
// usage error, a package that does not load, or a completeness problem in the source.
package main

import (
	"context"
	"os"

	"github.com/cordiskit/cordiskit/internal/gen"
)

func main() {
	os.Exit(gen.VerifyMain(context.Background(), os.Args[1:], os.Stdout, os.Stderr))
}
