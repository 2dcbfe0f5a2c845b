//go:build !unix

package agent

import "os/exec"

// killTree is a no-op where process groups are not available: cancellation kills the
// program itself, and Cmd.WaitDelay bounds the wait for children holding its pipes.
func killTree(*exec.Cmd) {}

// killGroup kills the program itself where there are no process groups; children it
// started are beyond the executor there.
func killGroup(c *exec.Cmd) { _ = c.Process.Kill() }
