//go:build unix && !linux

package wal

const mapPopulate = 0
