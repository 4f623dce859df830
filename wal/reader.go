package wal

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/google/uuid"
)

// tailKind says how a segment ends.
type tailKind uint8

const (
	tailEOS  tailKind = iota // end-of-stream marker: sealed cleanly
	tailEOF                  // file ends at a frame boundary (active at a crash)
	tailZero                 // zeros from a frame boundary to the end
	tailTorn                 // an incomplete final frame (dropped)
)

func (t tailKind) String() string {
	return [...]string{"eos", "eof", "zero", "torn"}[t]
}

// frame is one complete IPC message in a segment.
type frame struct {
	off, end int64
	typ      byte
}

// batch is one decoded, verified batch of a segment.
type batch struct {
	rec    arrow.RecordBatch // user schema, WAL metadata stripped
	tagged bool
	tx     uuid.UUID
	seq    uint64
	index  uint32
	count  uint32
	crc    uint32 // stored checksum (tagged batches)
	off    int64  // frame offset
}

// segmentContents is what readSegment found in a segment.
type segmentContents struct {
	schema  *arrow.Schema // nil for an empty segment
	batches []batch
	tail    tailKind
	tailOff int64  // where the tail starts (torn frame, zeros, EOS or EOF)
	reason  string // why the tail is torn, for the warning
}

func (c *segmentContents) release() {
	for _, b := range c.batches {
		b.rec.Release()
	}
	c.batches = nil
}

func corrupt(seg string, off int64, class error, format string, args ...any) *CorruptionError {
	return &CorruptionError{Segment: seg, Offset: off, Err: fmt.Errorf("%w: %s", class, fmt.Sprintf(format, args...))}
}

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

// readSegment parses a whole segment. It returns every complete, verified
// batch, or a *CorruptionError; it never panics on any input.
func readSegment(name string, data []byte) (*segmentContents, error) {
	frames, tail, tailOff, reason, cerr := scanFrames(name, data)
	if cerr != nil {
		return nil, cerr
	}
	c := &segmentContents{tail: tail, tailOff: tailOff, reason: reason}
	if len(frames) == 0 {
		return c, nil
	}
	if frames[0].typ != msgSchema {
		return nil, corrupt(name, 0, ErrBadFrame, "first message is not a schema")
	}
	// A frame is "last" when nothing but zeros follows it: an undecodable
	// last frame is a torn write, an undecodable frame followed by more data
	// is corruption.
	isLast := func(i int) bool {
		return i == len(frames)-1 && tail != tailEOS && (tail != tailTorn || allZero(data[frames[i].end:]))
	}
	var recFrames []int
	for i, f := range frames[1:] {
		switch f.typ {
		case msgSchema:
			return nil, corrupt(name, f.off, ErrBadFrame, "second schema message")
		case msgRecordBatch:
			recFrames = append(recFrames, i+1)
		}
	}
	validEnd := frames[len(frames)-1].end
	if err := decodeFrames(name, data[:validEnd], frames, recFrames, isLast, c); err != nil {
		c.release()
		return nil, err
	}
	return c, nil
}

