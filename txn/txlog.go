package txn

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"

	"github.com/bsdb/bsdb-pg/storage/manifest"
	"github.com/bsdb/bsdb-pg/storage/vfs"
)

// TxLog is the commit log of multi-table transactions: the one place where
// a transaction that wrote several tables (each with its own WAL) becomes
// committed as a whole.
//
// The protocol (Coordinator.Commit): every participant table appends its
// batches to its own WAL under a flagged tx id (manifest.IsMultiTx) and
// syncs them; then one record listing every participant's tx id is
// appended here and synced: that is the commit point; then the batches are
// published to the tables' buffers, all under one lock that readers of
// several tables take too. Recovery replays a flagged transaction only if
// a log file holds its record. A crash before the record leaves each
// participant's frames in its WAL, never replayed; after it, every
// participant replays. Either all tables show the transaction or none.
//
// Several processes may share the directory (two servers on one data
// directory, as they share WAL directories). Each appends to files of its
// own, held by a lock file like WAL segments; the files of a live process
// are read, never changed; those of a dead one are adopted by the next
// process that opens the log. A record is needed until each participant
// has the transaction in its table's manifest (ResolveTable); a file whose
// records are all resolved is deleted by its owner. Records of tables this
// process never opens keep their file (a few bytes per transaction).
//
// Format of a file txlog_{unix ns:020}_{pid}.log: records, each
//
//	u32 LE payload length | u32 LE CRC-32C of the payload | payload
//	payload: u8 version (1) | uvarint parts | parts x (16-byte tx id | uvarint len | table prefix)
//
// A record cut short at the end of a file (a crash during its write; its
// commit was never acknowledged) ends the file. A bad record followed by
// more data is corruption: the log refuses to open.
type TxLog struct {
	fs   vfs.FS
	dir  string
	log  *slog.Logger
	sync bool // false: tests that skip fdatasync

	wmu    sync.Mutex   // serialises appends to the active file
	syncs  atomic.Int64 // fdatasync calls (tests, diagnostics)
	scanMu sync.Mutex   // one rescan of other processes' files at a time

	mu struct {
		sync.Mutex
		files   map[string]*txLogFile             // owned files (ours or adopted)
		ids     map[uuid.UUID]string              // owned entries: tx id -> file
		byTable map[string]map[uuid.UUID]struct{} // owned entries by table prefix
		foreign map[uuid.UUID]struct{}            // entries of live processes' files
		active  *txLogFile                        // nil until the first commit of this process
		failed  error                             // a write or sync failed: no more commits
		closed  bool
		lastTS  int64
	}
}

// TxPart is one table's part of a multi-table transaction.
type TxPart struct {
	Prefix string
	TxID   uuid.UUID
}

type txLogFile struct {
	name    string
	lock    io.Closer
	f       vfs.File // open while active
	size    int64    // bytes written (guarded by TxLog.wmu while active)
	pending int      // unresolved entries (TxLog.mu)

	// Group commit (smu): concurrent commits share one fdatasync, as the
	// WAL's segments do; the first waiter syncs for everyone written.
	smu     sync.Mutex
	cond    *sync.Cond
	syncing bool
	synced  int64
	serr    error
}

// waitSynced returns once the file is durable up to target, syncing it
// itself unless another caller's fdatasync covers it.
func (f *txLogFile) waitSynced(target int64, sync bool, count *atomic.Int64) error {
	f.smu.Lock()
	defer f.smu.Unlock()
	for f.synced < target {
		if f.serr != nil {
			return f.serr
		}
		if f.syncing {
			f.cond.Wait()
			continue
		}
		f.syncing = true
		upto := target
		if f.size > upto {
			upto = f.size
		}
		f.smu.Unlock()
		var err error
		if sync {
			err = f.f.SyncData()
			count.Add(1)
		}
		f.smu.Lock()
		f.syncing = false
		if err != nil {
			f.serr = fmt.Errorf("txn: transaction log: fdatasync: %w", err)
		} else if upto > f.synced {
			f.synced = upto
		}
		f.cond.Broadcast()
	}
	return nil
}

