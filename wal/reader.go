package wal

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

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
	aux    []byte // auxiliary payload (key bsdb.wal.aux), nil if none
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
	for len(b) >= 8 {
		if binary.LittleEndian.Uint64(b) != 0 {
			return false
		}
		b = b[8:]
	}
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

// Torn writes into preallocated space. A segment is appended to in place
// of zeros (fallocate'd or never written), and a crash can persist some of
// the last write's sectors and not others, in any order. A sector that was
// not persisted reads as zeros. So a frame that fails verification, or a
// frame boundary that reads as zeros with data after it, is a torn write
// when it shows such an unwritten sector: then no fdatasync completed after
// it was written (one would have persisted it), nothing from there on was
// acknowledged, and the segment ends there, like PostgreSQL's "invalid
// record ends the WAL". Without that evidence, or in a sealed segment (its
// end-of-stream marker was written and synced after every frame), the
// damage is corruption and is reported.
const sectorSize = 512

// unwrittenIn reports whether a sector overlapping [lo, hi) reads as zeros
// from max(lo, its start) to its end (at least 8 bytes): the part of the
// sector this frame wrote, and all after it, was not persisted.
func unwrittenIn(data []byte, lo, hi int64) bool {
	n := int64(len(data))
	for s := lo &^ (sectorSize - 1); s < hi && s < n; s += sectorSize {
		from, to := max(s, lo), min(s+sectorSize, n)
		if to-from >= 8 && allZero(data[from:to]) {
			return true
		}
	}
	return false
}

// endsSealed reports whether the last non-zero bytes of data are an
// end-of-stream marker at a frame boundary (8-byte aligned).
func endsSealed(data []byte) bool {
	i := len(data) - 1
	for i >= 0 && data[i] == 0 {
		i--
	}
	p := i - 3
	return p >= 0 && p%frameAlign == 0 && p+8 <= len(data) && bytes.Equal(data[p:p+8], eosMarker)
}

// readSegment parses a whole segment. It returns every complete, verified
// batch, or a *CorruptionError; it never panics on any input. The batches
// share data.
func readSegment(name string, data []byte) (*segmentContents, error) {
	return readSegmentFrom(name, data, nil)
}

