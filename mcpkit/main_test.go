package mcpkit_test

import (
	"testing"

	"github.com/cordiskit/cordiskit/internal/tooltest"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// The helpers shared with the invoke tests, under their short local names.
var (
	newRuntime = tooltest.NewRuntime
	rawTool    = tooltest.RawTool
	echo       = tooltest.Echo
	failing    = tooltest.Failing
	mount      = tooltest.Mount
)

const (
	echoInput  = tooltest.EchoInput
	echoOutput = tooltest.EchoOutput
)
