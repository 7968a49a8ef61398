package livebench

import (
	"os/exec"
	"syscall"

	"golang.org/x/sys/unix"
)

// botsNice is the niceness the bots' process runs at: they stand in for
// clients on other machines, so the server's threads take the CPU from
// them the moment they wake (at niceness 19 a thread weighs 15 against
// the server's 1024), and a tick's start is late for the server's own
// reasons, not because a bot held the core.
const botsNice = 19

// ownGroup starts cmd in a process group of its own, which yieldCPU
// lowers as a whole.
func ownGroup(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
}

// yieldCPU sets the niceness of every thread of the process group pid
// leads to botsNice; threads started later inherit it.
func yieldCPU(pid int) error { return unix.Setpriority(unix.PRIO_PGRP, pid, botsNice) }
