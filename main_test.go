package cordiskit_test

import (
	"testing"

	"github.com/cordiskit/cordiskit/internal/pgtest"
)

// TestMain checks for leaked goroutines and stops the PostgreSQL cluster of the tests
// that share a store between runtimes, if one started (pgtest.Main does both).
func TestMain(m *testing.M) { pgtest.Main(m) }