// scanFrames walks the IPC framing: continuation marker, int32 metadata
// length, flatbuffer Message (for the header type and body length), body.
func scanFrames(name string, data []byte) (frames []frame, tail tailKind, tailOff int64, reason string, err *CorruptionError) {
	le := binary.LittleEndian
	n := int64(len(data))
	off := int64(0)
	for {
		rem := data[off:]
		if len(rem) == 0 {
			return frames, tailEOF, off, "", nil
		}
		if len(rem) < 8 {
			if allZero(rem) {
				return frames, tailZero, off, "", nil
			}
			if bytes.Equal(rem[:min(4, len(rem))], eosMarker[:min(4, len(rem))]) {
				return frames, tailTorn, off, "incomplete message header", nil
			}
			return nil, 0, 0, "", corrupt(name, off, ErrBadMagic, "% x", rem)
		}
		if cont := le.Uint32(rem); cont != continuationMarker {
			if cont == 0 && allZero(rem) {
				return frames, tailZero, off, "", nil
			}
			return nil, 0, 0, "", corrupt(name, off, ErrBadMagic, "0x%08x", cont)
		}
		mlen := int64(int32(le.Uint32(rem[4:])))
		if mlen == 0 {
			if !allZero(rem[8:]) {
				return nil, 0, 0, "", corrupt(name, off+8, ErrBadFrame, "data after the end-of-stream marker")
			}
			return frames, tailEOS, off, "", nil
		}
		if mlen < 0 || mlen > maxMetadataLen || mlen%frameAlign != 0 {
			return nil, 0, 0, "", corrupt(name, off, ErrBadLength, "metadata length %d", mlen)
		}
		if off+8+mlen > n {
			return torn(name, data, frames, off, "metadata cut")
		}
		typ, body, ok := messageHeader(rem[8 : 8+mlen])
		if ok && verifyMessage(rem[8:8+mlen]) != nil {
			ok = false
		}
		if !ok || typ < msgSchema || typ > msgRecordBatch {
			if allZero(rem[8+mlen:]) {
				return frames, tailTorn, off, "undecodable final message", nil
			}
			return nil, 0, 0, "", corrupt(name, off, ErrBadFrame, "undecodable message metadata")
		}
		if body < 0 || body > maxBodyLen || body%frameAlign != 0 {
			return nil, 0, 0, "", corrupt(name, off, ErrBadLength, "body length %d", body)
		}
		end := off + 8 + mlen + body
		if end > n {
			return torn(name, data, frames, off, "body cut")
		}
		frames = append(frames, frame{off: off, end: end, typ: typ})
		off = end
	}
}

// torn classifies an incomplete frame at off. It is a torn tail unless a
// complete message (or an end-of-stream marker ending the file) starts at
// a later aligned offset: then the length field itself was damaged and
// data follows, which is corruption.
func torn(name string, data []byte, frames []frame, off int64, why string) ([]frame, tailKind, int64, string, *CorruptionError) {
	le := binary.LittleEndian
	n := int64(len(data))
	for p := off + 8; p+8 <= n; p += frameAlign {
		if le.Uint32(data[p:]) != continuationMarker {
			continue
		}
		mlen := int64(int32(le.Uint32(data[p+4:])))
		if mlen == 0 {
			if p+8 == n {
				return nil, 0, 0, "", corrupt(name, off, ErrBadLength, "frame overruns a later end-of-stream marker at %d", p)
			}
			continue
		}
		if mlen < 0 || mlen > maxMetadataLen || mlen%frameAlign != 0 || p+8+mlen > n {
			continue
		}
		typ, body, ok := messageHeader(data[p+8 : p+8+mlen])
		if !ok || verifyMessage(data[p+8:p+8+mlen]) != nil || typ < msgSchema || typ > msgRecordBatch || body < 0 || body%frameAlign != 0 || p+8+mlen+body > n {
			continue
		}
		return nil, 0, 0, "", corrupt(name, off, ErrBadLength, "frame overruns a complete message at %d", p)
	}
	return frames, tailTorn, off, why, nil
}

