// Package generated is gen-cordis-api's output for the kit's own declarations: the core
// tier every cordiskit runtime inherits — the tools and timer services, the tools/change
// event and the three cordis tools (cordis_inspect, cordis_mount, cordis_unmount).
//
// Nothing here is edited by hand; .ci/run checks it with verify-cordis-api. The markdown
// catalogs of the same declarations are in docs/.
package generated

//go:generate go run ../cmd/gen-cordis-api -out . -docs ../docs -facade ../kit ../tooldecl/cordis ../tooldecl/dynamic
