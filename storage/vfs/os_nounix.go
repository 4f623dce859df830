//go:build !unix

package vfs

import (
	"errors"
	"os"
)

func flock(f *os.File) error { return errors.ErrUnsupported }
