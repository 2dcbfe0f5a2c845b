package emit

import (
	"errors"

	"github.com/cordiskit/cordiskit/catalog"
)

// FacadeGo renders facade_gen.go, the sandbox bindings.
func FacadeGo(c *catalog.Catalog, pkg, header string) ([]byte, error) {
	return nil, errors.New("facade: not implemented yet")
}
