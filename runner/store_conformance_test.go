package runner_test

import (
	"testing"

	"github.com/cordiskit/cordiskit/runner"
	"github.com/cordiskit/cordiskit/runner/storetest"
)

func TestMemoryStoreConformance(t *testing.T) {
	storetest.Run(t, func(*testing.T) runner.Store { return runner.NewMemoryStore() })
}
