package testserver

import "syscall"

// sysProcAttr kills the server when the test binary dies (a test timeout
// panics and exits without running cleanups).
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
