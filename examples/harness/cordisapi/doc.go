// Package cordisapi is gen-cordis-api's output for the harness runtime's declarations
// (package agent): Catalog, the typed catalog of its events and services, and Facade, the
// sandbox bindings that are the whole of what mounted JavaScript can reach of them. The
// harness hands both to toolset.New.
//
// Nothing here but this file is written by hand: go generate in examples/harness rewrites
// the rest, and verify-cordis-api checks that it is fresh. The markdown catalog of the same
// declarations is in examples/harness/docs.
package cordisapi