const (
	txLogVersion   = 1
	txLogFileBytes = 4 << 20
	txLogMaxRecord = 1 << 20
)

// ErrTxLogCorrupt is wrapped by the error of a log that cannot be read.
var ErrTxLogCorrupt = errors.New("txn: transaction log corrupt")

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// OpenTxLog reads the transaction log in dir (created if missing).
// fsys nil is the OS. noSync skips fdatasync (tests only).
func OpenTxLog(dir string, fsys vfs.FS, logger *slog.Logger, noSync bool) (*TxLog, error) {
	if fsys == nil {
		fsys = vfs.Default
	}
	if logger == nil {
		logger = slog.Default()
	}
	l := &TxLog{fs: fsys, dir: dir, log: logger, sync: !noSync}
	l.mu.files = map[string]*txLogFile{}
	l.mu.ids = map[uuid.UUID]string{}
	l.mu.byTable = map[string]map[uuid.UUID]struct{}{}
	l.mu.foreign = map[uuid.UUID]struct{}{}
	if err := fsys.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("txn: transaction log: %w", err)
	}
	names, err := fsys.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("txn: transaction log: %w", err)
	}
	present := map[string]bool{}
	for _, n := range names {
		present[n] = true
	}
	fail := func(err error) (*TxLog, error) {
		for _, lf := range l.mu.files {
			lf.lock.Close()
		}
		return nil, err
	}
	for _, name := range names {
		if base, ok := strings.CutSuffix(name, ".lock"); ok {
			if _, isLog := txLogTS(base); isLog && !present[base] {
				l.removeOrphanLock(name)
			}
			continue
		}
		ts, ok := txLogTS(name)
		if !ok {
			continue
		}
		l.mu.lastTS = max(l.mu.lastTS, ts)
		lk, err := fsys.Lock(filepath.Join(dir, name+".lock"))
		if errors.Is(err, vfs.ErrLocked) {
			// A live process's file: read it, never change it.
			recs, _, err := l.readFile(name)
			if err != nil {
				return fail(err)
			}
			for _, parts := range recs {
				for _, p := range parts {
					l.mu.foreign[p.TxID] = struct{}{}
				}
			}
			continue
		}
		if err != nil {
			return fail(fmt.Errorf("txn: transaction log: %w", err))
		}
		recs, size, err := l.readFile(name)
		if err != nil {
			lk.Close()
			return fail(err)
		}
		lf := &txLogFile{name: name, lock: lk, size: size}
		l.mu.files[name] = lf
		for _, parts := range recs {
			l.addLocked(lf, parts)
		}
	}
	// Files whose records are all gone (read as empty) go now.
	for _, lf := range l.mu.files {
		if lf.pending == 0 {
			l.removeLocked(lf)
		}
	}
	return l, nil
}

// addLocked registers the entries of one record of lf. REQUIRES: mu held.
func (l *TxLog) addLocked(lf *txLogFile, parts []TxPart) {
	for _, p := range parts {
		if _, dup := l.mu.ids[p.TxID]; dup {
			continue
		}
		l.mu.ids[p.TxID] = lf.name
		m := l.mu.byTable[p.Prefix]
		if m == nil {
			m = map[uuid.UUID]struct{}{}
			l.mu.byTable[p.Prefix] = m
		}
		m[p.TxID] = struct{}{}
		lf.pending++
	}
}

func (l *TxLog) removeOrphanLock(name string) {
	path := filepath.Join(l.dir, name)
	lk, err := l.fs.Lock(path)
	if err != nil {
		return // held: its owner is creating the file
	}
	base, _ := strings.CutSuffix(path, ".lock")
	if _, err := l.fs.Stat(base); errors.Is(err, fs.ErrNotExist) {
		_ = l.fs.Remove(path)
	}
	lk.Close()
}

