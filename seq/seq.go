package seq

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bsdb/bsdb-pg/pgerr"
	"github.com/bsdb/bsdb-pg/storage/catalog"
)

// LogVals is PostgreSQL's SEQ_LOG_VALS: values logged ahead of need.
const LogVals = 32

// Type OIDs a sequence may have.
const (
	OIDInt2 = 21
	OIDInt4 = 23
	OIDInt8 = 20
)

// Manager caches the sequences of a warehouse in memory. Safe for
// concurrent use.
type Manager struct {
	cat *catalog.Catalog
	mu  sync.Mutex
	// guarded by mu
	byName map[catalog.TableID]*Seq
	byOID  map[uint32]*Seq
	// Gen is advanced by every create, drop and rename: callers that
	// cache name lookups drop them when it moves.
	gen atomic.Uint64
}

// NewManager returns a manager over cat.
func NewManager(cat *catalog.Catalog) *Manager {
	return &Manager{cat: cat, byName: map[catalog.TableID]*Seq{}, byOID: map[uint32]*Seq{}}
}

// Gen is the manager's generation (see Manager.gen).
func (m *Manager) Gen() uint64 { return m.gen.Load() }

// Seq is one sequence.
type Seq struct {
	m  *Manager
	mu sync.Mutex
	// guarded by mu
	rec     catalog.Sequence // as last read or written
	last    int64
	called  bool
	logCnt  int64
	dropped bool
	// ahead is how many values a log-ahead covers beyond the call's own:
	// LogVals, doubled (up to MaxLogAhead) while log-aheads follow each
	// other within burstWindow, so that a stream of single-row INSERTs
	// pays one catalog write per many rows, not per 32.
	ahead   int64
	lastLog time.Time
}

// MaxLogAhead bounds the adaptive log-ahead: at most this many values are
// lost to a crash (PostgreSQL: SEQ_LOG_VALS).
const MaxLogAhead = 4096

// burstWindow: log-aheads closer than this grow the next one.
const burstWindow = time.Second

// Lookup returns the sequence id, or nil when there is none.
func (m *Manager) Lookup(ctx context.Context, id catalog.TableID) (*Seq, error) {
	m.mu.Lock()
	s := m.byName[id]
	m.mu.Unlock()
	if s != nil {
		return s, nil
	}
	rec, err := m.cat.Sequence(ctx, id)
	if errors.Is(err, catalog.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return m.adopt(rec), nil
}

// LookupOID returns the sequence of db with that OID, or nil.
func (m *Manager) LookupOID(ctx context.Context, db string, oid uint32) (*Seq, error) {
	m.mu.Lock()
	s := m.byOID[oid]
	m.mu.Unlock()
	if s != nil && s.Info().ID.Database == db {
		return s, nil
	}
	recs, err := m.cat.ListSequences(ctx, db)
	if err != nil {
		return nil, err
	}
	for i := range recs {
		if recs[i].OID == oid {
			return m.adopt(&recs[i]), nil
		}
	}
	return nil, nil
}

// adopt caches rec (or returns the cached sequence of its OID).
func (m *Manager) adopt(rec *catalog.Sequence) *Seq {
	m.mu.Lock()
	defer m.mu.Unlock()
	if s := m.byOID[rec.OID]; s != nil {
		m.byName[rec.ID] = s
		return s
	}
	s := &Seq{m: m, rec: *rec, last: rec.LastValue, called: rec.IsCalled}
	m.byName[rec.ID], m.byOID[rec.OID] = s, s
	return s
}

// Create records a new sequence whose definition ApplyOptions made.
func (m *Manager) Create(ctx context.Context, rec *catalog.Sequence) (*Seq, error) {
	out, err := m.cat.CreateSequence(ctx, rec)
	if err != nil {
		return nil, err
	}
	m.gen.Add(1)
	return m.adopt(out), nil
}

// Drop removes the sequence.
func (m *Manager) Drop(ctx context.Context, s *Seq) error {
	s.mu.Lock()
	id, oid := s.rec.ID, s.rec.OID
	s.dropped = true
	s.mu.Unlock()
	m.mu.Lock()
	if m.byName[id] == s {
		delete(m.byName, id)
	}
	delete(m.byOID, oid)
	m.mu.Unlock()
	m.gen.Add(1)
	err := m.cat.DropSequence(ctx, id)
	if errors.Is(err, catalog.ErrNotFound) {
		return nil
	}
	return err
}

// Forget drops the cached state of id (another process may have changed
// it; the next Lookup reads the record).
func (m *Manager) Forget(id catalog.TableID) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if s := m.byName[id]; s != nil {
		delete(m.byName, id)
		delete(m.byOID, s.rec.OID)
	}
	m.gen.Add(1)
}

