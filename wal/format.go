package wal

import (
	"encoding/binary"
	"fmt"
	"os"
	"regexp"
	"strconv"
)

// Segment framing and metadata: part of the on-disk format (see doc.go).
const (
	// continuationMarker starts every Arrow IPC stream message.
	continuationMarker uint32 = 0xFFFFFFFF
	// frameAlign: Arrow pads metadata and body so that every message starts
	// on an 8-byte boundary.
	frameAlign = 8
	// maxMetadataLen bounds the flatbuffer length of one message.
	maxMetadataLen = 64 << 20
	// maxBodyLen bounds the body of one message.
	maxBodyLen = 2 << 30

	// Arrow flatbuffer MessageHeader union tags.
	msgSchema          = 1
	msgDictionaryBatch = 2
	msgRecordBatch     = 3

	// Custom metadata keys on every batch written by this package.
	keyPrefix = "bsdb.wal."
	keyTxID   = "bsdb.wal.tx_id"    // canonical UUID text, 36 bytes
	keySeq    = "bsdb.wal.seq"      // decimal uint64, the transaction's sequence number
	keyIndex  = "bsdb.wal.tx_index" // decimal, 0-based index of the batch in its transaction
	keyCount  = "bsdb.wal.tx_count" // decimal, number of batches of the transaction (>= 1)
	keyCRC32C = "bsdb.wal.crc32c"   // 8 lowercase hex digits, see checksum.go
	// keyAux is present only on a batch with an auxiliary payload
	// (AppendAux): its value is the payload's raw bytes (any bytes, NUL and
	// invalid UTF-8 included; flatbuffers strings are length-prefixed and
	// arrow-go's reader copies them unchecked), at most MaxAuxBytes. It
	// comes last, after keyCRC32C; the checksum covers it (checksum.go).
	keyAux = "bsdb.wal.aux"

	segmentPrefix = "log_"
	segmentSuffix = ".arrow"
	lockSuffix    = ".lock"   // <segment>.lock: the flock file of a segment
	brokenSuffix  = ".broken" // <segment>.broken: original of a repaired segment
)

// eosMarker is the Arrow IPC end-of-stream marker.
var eosMarker = []byte{0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0}

// segmentNameRE matches names written by this package.
var segmentNameRE = regexp.MustCompile(`^log_(\d{20})_(\d{6,})_(\d{8,})\.arrow$`)

// segmentName returns log_{ts:020}_{pid:06}_{seq:08}.arrow.
func segmentName(tsMicros int64, pid int, seq uint64) string {
	return fmt.Sprintf("%s%020d_%06d_%08d%s", segmentPrefix, tsMicros, pid, seq, segmentSuffix)
}

// isSegment reports whether a directory entry is a segment to recover: any
// *.arrow file (ours, or a foreign/legacy stream whose batches are untagged).
func isSegment(name string) bool {
	return len(name) > len(segmentSuffix) && name[len(name)-len(segmentSuffix):] == segmentSuffix
}

// HasSegments reports whether dir holds a segment that Open would recover
// (false if dir cannot be read or does not exist).
func HasSegments(dir string) bool {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, de := range ents {
		if !de.IsDir() && isSegment(de.Name()) {
			return true
		}
	}
	return false
}

// segmentTS returns the creation timestamp in a name written by this
// package, or 0.
func segmentTS(name string) int64 {
	m := segmentNameRE.FindStringSubmatch(name)
	if m == nil {
		return 0
	}
	ts, err := strconv.ParseInt(m[1], 10, 64)
	if err != nil {
		return 0
	}
	return ts
}

// messageHeader reads the header type and body length of an Arrow
// flatbuffer Message without trusting it: every read is bounds-checked
// (the flatbuffers runtime panics on out-of-range offsets).
//
//	table Message { version: short; header: MessageHeader (union: type
//	ubyte in slot 1, offset in slot 2); bodyLength: long (slot 3); ... }
func messageHeader(meta []byte) (hdrType byte, bodyLen int64, ok bool) {
	le := binary.LittleEndian
	n := len(meta)
	if n < 8 {
		return 0, 0, false
	}
	table := int(le.Uint32(meta))
	if table < 4 || table > n-4 {
		return 0, 0, false
	}
	vt := table - int(int32(le.Uint32(meta[table:])))
	if vt < 0 || vt > n-4 {
		return 0, 0, false
	}
	vtLen, tblLen := int(le.Uint16(meta[vt:])), int(le.Uint16(meta[vt+2:]))
	if vtLen < 4 || vt+vtLen > n || tblLen < 4 || table+tblLen > n {
		return 0, 0, false
	}
	field := func(slot, size int) (int, bool) {
		o := 4 + 2*slot
		if o+2 > vtLen {
			return 0, true // absent: default value
		}
		v := int(le.Uint16(meta[vt+o:]))
		if v == 0 {
			return 0, true
		}
		if v+size > tblLen {
			return 0, false
		}
		return table + v, true
	}
	p, ok := field(1, 1)
	if !ok || p == 0 {
		return 0, 0, false // a message without a header is useless
	}
	hdrType = meta[p]
	p, ok = field(3, 8)
	if !ok {
		return 0, 0, false
	}
	if p != 0 {
		bodyLen = int64(le.Uint64(meta[p:]))
	}
	return hdrType, bodyLen, true
}
