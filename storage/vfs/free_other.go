//go:build !(linux || darwin || freebsd)

package vfs

import "errors"

// DiskSpace is not implemented here: callers go on as if space were
// plentiful.
func DiskSpace(dir string) (avail, total int64, err error) {
	return 0, 0, errors.ErrUnsupported
}