// Rename gives the sequence a new name in its schema.
func (m *Manager) Rename(ctx context.Context, s *Seq, newName string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	old := s.rec.ID
	rec, err := m.cat.RenameSequence(ctx, old, newName)
	if err != nil {
		return err
	}
	m.mu.Lock()
	delete(m.byName, old)
	m.byName[rec.ID] = s
	m.mu.Unlock()
	s.rec.ID, s.rec.Gen = rec.ID, rec.Gen
	m.gen.Add(1)
	return nil
}

// Info returns the sequence's definition and durable record.
func (s *Seq) Info() catalog.Sequence {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.rec
}

// State is what SELECT * FROM a sequence shows.
type State struct {
	LastValue int64
	LogCnt    int64
	IsCalled  bool
}

// State returns the in-memory state.
func (s *Seq) State() State {
	s.mu.Lock()
	defer s.mu.Unlock()
	return State{s.last, s.logCnt, s.called}
}

func (s *Seq) name() string { return s.rec.ID.Name }

// errChanged: the record was written by someone else since we read it.
var errChanged = errors.New("seq: record changed")

// write stores a new durable state by CAS. fn changes the record; it
// runs on our cached record when nobody else wrote since, else (adopt ==
// true) the caller must recompute from the fresh record, which is
// adopted. REQUIRES: s.mu held.
func (s *Seq) writeLocked(ctx context.Context, fn func(*catalog.Sequence) error) (adopted bool, err error) {
	if s.dropped {
		return false, pgerr.New(pgerr.UndefinedTable, "relation \"%s\" does not exist", s.name())
	}
	gen := s.rec.Gen
	rec, err := s.m.cat.UpdateSequence(ctx, s.rec.ID, func(r *catalog.Sequence) error {
		if r.Gen != gen || r.OID != s.rec.OID {
			return errChanged
		}
		return fn(r)
	})
	switch {
	case errors.Is(err, errChanged):
		fresh, rerr := s.m.cat.Sequence(ctx, s.rec.ID)
		if rerr != nil {
			return false, s.notFound(rerr)
		}
		if fresh.OID != s.rec.OID {
			s.dropped = true
			return false, pgerr.New(pgerr.UndefinedTable, "relation \"%s\" does not exist", s.name())
		}
		s.rec, s.last, s.called, s.logCnt = *fresh, fresh.LastValue, fresh.IsCalled, 0
		return true, nil
	case err != nil:
		return false, s.notFound(err)
	}
	s.rec = *rec
	return false, nil
}

func (s *Seq) notFound(err error) error {
	if errors.Is(err, catalog.ErrNotFound) {
		s.dropped = true
		return pgerr.New(pgerr.UndefinedTable, "relation \"%s\" does not exist", s.name())
	}
	return err
}

