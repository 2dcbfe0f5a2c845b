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
// Generated files an older cordiskit wrote that no longer compile against this kit are
// stale, not a load error.
//
// With GITHUB_ACTIONS=true, as in a GitHub Actions job, it also prints a workflow
// annotation ("::error file=…,line=…::…") per stale, missing or orphaned file and per
// problem, with the fix, so that a pull request shows it on the file. Paths are relative
// to GITHUB_WORKSPACE, the repository's root. In a workflow:
//
//	steps:
//	  - uses: actions/checkout@v4
//	  - uses: actions/setup-go@v5
//	    with:
//	      go-version-file: go.mod
//	  - name: generated files are fresh
//	    run: go tool verify-cordis-api ./...
package main

import (
	"context"
	"os"

	"github.com/cordiskit/cordiskit/internal/gen"
)

func main() {
	os.Exit(gen.VerifyMain(context.Background(), os.Args[1:], os.Stdout, os.Stderr))
}
