package catalog_test

import (
	"fmt"

	"github.com/cordiskit/cordiskit/catalog"
)

// The api section of cordis_inspect: a service's signatures, then the type shapes they
// need.
func ExampleCatalog_TypeClosure() {
	c := &catalog.Catalog{
		Services: []catalog.Service{{Key: "fs", Summary: "The filesystem.", Methods: []catalog.Method{
			{JSName: "stat", Signature: "stat(path: string): Info | undefined"},
		}}},
		Types: []catalog.Type{
			{Name: "Info", Decl: "interface Info {\n  size: number\n  kind: Kind\n}", Refs: []string{"Kind"}},
			{Name: "Kind", Decl: "type Kind = 'file' | 'dir'"},
		},
	}
	svc, _ := c.Service("fs")
	fmt.Printf("- %s — %s\n", svc.Key, svc.Summary)
	for _, sig := range svc.Signatures() {
		fmt.Println("    " + sig)
	}
	for _, t := range c.TypeClosure(svc.Signatures()...) {
		fmt.Println(t.Decl)
	}
	// Output:
	// - fs — The filesystem.
	//     stat(path: string): Info | undefined
	// interface Info {
	//   size: number
	//   kind: Kind
	// }
	// type Kind = 'file' | 'dir'
}
