package manifest

import (
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"slices"
	"sync/atomic"

	"github.com/google/uuid"
)

// MaxTrackedWALWriters bounds Manifest.CommittedWAL: the entries of the
// writers that committed least recently are dropped first. A writer's
// entry is needed only while a WAL segment holding its transactions
// survives; a segment is pruned by the commit that commits its last
// transaction (or by the recovery commit of the next process), so an entry
// outlives its segments by 64 other writers' commits.
const MaxTrackedWALWriters = 64

// WAL transaction ids are UUIDs of version 8 (RFC 9562, vendor-defined):
//
//	bytes 0-5   writer: 48 random bits, one per TxIDGen (one per table handle)
//	byte  6     0x80: version 8
//	byte  7     0, or 1 for one table's part of a multi-table transaction
//	            (replayed only if the server's transaction log committed it)
//	byte  8     0x80: RFC 4122 variant
//	bytes 9-15  counter: 56 bits, big-endian, from 1, per writer
//
// Because one writer's ids are consecutive, the manifest records every
// committed transaction as a few ranges per writer, however many
// transactions a commit holds (thousands per flush under many clients).
// Ids of any other shape (random v4 UUIDs of data directories written
// before this layout) go to the bounded legacy list CommittedWALTx.

// TxIDGen hands out the WAL transaction ids of one writer.
type TxIDGen struct {
	writer uint64
	next   atomic.Uint64
}

// NewTxIDGen returns a generator with a fresh random writer.
func NewTxIDGen() *TxIDGen {
	var b [8]byte
	if _, err := rand.Read(b[2:]); err != nil {
		panic(fmt.Sprintf("manifest: random writer id: %v", err))
	}
	return &TxIDGen{writer: binary.BigEndian.Uint64(b[:])}
}

// New returns the writer's next transaction id.
func (g *TxIDGen) New() uuid.UUID { return MakeTxID(g.writer, g.next.Add(1)) }

// NewMulti returns the writer's next transaction id, flagged as one table's
// part of a multi-table transaction (IsMultiTx). The flag does not change
// how the manifest records it: the writer's counters stay consecutive.
func (g *TxIDGen) NewMulti() uuid.UUID {
	id := g.New()
	id[7] = multiFlag
	return id
}

// multiFlag in byte 7 marks a multi-table participant.
const multiFlag = 0x01

// IsMultiTx reports whether id is one table's part of a multi-table
// transaction: recovery replays it only if the transaction log says the
// whole transaction committed.
func IsMultiTx(id uuid.UUID) bool {
	return id[6] == 0x80 && id[7] == multiFlag && id[8] == 0x80
}

// MakeTxID builds the id of transaction n of writer w (w < 2^48, n < 2^56).
func MakeTxID(w, n uint64) uuid.UUID {
	var id uuid.UUID
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], w)
	copy(id[0:6], b[2:])
	id[6], id[7], id[8] = 0x80, 0, 0x80
	binary.BigEndian.PutUint64(b[:], n)
	copy(id[9:16], b[1:])
	return id
}

// SplitTxID returns the writer and counter of an id made by MakeTxID.
func SplitTxID(id uuid.UUID) (w, n uint64, ok bool) {
	if id[6] != 0x80 || (id[7] != 0 && id[7] != multiFlag) || id[8] != 0x80 {
		return 0, 0, false
	}
	var b [8]byte
	copy(b[2:], id[0:6])
	w = binary.BigEndian.Uint64(b[:])
	b = [8]byte{}
	copy(b[1:], id[9:16])
	return w, binary.BigEndian.Uint64(b[:]), true
}

// WriterTx is the committed transactions of one writer.
type WriterTx struct {
	// Writer is the writer's 48 bits, 12 lower-case hex digits.
	Writer string `json:"writer"`
	// Ranges are the committed counters, inclusive, sorted, disjoint and
	// not adjacent (adjacent ranges are merged).
	Ranges [][2]uint64 `json:"ranges"`
	// Version is the manifest version that last added to Ranges (the
	// eviction order).
	Version int64 `json:"version"`
}

func writerHex(w uint64) string {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], w)
	return hex.EncodeToString(b[2:])
}

// AddCommittedWALTx records ids as committed by m (m.Version must be set).
func (m *Manifest) AddCommittedWALTx(ids ...uuid.UUID) {
	per := map[uint64][]uint64{}
	var legacy []string
	for _, id := range ids {
		if w, n, ok := SplitTxID(id); ok {
			per[w] = append(per[w], n)
		} else {
			legacy = append(legacy, id.String())
		}
	}
	if len(legacy) > 0 {
		m.appendLegacy(legacy)
	}
	for w, ns := range per {
		slices.Sort(ns)
		var add [][2]uint64
		for _, n := range ns {
			if k := len(add); k > 0 && n <= add[k-1][1]+1 {
				add[k-1][1] = max(add[k-1][1], n)
				continue
			}
			add = append(add, [2]uint64{n, n})
		}
		name := writerHex(w)
		i := slices.IndexFunc(m.CommittedWAL, func(e WriterTx) bool { return e.Writer == name })
		if i < 0 {
			m.CommittedWAL = append(m.CommittedWAL, WriterTx{Writer: name})
			i = len(m.CommittedWAL) - 1
		}
		e := &m.CommittedWAL[i]
		e.Ranges = mergeRanges(e.Ranges, add)
		e.Version = m.Version
	}
	if over := len(m.CommittedWAL) - MaxTrackedWALWriters; over > 0 {
		slices.SortStableFunc(m.CommittedWAL, func(a, b WriterTx) int { return int(b.Version - a.Version) })
		m.CommittedWAL = m.CommittedWAL[:MaxTrackedWALWriters]
	}
}

