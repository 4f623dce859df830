//go:build !linux

package main

import (
	"os"
	"syscall"
)

// fdatasync falls back to fsync where the system has no fdatasync.
func fdatasync(f *os.File) error { return f.Sync() }

func sysProcAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{} }
