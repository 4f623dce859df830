//go:build linux || darwin || freebsd

package vfs

import "golang.org/x/sys/unix"

// DiskSpace returns the bytes available to unprivileged users (what a
// write by this process can still take, as df shows it) and the size of
// the file system holding dir.
func DiskSpace(dir string) (avail, total int64, err error) {
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		return 0, 0, err
	}
	bs := int64(st.Bsize) // uint32 on darwin
	return int64(st.Bavail) * bs, int64(st.Blocks) * bs, nil
}