// readSegmentFrom is readSegment; m is data's mapping if data is mapped
// (see mmap.go), nil if data is on the heap.
func readSegmentFrom(name string, data []byte, m *mapping) (*segmentContents, error) {
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
	// A frame failing verification that shows an unwritten sector, in a
	// segment not sealed, is a torn write (see unwrittenIn).
	// Asked only for a failing frame: endsSealed reads back through the
	// whole zero tail of a preallocated segment.
	tornWrite := func(i int) bool {
		return tail != tailEOS && unwrittenIn(data, frames[i].off, frames[i].end) && !endsSealed(data)
	}
	validEnd := frames[len(frames)-1].end
	err := decodeFrames(name, data[:validEnd], m, frames, recFrames, isLast, tornWrite, c)
	// The mapping object holds a count of the mapping until here: data is
	// read until decodeFrames returns (see mmap.go).
	runtime.KeepAlive(m)
	if err != nil {
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
			if cont == 0 && unwrittenIn(data, off, off+8) && !endsSealed(data) {
				return frames, tailTorn, off, fmt.Sprintf("unwritten sector at a frame boundary; %d bytes after it dropped", n-off), nil
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
			if unwrittenIn(data, off, off+8+mlen) && !endsSealed(data) {
				return frames, tailTorn, off, fmt.Sprintf("undecodable message with an unwritten sector; %d bytes from it dropped", n-off), nil
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
// verifies each batch. Bodies are not copied (except small ones of a
// mapped segment, see mmap.go): every decoded buffer is a slice of data
// (see frameMessages), so the batches keep data alive and nothing else.
// The record frames are decoded and checksummed in parallel in contiguous
// chunks; the results are merged in frame order, so the outcome (batches,
// and the first failing frame with its error) is the one a sequential
// decode gives.
func decodeFrames(name string, data []byte, m *mapping, frames []frame, recFrames []int, isLast, tornWrite func(int) bool, c *segmentContents) error {
	chunks := decodeChunks(frames, recFrames)
	results := make([]chunkResult, len(chunks))
	workers := min(runtime.GOMAXPROCS(0), len(chunks))
	if workers <= 1 {
		for i := range chunks {
			results[i] = decodeChunk(data, m, frames, chunks[i])
			if results[i].err != nil {
				break
			}
		}
	} else {
		var next atomic.Int64
		var failed atomic.Int64 // lowest failed chunk + 1, 0 if none
		var wg sync.WaitGroup
		for range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					i := int(next.Add(1) - 1)
					if i >= len(chunks) {
						return
					}
					if f := failed.Load(); f != 0 && int64(i) >= f {
						continue // a sequential decode never gets here
					}
					results[i] = decodeChunk(data, m, frames, chunks[i])
					if results[i].err != nil {
						for f := failed.Load(); f == 0 || int64(i)+1 < f; f = failed.Load() {
							if failed.CompareAndSwap(f, int64(i)+1) {
								break
							}
						}
					}
				}
			}()
		}
		wg.Wait()
	}
	var err error
	for i := range results {
		r := &results[i]
		if err != nil || r.schema == nil && r.err == nil {
			// After the first failure (or a chunk skipped because of it).
			for _, b := range r.batches {
				b.rec.Release()
			}
			continue
		}
		if c.schema == nil {
			c.schema = r.schema
		}
		c.batches = append(c.batches, r.batches...)
		if r.err == nil {
			continue
		}
		switch {
		case tornWrite(r.frame):
			c.tail, c.tailOff = tailTorn, frames[r.frame].off
			c.reason = fmt.Sprintf("torn write (unwritten sector) in a frame that fails verification (%v); %d bytes from it dropped", r.err, int64(len(data))-frames[r.frame].off)
			err = errStop
		case r.checksum:
			err = corrupt(name, frames[r.frame].off, ErrChecksum, "%v", r.err)
		case r.hard:
			err = corrupt(name, frames[r.frame].off, ErrBadFrame, "%v", r.err)
		case isLast(r.frame):
			c.tail, c.tailOff, c.reason = tailTorn, frames[r.frame].off, fmt.Sprintf("undecodable final message: %v", r.err)
			// Stop here: the torn frame is the last one.
			err = errStop
		default:
			err = corrupt(name, frames[r.frame].off, ErrBadFrame, "%v", r.err)
		}
	}
	if err == errStop {
		err = nil
	}
	if err != nil {
		return err
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

var errStop = errors.New("stop")

// chunk is a contiguous run of a segment's frames decoded by one
// Arrow IPC reader (after the schema frame, which every chunk decodes).
type chunk struct {
	frames []int // frame indexes after the schema, in order
	recs   []int // the record-batch frames among them
}

// chunkResult is what decoding a chunk produced: its verified batches, and
// the first failure (frame index and cause).
type chunkResult struct {
	schema   *arrow.Schema
	batches  []batch
	err      error
	frame    int
	checksum bool // err is a checksum/metadata failure of a decoded batch
	hard     bool // err is corruption even in the final frame (a panic outside the Arrow reader)
}

// chunkBytes is the frame size at which a chunk is cut; chunks bound the
// work one goroutine takes at a time (so both cores stay busy to the end).
// A variable for tests.
var chunkBytes int64 = 4 << 20

// decodeChunks splits the frames after the schema into chunks. A segment
// with dictionary frames (never written by this package) is decoded as one
// chunk: dictionaries are stream state.
func decodeChunks(frames []frame, recFrames []int) []chunk {
	dicts := false
	for _, f := range frames[1:] {
		if f.typ == msgDictionaryBatch {
			dicts = true
		}
	}
	if dicts || len(recFrames) == 0 {
		all := make([]int, 0, len(frames)-1)
		for i := 1; i < len(frames); i++ {
			all = append(all, i)
		}
		return []chunk{{frames: all, recs: recFrames}}
	}
	var out []chunk
	start, size := 0, int64(0)
	for i, fi := range recFrames {
		size += frames[fi].end - frames[fi].off
		if size >= chunkBytes || i == len(recFrames)-1 {
			run := recFrames[start : i+1 : i+1]
			out = append(out, chunk{frames: run, recs: run})
			start, size = i+1, 0
		}
	}
	return out
}

// decodeChunk decodes and verifies one chunk; it never panics.
func decodeChunk(data []byte, m *mapping, frames []frame, ch chunk) (res chunkResult) {
	k := 0 // next record frame of the chunk
	defer func() {
		// The Arrow reader recovers its own panics; this covers the rest.
		if p := recover(); p != nil {
			fi := 0
			if k < len(ch.recs) {
				fi = ch.recs[k]
			}
			res.err, res.frame, res.hard, res.checksum = fmt.Errorf("decoder panic: %v", p), fi, true, false
		}
	}()
	mr := &frameMessages{data: data, m: m, frames: frames, idx: ch.frames}
	rd, rerr := ipc.NewReaderFromMessageReader(mr, ipc.WithAllocator(memory.DefaultAllocator))
	if rerr != nil {
		res.err, res.frame = rerr, 0
		return res
	}
	defer rd.Release()
	res.schema = rd.Schema()
	for rd.Next() {
		if k >= len(ch.recs) {
			res.err, res.frame, res.hard = errors.New("more batches than frames"), len(frames)-1, true
			return res
		}
		fi := ch.recs[k]
		b, verr := verifyBatch(rd.RecordBatch())
		if verr != nil {
			res.err, res.frame, res.checksum = verr, fi, true
			return res
		}
		b.off = frames[fi].off
		if mr.mapped() {
			m.trackBatch(b.rec) // see mmap.go
		}
		res.batches = append(res.batches, b)
		k++
	}
	if rerr := rd.Err(); rerr != nil {
		fi := ch.frames[len(ch.frames)-1]
		if k < len(ch.recs) {
			fi = ch.recs[k]
		}
		res.err, res.frame = rerr, fi
		return res
	}
	if k != len(ch.recs) {
		res.err, res.frame = errors.New("batch missing from the stream"), ch.recs[k]
	}
	return res
}

// frameMessages is an ipc.MessageReader over frames of a segment held in
// memory: the schema frame, then the frames idx. Metadata and body are
// slices of data capped at the frame's end (a damaged buffer offset cannot
// reach into the next frame), so decoded arrays share data, zero-copy
// (but a body smaller than minMappedBody of a mapped segment is copied).
// The frames were bounds-checked by scanFrames.
type frameMessages struct {
	data   []byte
	m      *mapping // data's mapping, nil if data is on the heap
	frames []frame
	idx    []int
	next   int  // next index into idx
	schema bool // the schema frame was returned
	msg    *ipc.Message
	// lastMapped: the body of the last message returned is a slice of the
	// mapping; dictMapped: so is the body of a dictionary message returned
	// (dictionaries are stream state, used by later batches).
	lastMapped, dictMapped bool
}

// mapped says whether the batch just decoded (from the last message
// returned) may use the mapping.
func (m *frameMessages) mapped() bool { return m.lastMapped || m.dictMapped }

func (m *frameMessages) Message() (msg *ipc.Message, err error) {
	defer func() {
		if p := recover(); p != nil {
			msg, err = nil, fmt.Errorf("invalid message: %v", p)
		}
	}()
	var f frame
	switch {
	case !m.schema:
		f, m.schema = m.frames[0], true
	case m.next < len(m.idx):
		f = m.frames[m.idx[m.next]]
		m.next++
	default:
		return nil, io.EOF
	}
	mlen := int64(int32(binary.LittleEndian.Uint32(m.data[f.off+4:])))
	metaEnd := f.off + 8 + mlen
	// The metadata is only read while decoding (names and custom metadata
	// are copied into strings).
	meta := memory.NewBufferBytes(m.data[f.off+8 : metaEnd : metaEnd])
	var body *memory.Buffer
	switch {
	case m.m == nil:
		body = memory.NewBufferBytes(m.data[metaEnd:f.end:f.end]) // the GC owns data
	case f.end-metaEnd < minMappedBody:
		// Cheaper to copy than to track (see mmap.go); the GC owns the copy.
		body = memory.NewBufferBytes(bytes.Clone(m.data[metaEnd:f.end]))
		m.lastMapped = false
	default:
		// Reference counted, allocated from the mapping: see mmap.go.
		body = memory.NewBufferWithAllocator(m.data[metaEnd:f.end:f.end], m.m)
		m.lastMapped = true
		if f.typ == msgDictionaryBatch {
			m.dictMapped = true
		}
	}
	if m.msg != nil {
		m.msg.Release()
	}
	m.msg = ipc.NewMessage(meta, body)
	body.Release() // the message holds it
	return m.msg, nil
}

func (m *frameMessages) Retain() {}

func (m *frameMessages) Release() {
	if m.msg != nil {
		m.msg.Release()
		m.msg = nil
	}
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
		if i := md.FindKey(keyAux); i >= 0 {
			// Any bytes: the reader copied the flatbuffer string unchecked.
			b.aux = []byte(md.Values()[i])
		}
		if got := finishCRC(crc, b.tx, b.seq, b.index, b.count, b.aux); got != want {
			return batch{}, fmt.Errorf("crc32c %08x, stored %08x", got, want)
		}
		b.tagged = true
	}
	b.rec = array.NewRecordBatch(rec.Schema(), rec.Columns(), rec.NumRows())
	return b, nil
}

// formatCRC is the stored form of a checksum.
func formatCRC(c uint32) string { return fmt.Sprintf("%08x", c) }

// FrameEnds returns the end offset of each complete frame of a segment's
// bytes (the schema message first), framed as recovery frames them but
// without verifying the messages; the zeros of a preallocated tail are not
// frames. For inspection tools and crash tests.
func FrameEnds(data []byte) []int64 {
	frames, _, _, _, _ := scanFrames("", data)
	ends := make([]int64, len(frames))
	for i, f := range frames {
		ends[i] = f.end
	}
	return ends
}