// mergeRanges merges two sorted range lists into one, coalescing overlapping
// and adjacent ranges.
func mergeRanges(a, b [][2]uint64) [][2]uint64 {
	all := make([][2]uint64, 0, len(a)+len(b))
	all = append(append(all, a...), b...)
	slices.SortFunc(all, func(x, y [2]uint64) int {
		switch {
		case x[0] < y[0]:
			return -1
		case x[0] > y[0]:
			return 1
		}
		return 0
	})
	out := all[:0]
	for _, r := range all {
		if k := len(out); k > 0 && r[0] <= out[k-1][1]+1 {
			out[k-1][1] = max(out[k-1][1], r[1])
			continue
		}
		out = append(out, r)
	}
	return slices.Clip(out)
}

func (m *Manifest) appendLegacy(ids []string) {
	seen := make(map[string]bool, len(m.CommittedWALTx))
	for _, id := range m.CommittedWALTx {
		seen[id] = true
	}
	for _, id := range ids {
		if !seen[id] {
			seen[id] = true
			m.CommittedWALTx = append(m.CommittedWALTx, id)
		}
	}
	if over := len(m.CommittedWALTx) - MaxTrackedWALTx; over > 0 {
		m.CommittedWALTx = append([]string(nil), m.CommittedWALTx[over:]...)
	}
}

// TxSet answers whether a WAL transaction is committed in a manifest.
type TxSet struct {
	writers map[uint64][][2]uint64
	legacy  map[string]bool
}

// Committed returns the set of WAL transactions m records as committed.
func (m *Manifest) Committed() TxSet {
	s := TxSet{}
	if len(m.CommittedWAL) > 0 {
		s.writers = make(map[uint64][][2]uint64, len(m.CommittedWAL))
		for _, e := range m.CommittedWAL {
			var b [8]byte
			if _, err := hex.Decode(b[2:], []byte(e.Writer)); err == nil {
				s.writers[binary.BigEndian.Uint64(b[:])] = e.Ranges
			}
		}
	}
	if len(m.CommittedWALTx) > 0 {
		s.legacy = make(map[string]bool, len(m.CommittedWALTx))
		for _, id := range m.CommittedWALTx {
			s.legacy[id] = true
		}
	}
	return s
}

// Empty reports whether the set holds no transaction.
func (s TxSet) Empty() bool { return len(s.writers) == 0 && len(s.legacy) == 0 }

// Has reports whether id is committed.
func (s TxSet) Has(id uuid.UUID) bool {
	if w, n, ok := SplitTxID(id); ok {
		rs := s.writers[w]
		i, _ := slices.BinarySearchFunc(rs, n, func(r [2]uint64, n uint64) int {
			switch {
			case r[1] < n:
				return -1
			case r[0] > n:
				return 1
			}
			return 0
		})
		return i < len(rs) && rs[i][0] <= n && n <= rs[i][1]
	}
	return s.legacy[id.String()]
}

func (m *Manifest) validateCommittedWAL() error {
	if len(m.CommittedWALTx) > MaxTrackedWALTx {
		return fmt.Errorf("manifest v%d: %d committed WAL tx ids, max %d", m.Version, len(m.CommittedWALTx), MaxTrackedWALTx)
	}
	if len(m.CommittedWAL) > MaxTrackedWALWriters {
		return fmt.Errorf("manifest v%d: %d WAL writers, max %d", m.Version, len(m.CommittedWAL), MaxTrackedWALWriters)
	}
	seen := map[string]bool{}
	for _, e := range m.CommittedWAL {
		if len(e.Writer) != 12 || seen[e.Writer] {
			return fmt.Errorf("manifest v%d: bad or duplicate WAL writer %q", m.Version, e.Writer)
		}
		if _, err := hex.DecodeString(e.Writer); err != nil {
			return fmt.Errorf("manifest v%d: bad WAL writer %q", m.Version, e.Writer)
		}
		seen[e.Writer] = true
		if e.Version < 1 || e.Version > m.Version {
			return fmt.Errorf("manifest v%d: WAL writer %s: bad version %d", m.Version, e.Writer, e.Version)
		}
		for i, r := range e.Ranges {
			if r[0] > r[1] || i > 0 && r[0] <= e.Ranges[i-1][1]+1 {
				return fmt.Errorf("manifest v%d: WAL writer %s: ranges not sorted, disjoint and merged at %d", m.Version, e.Writer, i)
			}
		}
	}
	return nil
}