func txLogTS(name string) (int64, bool) {
	s, ok := strings.CutPrefix(name, "txlog_")
	if !ok {
		return 0, false
	}
	s, ok = strings.CutSuffix(s, ".log")
	if !ok {
		return 0, false
	}
	ts, pid, ok := strings.Cut(s, "_")
	if !ok {
		return 0, false
	}
	if _, err := strconv.ParseUint(pid, 10, 32); err != nil {
		return 0, false
	}
	n, err := strconv.ParseInt(ts, 10, 64)
	return n, err == nil
}

func (l *TxLog) readFile(name string) ([][]TxPart, int64, error) {
	f, err := l.fs.Open(filepath.Join(l.dir, name))
	if err != nil {
		return nil, 0, fmt.Errorf("txn: transaction log: %w", err)
	}
	defer f.Close()
	data, err := io.ReadAll(f)
	if err != nil {
		return nil, 0, fmt.Errorf("txn: transaction log: read %s: %w", name, err)
	}
	var out [][]TxPart
	off := 0
	for off < len(data) {
		bad := func(reason string) ([][]TxPart, int64, error) {
			return nil, 0, fmt.Errorf("%w: %s at offset %d: %s", ErrTxLogCorrupt, name, off, reason)
		}
		torn := func(reason string) ([][]TxPart, int64, error) {
			l.log.Warn("transaction log: the last record is incomplete (a crash during its write; its transaction was never acknowledged)",
				"file", name, "offset", off, "reason", reason)
			return out, int64(len(data)), nil
		}
		if len(data)-off < 8 {
			return torn("short header")
		}
		n := int(binary.LittleEndian.Uint32(data[off:]))
		sum := binary.LittleEndian.Uint32(data[off+4:])
		if n > txLogMaxRecord {
			if allZero(data[off:]) {
				return torn("zero tail")
			}
			return bad(fmt.Sprintf("record length %d", n))
		}
		end := off + 8 + n
		if end > len(data) {
			return torn("short record")
		}
		payload := data[off+8 : end]
		if crc32.Checksum(payload, castagnoli) != sum {
			if end == len(data) || allZero(data[off:]) {
				return torn("checksum of the final record")
			}
			return bad("checksum mismatch")
		}
		parts, err := decodeTxRecord(payload)
		if err != nil {
			return bad(err.Error())
		}
		out = append(out, parts)
		off = end
	}
	return out, int64(len(data)), nil
}

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

func encodeTxRecord(parts []TxPart) []byte {
	p := []byte{txLogVersion}
	p = binary.AppendUvarint(p, uint64(len(parts)))
	for _, part := range parts {
		p = append(p, part.TxID[:]...)
		p = binary.AppendUvarint(p, uint64(len(part.Prefix)))
		p = append(p, part.Prefix...)
	}
	rec := make([]byte, 8, 8+len(p))
	binary.LittleEndian.PutUint32(rec, uint32(len(p)))
	binary.LittleEndian.PutUint32(rec[4:], crc32.Checksum(p, castagnoli))
	return append(rec, p...)
}

func decodeTxRecord(p []byte) ([]TxPart, error) {
	if len(p) < 1 || p[0] != txLogVersion {
		return nil, errors.New("unknown record version")
	}
	p = p[1:]
	n, k := binary.Uvarint(p)
	if k <= 0 || n == 0 || n > uint64(len(p)) {
		return nil, errors.New("bad part count")
	}
	p = p[k:]
	parts := make([]TxPart, 0, n)
	for range n {
		if len(p) < 16 {
			return nil, errors.New("short tx id")
		}
		var id uuid.UUID
		copy(id[:], p[:16])
		p = p[16:]
		m, k := binary.Uvarint(p)
		if k <= 0 || m > uint64(len(p)-k) {
			return nil, errors.New("bad prefix length")
		}
		parts = append(parts, TxPart{TxID: id, Prefix: string(p[k : k+int(m)])})
		p = p[k+int(m):]
	}
	if len(p) != 0 {
		return nil, errors.New("trailing bytes")
	}
	return parts, nil
}