// decodeFrames decodes the complete frames with the Arrow IPC reader and
// verifies each batch.
func decodeFrames(name string, data []byte, frames []frame, recFrames []int, isLast func(int) bool, c *segmentContents) (err error) {
	k := 0 // next record frame
	fail := func(fi int, cause error) error {
		if isLast(fi) {
			c.tail, c.tailOff, c.reason = tailTorn, frames[fi].off, fmt.Sprintf("undecodable final message: %v", cause)
			return nil
		}
		return corrupt(name, frames[fi].off, ErrBadFrame, "%v", cause)
	}
	defer func() {
		// The Arrow reader recovers its own panics; this covers the rest.
		if p := recover(); p != nil {
			fi := 0
			if k < len(recFrames) {
				fi = recFrames[k]
			}
			err = corrupt(name, frames[fi].off, ErrBadFrame, "decoder panic: %v", p)
		}
	}()
	rd, rerr := ipc.NewReader(bytes.NewReader(data), ipc.WithAllocator(memory.DefaultAllocator))
	if rerr != nil {
		return fail(0, rerr)
	}
	defer rd.Release()
	c.schema = rd.Schema()
	for rd.Next() {
		if k >= len(recFrames) {
			return corrupt(name, frames[len(frames)-1].off, ErrBadFrame, "more batches than frames")
		}
		fi := recFrames[k]
		b, verr := verifyBatch(rd.RecordBatch())
		if verr != nil {
			return corrupt(name, frames[fi].off, ErrChecksum, "%v", verr)
		}
		b.off = frames[fi].off
		c.batches = append(c.batches, b)
		k++
	}
	if rerr := rd.Err(); rerr != nil {
		fi := len(frames) - 1
		if k < len(recFrames) {
			fi = recFrames[k]
		}
		return fail(fi, rerr)
	}
	if k != len(recFrames) {
		return fail(recFrames[k], errors.New("batch missing from the stream"))
	}
	// Untagged batches are legal only in foreign streams: a segment named by
	// this package, or holding any tagged batch, has every batch tagged (a
	// damaged metadata reference must not turn a batch into "legacy" data).
	ours := segmentNameRE.MatchString(name)
	for _, b := range c.batches {
		if b.tagged {
			ours = true
		}
	}
	if ours {
		for _, b := range c.batches {
			if !b.tagged {
				return corrupt(name, b.off, ErrChecksum, "batch without WAL metadata in a WAL segment")
			}
		}
	}
	return nil
}

// verifyBatch checks the WAL metadata and checksum of a decoded batch and
// returns it stripped of that metadata (retained; rec is not).
func verifyBatch(rec arrow.RecordBatch) (batch, error) {
	var md arrow.Metadata
	if rm, ok := rec.(arrow.RecordBatchWithMetadata); ok {
		md = rm.Metadata()
	}
	crc, err := dataCRC(rec) // also validates buffers against lengths
	if err != nil {
		return batch{}, err
	}
	var b batch
	tagged := false
	for _, k := range md.Keys() {
		if strings.HasPrefix(k, keyPrefix) {
			tagged = true
		}
	}
	if tagged {
		get := func(k string) (string, error) {
			i := md.FindKey(k)
			if i < 0 {
				return "", fmt.Errorf("metadata key %s missing", k)
			}
			return md.Values()[i], nil
		}
		parse := func(k string, bits int) (uint64, error) {
			s, err := get(k)
			if err != nil {
				return 0, err
			}
			v, err := strconv.ParseUint(s, 10, bits)
			if err != nil {
				return 0, fmt.Errorf("metadata %s: %w", k, err)
			}
			return v, nil
		}
		s, err := get(keyTxID)
		if err != nil {
			return batch{}, err
		}
		if b.tx, err = uuid.Parse(s); err != nil || b.tx == uuid.Nil || len(s) != 36 {
			return batch{}, fmt.Errorf("metadata %s: bad uuid %q", keyTxID, s)
		}
		if b.seq, err = parse(keySeq, 64); err != nil {
			return batch{}, err
		}
		idx, err := parse(keyIndex, 32)
		if err != nil {
			return batch{}, err
		}
		cnt, err := parse(keyCount, 32)
		if err != nil {
			return batch{}, err
		}
		if cnt == 0 || idx >= cnt {
			return batch{}, fmt.Errorf("batch index %d of %d", idx, cnt)
		}
		b.index, b.count = uint32(idx), uint32(cnt)
		s, err = get(keyCRC32C)
		if err != nil {
			return batch{}, err
		}
		raw, err := hex.DecodeString(s)
		if err != nil || len(raw) != 4 || len(s) != 8 {
			return batch{}, fmt.Errorf("metadata %s: bad value %q", keyCRC32C, s)
		}
		want := binary.BigEndian.Uint32(raw)
		b.crc = want
		if got := finishCRC(crc, b.tx, b.seq, b.index, b.count); got != want {
			return batch{}, fmt.Errorf("crc32c %08x, stored %08x", got, want)
		}
		b.tagged = true
	}
	b.rec = array.NewRecordBatch(rec.Schema(), rec.Columns(), rec.NumRows())
	return b, nil
}

// formatCRC is the stored form of a checksum.
func formatCRC(c uint32) string { return fmt.Sprintf("%08x", c) }
