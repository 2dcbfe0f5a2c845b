//go:build unix

package agent

import (
	"os/exec"
	"syscall"
)

// killTree runs the command in its own process group and makes cancellation kill the
// whole group, so a timed-out shell does not leave its children running.
func killTree(c *exec.Cmd) {
	c.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	c.Cancel = func() error { return syscall.Kill(-c.Process.Pid, syscall.SIGKILL) }
}

// killGroup kills what is left of a started command's process group: the background
// children of a program that has exited, or the whole tree of one still running. A
// process that left the group (setsid, a daemon) is beyond it.
func killGroup(c *exec.Cmd) {
	_ = syscall.Kill(-c.Process.Pid, syscall.SIGKILL) // ESRCH: the group is already gone
}