// Committed reports whether a log file holds the commit record of the
// multi-table transaction part id. A miss rereads the files of other
// processes (one may have committed it since this log was opened).
func (l *TxLog) Committed(id uuid.UUID) bool {
	if l.lookup(id) {
		return true
	}
	l.scanMu.Lock()
	defer l.scanMu.Unlock()
	if l.lookup(id) {
		return true
	}
	names, err := l.fs.ReadDir(l.dir)
	if err != nil {
		l.log.Warn("transaction log: rescan failed", "err", err)
		return false
	}
	for _, name := range names {
		if _, ok := txLogTS(name); !ok {
			continue
		}
		l.mu.Lock()
		_, owned := l.mu.files[name]
		l.mu.Unlock()
		if owned {
			continue
		}
		recs, _, err := l.readFile(name)
		if err != nil {
			l.log.Warn("transaction log: rescan failed", "file", name, "err", err)
			continue
		}
		l.mu.Lock()
		for _, parts := range recs {
			for _, p := range parts {
				l.mu.foreign[p.TxID] = struct{}{}
			}
		}
		l.mu.Unlock()
	}
	return l.lookup(id)
}

func (l *TxLog) lookup(id uuid.UUID) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, ok := l.mu.ids[id]; ok {
		return true
	}
	_, ok := l.mu.foreign[id]
	return ok
}

// Commit makes the transaction of parts committed: it returns nil once the
// record is durable (sync) or written (!sync). An error is ambiguous (the
// record may be on disk) and fails every later commit: the caller must
// not acknowledge, and a restart decides from what the disk holds.
func (l *TxLog) Commit(parts []TxPart, sync bool) error {
	for _, p := range parts {
		if !manifest.IsMultiTx(p.TxID) {
			return fmt.Errorf("BUG: txn: transaction log: %s is not a multi-table tx id", p.TxID)
		}
	}
	rec := encodeTxRecord(parts)
	l.wmu.Lock()
	lf, err := l.activeFile()
	if err != nil {
		l.wmu.Unlock()
		return err
	}
	if _, err := lf.f.Write(rec); err != nil {
		l.wmu.Unlock()
		return l.fail(fmt.Errorf("txn: transaction log: write: %w", err))
	}
	lf.smu.Lock()
	lf.size += int64(len(rec))
	target := lf.size
	lf.smu.Unlock()
	// The entries count in the file from the write on, so that the file
	// cannot be deleted while the record is on its way to the disk.
	l.mu.Lock()
	l.addLocked(lf, parts)
	l.mu.Unlock()
	l.wmu.Unlock()
	if sync {
		if err := lf.waitSynced(target, l.sync, &l.syncs); err != nil {
			return l.fail(err)
		}
	}
	return nil
}

func (l *TxLog) fail(err error) error {
	l.mu.Lock()
	if l.mu.failed == nil {
		l.mu.failed = err
	}
	l.mu.Unlock()
	l.log.Error("transaction log failed; multi-table commits are refused until a restart", "err", err)
	return err
}