// Next hands out n values (n >= 1) as nextval would, in order; they are
// durable (logged ahead) before Next returns. An error (a limit reached)
// hands out none of the n values, though the ones before the limit are
// used up, as when PostgreSQL's statement fails at that row.
func (s *Seq) Next(ctx context.Context, n int) ([]int64, error) {
	out := make([]int64, 0, n)
	s.mu.Lock()
	defer s.mu.Unlock()
	for len(out) < n {
		var err error
		if out, err = s.nextLocked(ctx, out, n-len(out)); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// nextLocked is one round of PostgreSQL's nextval_internal with a cache of
// want values: it appends at least one value (fewer than want when a limit
// is met). REQUIRES: s.mu held.
func (s *Seq) nextLocked(ctx context.Context, out []int64, want int) ([]int64, error) {
	if s.dropped {
		return nil, pgerr.New(pgerr.UndefinedTable, "relation \"%s\" does not exist", s.name())
	}
	for attempt := 0; ; attempt++ {
		r := &s.rec
		incby, maxv, minv, cache := r.Increment, r.Max, r.Min, int64(want)
		next := s.last
		fetch, log := cache, s.logCnt
		var rescnt int64
		var vals []int64
		if !s.called {
			vals = append(vals, next)
			rescnt++
			fetch--
		}
		logit := false
		if log < fetch || !s.called {
			fetch += s.logAhead()
			log = fetch
			logit = true
		}
		last := next
		for fetch > 0 {
			if incby > 0 {
				if (maxv >= 0 && next > maxv-incby) || (maxv < 0 && next+incby > maxv) {
					if rescnt > 0 {
						break
					}
					if !r.Cycle {
						return nil, pgerr.New("2200H", "nextval: reached maximum value of sequence \"%s\" (%d)", s.name(), maxv)
					}
					next = minv
				} else {
					next += incby
				}
			} else {
				if (minv < 0 && next < minv-incby) || (minv >= 0 && next+incby < minv) {
					if rescnt > 0 {
						break
					}
					if !r.Cycle {
						return nil, pgerr.New("2200H", "nextval: reached minimum value of sequence \"%s\" (%d)", s.name(), minv)
					}
					next = maxv
				} else {
					next += incby
				}
			}
			fetch--
			if rescnt < cache {
				log--
				rescnt++
				last = next
				vals = append(vals, next)
			}
		}
		log -= fetch
		if logit {
			logged := next
			adopted, err := s.writeLocked(ctx, func(rec *catalog.Sequence) error {
				rec.LastValue, rec.IsCalled = logged, true
				return nil
			})
			if err != nil {
				return nil, err
			}
			if adopted {
				if attempt > 64 {
					return nil, fmt.Errorf("seq: %s: too much contention", s.name())
				}
				continue // recompute from the other process's record
			}
		}
		s.last, s.called, s.logCnt = last, true, log
		return append(out, vals...), nil
	}
}

// logAhead is the number of values the next log-ahead covers beyond the
// call's own. REQUIRES: s.mu held.
func (s *Seq) logAhead() int64 {
	now := time.Now()
	switch {
	case s.ahead == 0 || now.Sub(s.lastLog) > burstWindow:
		s.ahead = LogVals
	case s.ahead < MaxLogAhead:
		s.ahead *= 2
	}
	s.lastLog = now
	return s.ahead
}

// SetVal is setval(v, isCalled): durable at once.
func (s *Seq) SetVal(ctx context.Context, v int64, isCalled bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for {
		if v < s.rec.Min || v > s.rec.Max {
			return pgerr.New(pgerr.NumericValueOutOfRange, "setval: value %d is out of bounds for sequence \"%s\" (%d..%d)", v, s.name(), s.rec.Min, s.rec.Max)
		}
		adopted, err := s.writeLocked(ctx, func(rec *catalog.Sequence) error {
			rec.LastValue, rec.IsCalled = v, isCalled
			return nil
		})
		if err != nil {
			return err
		}
		if !adopted {
			break
		}
	}
	s.last, s.called, s.logCnt = v, isCalled, 0
	return nil
}

// Alter changes the definition (and with RESTART the state) by o, as
// ALTER SEQUENCE: durable at once.
func (s *Seq) Alter(ctx context.Context, o *Options, owned func(*catalog.Sequence) error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for {
		last, called := s.last, s.called
		adopted, err := s.writeLocked(ctx, func(rec *catalog.Sequence) error {
			// Our in-memory state is the current one (nobody else wrote
			// since our last write): values past it were never handed out.
			rec.LastValue, rec.IsCalled = last, called
			if o != nil {
				if err := ApplyOptions(rec, o, false, false); err != nil {
					return err
				}
			}
			if owned != nil {
				return owned(rec)
			}
			return nil
		})
		if err != nil {
			return err
		}
		if !adopted {
			break
		}
	}
	s.last, s.called, s.logCnt = s.rec.LastValue, s.rec.IsCalled, 0
	return nil
}

// Options are the options of CREATE/ALTER SEQUENCE (nil: not given).
type Options struct {
	As             *uint32 // type OID (the caller resolved the name)
	Increment      *int64
	Start          *int64
	Max, Min       *int64
	NoMax, NoMin   bool
	Restart        *int64
	RestartDefault bool // RESTART without a value
	Cache          *int64
	Cycle          *bool
}

func typeName(oid uint32) string {
	switch oid {
	case OIDInt2:
		return "smallint"
	case OIDInt4:
		return "integer"
	}
	return "bigint"
}

func typeBounds(oid uint32) (int64, int64) {
	switch oid {
	case OIDInt2:
		return math.MinInt16, math.MaxInt16
	case OIDInt4:
		return math.MinInt32, math.MaxInt32
	}
	return math.MinInt64, math.MaxInt64
}

// ApplyOptions is PostgreSQL's init_params: it sets rec's definition
// (and state: START at creation, RESTART) from o, with its checks and
// messages. isInit: CREATE (defaults for what o leaves out).
func ApplyOptions(rec *catalog.Sequence, o *Options, isInit, forIdentity bool) error {
	bad := func(format string, args ...any) error {
		return pgerr.New(pgerr.InvalidParameterValue, format, args...)
	}
	resetMax, resetMin := false, false
	if o.As != nil {
		t := *o.As
		if t != OIDInt2 && t != OIDInt4 && t != OIDInt8 {
			if forIdentity {
				return bad("identity column type must be smallint, integer, or bigint")
			}
			return bad("sequence type must be smallint, integer, or bigint")
		}
		if !isInit {
			lo, hi := typeBounds(rec.TypeOID)
			resetMax, resetMin = rec.Max == hi, rec.Min == lo
		}
		rec.TypeOID = t
	} else if isInit {
		rec.TypeOID = OIDInt8
	}
	if o.Increment != nil {
		rec.Increment = *o.Increment
		if rec.Increment == 0 {
			return bad("INCREMENT must not be zero")
		}
	} else if isInit {
		rec.Increment = 1
	}
	if o.Cycle != nil {
		rec.Cycle = *o.Cycle
	} else if isInit {
		rec.Cycle = false
	}
	lo, hi := typeBounds(rec.TypeOID)
	if o.Max != nil {
		rec.Max = *o.Max
	} else if isInit || o.NoMax || resetMax {
		if rec.Increment > 0 || resetMax {
			rec.Max = hi
		} else {
			rec.Max = -1
		}
	}
	if rec.Max < lo || rec.Max > hi {
		return bad("MAXVALUE (%d) is out of range for sequence data type %s", rec.Max, typeName(rec.TypeOID))
	}
	if o.Min != nil {
		rec.Min = *o.Min
	} else if isInit || o.NoMin || resetMin {
		if rec.Increment < 0 || resetMin {
			rec.Min = lo
		} else {
			rec.Min = 1
		}
	}
	if rec.Min < lo || rec.Min > hi {
		return bad("MINVALUE (%d) is out of range for sequence data type %s", rec.Min, typeName(rec.TypeOID))
	}
	if rec.Min >= rec.Max {
		return bad("MINVALUE (%d) must be less than MAXVALUE (%d)", rec.Min, rec.Max)
	}
	if o.Start != nil {
		rec.Start = *o.Start
	} else if isInit {
		if rec.Increment > 0 {
			rec.Start = rec.Min
		} else {
			rec.Start = rec.Max
		}
	}
	if rec.Start < rec.Min {
		return bad("START value (%d) cannot be less than MINVALUE (%d)", rec.Start, rec.Min)
	}
	if rec.Start > rec.Max {
		return bad("START value (%d) cannot be greater than MAXVALUE (%d)", rec.Start, rec.Max)
	}
	if o.Restart != nil || o.RestartDefault {
		if o.Restart != nil {
			rec.LastValue = *o.Restart
		} else {
			rec.LastValue = rec.Start
		}
		rec.IsCalled = false
	} else if isInit {
		rec.LastValue, rec.IsCalled = rec.Start, false
	}
	if rec.LastValue < rec.Min {
		return bad("RESTART value (%d) cannot be less than MINVALUE (%d)", rec.LastValue, rec.Min)
	}
	if rec.LastValue > rec.Max {
		return bad("RESTART value (%d) cannot be greater than MAXVALUE (%d)", rec.LastValue, rec.Max)
	}
	if o.Cache != nil {
		rec.Cache = *o.Cache
		if rec.Cache <= 0 {
			return bad("CACHE (%d) must be greater than zero", rec.Cache)
		}
	} else if isInit {
		rec.Cache = 1
	}
	return nil
}
