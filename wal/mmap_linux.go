package wal

import "syscall"

const mapPopulate = syscall.MAP_POPULATE