// activeFile returns the file to append to, creating one as needed.
// REQUIRES: wmu held.
func (l *TxLog) activeFile() (*txLogFile, error) {
	l.mu.Lock()
	if l.mu.closed {
		l.mu.Unlock()
		return nil, ErrClosed
	}
	if l.mu.failed != nil {
		err := l.mu.failed
		l.mu.Unlock()
		return nil, fmt.Errorf("txn: transaction log failed earlier: %w", err)
	}
	if lf := l.mu.active; lf != nil {
		if lf.size < txLogFileBytes {
			l.mu.Unlock()
			return lf, nil
		}
		l.sealLocked() // full: the next record starts a new file
	}
	ts := max(time.Now().UnixNano(), l.mu.lastTS+1)
	l.mu.lastTS = ts
	l.mu.Unlock()
	name := fmt.Sprintf("txlog_%020d_%d.log", ts, os.Getpid())
	path := filepath.Join(l.dir, name)
	// The lock first: another process that sees the file finds it held.
	lk, err := l.fs.Lock(path + ".lock")
	if err != nil {
		return nil, fmt.Errorf("txn: transaction log: %w", err)
	}
	f, err := l.fs.Create(path)
	if err != nil {
		_ = l.fs.Remove(path + ".lock")
		lk.Close()
		return nil, fmt.Errorf("txn: transaction log: %w", err)
	}
	if l.sync {
		if err := l.fs.SyncDir(l.dir); err != nil {
			f.Close()
			_ = l.fs.Remove(path)
			_ = l.fs.Remove(path + ".lock")
			lk.Close()
			return nil, fmt.Errorf("txn: transaction log: sync directory: %w", err)
		}
	}
	lf := &txLogFile{name: name, lock: lk, f: f}
	lf.cond = sync.NewCond(&lf.smu)
	l.mu.Lock()
	l.mu.files[name] = lf
	l.mu.active = lf
	l.mu.Unlock()
	return lf, nil
}

// sealLocked retires the active file (the next commit starts a new one):
// once every record written to it is synced (commits waiting for their
// fdatasync finish), it is closed.
// REQUIRES: mu and wmu held (no append in flight).
func (l *TxLog) sealLocked() {
	lf := l.mu.active
	if lf == nil {
		return
	}
	l.mu.active = nil
	if lf.f != nil {
		lf.smu.Lock()
		size := lf.size
		lf.smu.Unlock()
		_ = lf.waitSynced(size, l.sync, &l.syncs)
		lf.smu.Lock()
		lf.f.Close()
		lf.f = nil
		lf.smu.Unlock()
	}
	if lf.pending == 0 {
		l.removeLocked(lf)
	}
}

// removeLocked deletes an owned file whose records are all resolved (not
// the active one). REQUIRES: mu held.
func (l *TxLog) removeLocked(lf *txLogFile) {
	delete(l.mu.files, lf.name)
	path := filepath.Join(l.dir, lf.name)
	if err := l.fs.Remove(path); err != nil {
		l.log.Warn("transaction log: could not remove a resolved file", "file", lf.name, "err", err)
	} else {
		_ = l.fs.Remove(path + ".lock")
	}
	lf.lock.Close()
}

// HasTable reports whether the log holds unresolved records of prefix.
func (l *TxLog) HasTable(prefix string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.mu.byTable[prefix]) > 0
}

// ResolveTable releases the records of the table at prefix whose
// transactions committed reports as in the table's manifest (at open, at
// each commit, at truncate; nil: all of them, for a dropped table).
func (l *TxLog) ResolveTable(prefix string, committed func(uuid.UUID) bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for id := range l.mu.byTable[prefix] {
		if committed == nil || committed(id) {
			l.resolveLocked(prefix, id)
		}
	}
}

func (l *TxLog) resolveLocked(prefix string, id uuid.UUID) {
	name, ok := l.mu.ids[id]
	if !ok {
		return
	}
	delete(l.mu.ids, id)
	if m := l.mu.byTable[prefix]; m != nil {
		delete(m, id)
		if len(m) == 0 {
			delete(l.mu.byTable, prefix)
		}
	}
	lf := l.mu.files[name]
	if lf == nil {
		return
	}
	lf.pending--
	if lf.pending == 0 && lf != l.mu.active {
		l.removeLocked(lf)
	}
}

// Pending returns the number of unresolved entries and of files (tests).
func (l *TxLog) Pending() (entries, files int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.mu.ids), len(l.mu.files)
}

// Close closes the active file.
func (l *TxLog) Close() error {
	l.wmu.Lock()
	defer l.wmu.Unlock()
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.mu.closed {
		return nil
	}
	l.mu.closed = true
	l.sealLocked()
	for _, lf := range l.mu.files {
		lf.lock.Close()
	}
	return nil
}
