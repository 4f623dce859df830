//go:build !unix

package wal

import "github.com/bsdb/bsdb-pg/storage/vfs"

func mapFile(vfs.File) ([]byte, *mapping, bool) { return nil, nil, false }

func unmap([]byte) {}
