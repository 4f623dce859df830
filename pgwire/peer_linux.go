package pgwire

import (
	"syscall"

	"golang.org/x/sys/unix"
)

// peerHungUp reports whether the peer of a connected socket closed it
// (or it failed), without reading from it.
func peerHungUp(rc syscall.RawConn) bool {
	hup := false
	_ = rc.Control(func(fd uintptr) {
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLRDHUP}}
		n, err := unix.Poll(fds, 0)
		hup = err == nil && n > 0 && fds[0].Revents&(unix.POLLRDHUP|unix.POLLHUP|unix.POLLERR) != 0
	})
	return hup
}
