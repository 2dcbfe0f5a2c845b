package invoke_test

import (
	"testing"

	"github.com/cordiskit/cordiskit/internal/tooltest"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// The helpers shared with the mcpkit tests, under their short local names.
var (
	newRuntime = tooltest.NewRuntime
	rawTool    = tooltest.RawTool
	echo       = tooltest.Echo
	failing    = tooltest.Failing
	mount      = tooltest.Mount
)
