package main

import (
	"os"
	"syscall"
)

func fdatasync(f *os.File) error { return syscall.Fdatasync(int(f.Fd())) }

// sysProcAttr makes bsdb-pg die with the harness (no server left behind).
func sysProcAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL} }
