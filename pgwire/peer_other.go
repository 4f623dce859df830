//go:build !linux

package pgwire

import "syscall"

// peerHungUp: without POLLRDHUP a hang-up is noticed when the statement
// writes to the client or the loop reads the next message (as PostgreSQL
// with client_connection_check_interval = 0).
func peerHungUp(syscall.RawConn) bool { return false }
