package crashtest

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// The UPDATE/DELETE model (issue 21).
//
// Table ct (id bigint, w integer, payload text) again, but rows change:
// every operation has a value v unique in the test. An INSERT writes
// (id, v, 'v'); an UPDATE sets w = v and appends ' v' to payload; so a
// row's payload is the history of every version it went through (insert
// value first), and w must equal the history's last value. Ids are never
// reused: a deleted id never comes back. Every operation is recorded with
// its logical start (taken before it is sent) and end (taken after its
// acknowledgement) on one clock; a read takes the clock before it is sent
// (S) and after it returned (E).
//
// A read (checkRead) is consistent with a linear order of the operations:
//   - an id is present at most once (never the old and the new version);
//   - its insert was sent before the read ended and not refused; every
//     value of its history comes from an UPDATE of that id sent before the
//     read ended and not refused (a 40001 is "not applied", and its value
//     must never be seen), each once, and w is the last one;
//   - every UPDATE of the id acknowledged before S is in the history (no
//     older version), every DELETE of it acknowledged before S removed it;
//   - an acknowledged insert is present unless a DELETE of it was sent;
//   - the history's order agrees with real time (an update acknowledged
//     before another was sent comes first);
//   - all histories ever read of an id are prefixes of one another (one
//     order of versions, across sessions and across restarts), a session
//     never sees an id's history shrink, and an id seen deleted never
//     comes back;
//   - an operation is atomic: if any of its effects (an inserted id, an
//     updated value) is seen, all of them are (and its deleted ids are
//     gone).
//
// After a crash, operations whose answer was lost are resolved by the next
// read (applied or not); from then on that outcome must hold.

// mrow is one row version read: w and the payload's history.
type mrow struct {
	w       int32
	payload string
}

// goneAt: a read that ended at end found the id deleted; a read sent
// after that must not find it.
type goneAt struct {
	end  int64
	what string
}

type opStatus int

const (
	opPending  opStatus = iota // sent, no answer (yet, or ever: a crash)
	opAcked                    // acknowledged (or resolved as applied after a crash)
	opRejected                 // refused by the server, or resolved as not applied
)

// mop is one operation: an autocommit statement or an explicit transaction.
type mop struct {
	kind       string // insert, update, delete, txn
	v          int32
	ins        []int64
	upd        []int64
	del        []int64
	start, end int64
	status     opStatus
	code       string   // SQLSTATE when refused
	tags       []string // a txn's statements' command tags (diagnostics)
}

// detail is o's statements' command tags, for a violation's message.
func (o *mop) detail() string {
	if len(o.tags) == 0 {
		return ""
	}
	return " [" + strings.Join(o.tags, "; ") + "]"
}

func (o *mop) effects() int { return len(o.ins) + len(o.upd) + len(o.del) }

// model is the client-side ledger of the UPDATE/DELETE tests.
type model struct {
	clock atomic.Int64

	mu      sync.Mutex
	nextID  int64
	nextV   int32
	ops     []*mop
	insOf   map[int64]*mop   // id -> its insert
	valOf   map[int32]*mop   // value -> its operation
	touch   map[int64][]*mop // id -> operations updating or deleting it
	cand    []int64          // ids acknowledged inserted, no delete sent
	candIdx map[int64]int
	longest map[int64][]int32 // longest history ever read per id
	gone    map[int64]goneAt  // ids read as deleted: by which read

	// counters
	count      map[string]int // acknowledged operations by kind
	refused    map[string]int // refused by SQLSTATE
	reads      int
	viol       int
	unexpected int // server errors other than 40001 (and 57014, a cancel)
	ex         []string
}

func newModel() *model {
	return &model{nextID: 1, nextV: 1, insOf: map[int64]*mop{}, valOf: map[int32]*mop{},
		touch: map[int64][]*mop{}, candIdx: map[int64]int{}, longest: map[int64][]int32{},
		gone: map[int64]goneAt{}, count: map[string]int{}, refused: map[string]int{}}
}

func (m *model) addCand(id int64) {
	if _, ok := m.candIdx[id]; ok {
		return
	}
	m.candIdx[id] = len(m.cand)
	m.cand = append(m.cand, id)
}

func (m *model) dropCand(id int64) {
	i, ok := m.candIdx[id]
	if !ok {
		return
	}
	last := m.cand[len(m.cand)-1]
	m.cand[i] = last
	m.candIdx[last] = i
	m.cand = m.cand[:len(m.cand)-1]
	delete(m.candIdx, id)
}

// pick returns up to n distinct candidate ids, half the time from a small
// hot set (so that concurrent clients conflict).
func (m *model) pick(rng *rand.Rand, n int) []int64 {
	pool := m.cand
	if rng.IntN(2) == 0 && len(pool) > 12 {
		pool = pool[:12]
	}
	var out []int64
	seen := map[int64]bool{}
	for tries := 0; len(out) < n && tries < 4*n && len(pool) > 0; tries++ {
		id := pool[rng.IntN(len(pool))]
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}

// newOp registers an operation before it is sent: fresh ids for nIns
// inserted rows, the ids it updates and deletes (deleted ids stop being
// candidates at once). It returns nil when there is nothing to change.
func (m *model) newOp(kind string, nIns int, upd, del []int64) *mop {
	m.mu.Lock()
	defer m.mu.Unlock()
	o := &mop{kind: kind, v: m.nextV, upd: upd, del: del}
	m.nextV++
	for i := 0; i < nIns; i++ {
		o.ins = append(o.ins, m.nextID)
		m.insOf[m.nextID] = o
		m.nextID++
	}
	for _, id := range upd {
		m.touch[id] = append(m.touch[id], o)
	}
	for _, id := range del {
		m.touch[id] = append(m.touch[id], o)
		m.dropCand(id)
	}
	m.valOf[o.v] = o
	m.ops = append(m.ops, o)
	o.start = m.clock.Add(1)
	return o
}

// done records an operation's answer: nil (acknowledged), a server error
// (refused: not applied) or another error (the connection died: unknown).
// It reports whether the client can go on.
func (m *model) done(o *mop, err error) bool {
	end := m.clock.Add(1)
	m.mu.Lock()
	defer m.mu.Unlock()
	var pe *pgconn.PgError
	switch {
	case err == nil:
		o.status, o.end = opAcked, end
		m.count[o.kind]++
		for _, id := range o.ins {
			m.addCand(id)
		}
		return true
	case errors.As(err, &pe):
		o.status, o.code = opRejected, pe.Code
		m.refused[pe.Code]++
		if pe.Code != "40001" && pe.Code != "57014" {
			m.unexpected++
			if len(m.ex) < 20 {
				m.ex = append(m.ex, fmt.Sprintf("unexpected error from %s %d: %v", o.kind, o.v, err))
			}
		}
		return true
	default:
		return false
	}
}

// client runs operations (with ctx) until run ends or the connection
// fails; an operation started runs to its answer unless ctx ends. insW is
// the weight of autocommit INSERTs (0: every operation deletes or
// updates, except when there is nothing left to change).
func (m *model) client(ctx, run context.Context, c *pgx.Conn, rng *rand.Rand, insW int) {
	for ctx.Err() == nil && run.Err() == nil {
		m.mu.Lock()
		ncand := len(m.cand)
		m.mu.Unlock()
		r := rng.IntN(100)
		if ncand < 8 || r < insW {
			if !m.doInsert(ctx, c, rng) {
				return
			}
			continue
		}
		r = rng.IntN(100)
		var ok bool
		switch {
		case r < 40:
			ok = m.doUpdate(ctx, c, rng, 1)
		case r < 55:
			ok = m.doUpdate(ctx, c, rng, 2+rng.IntN(3))
		case r < 75:
			ok = m.doDelete(ctx, c, rng)
		default:
			ok = m.doTxn(ctx, c, rng)
		}
		if !ok {
			return
		}
	}
}

func hist(v int32) string { return strconv.Itoa(int(v)) }

func (m *model) doInsert(ctx context.Context, c *pgx.Conn, rng *rand.Rand) bool {
	n := 1 + rng.IntN(5)
	o := m.newOp("insert", n, nil, nil)
	var err error
	switch rng.IntN(3) {
	case 0:
		var sb strings.Builder
		sb.WriteString("INSERT INTO ct VALUES ")
		for i, id := range o.ins {
			if i > 0 {
				sb.WriteString(", ")
			}
			fmt.Fprintf(&sb, "(%d, %d, '%d')", id, o.v, o.v)
		}
		_, err = c.Exec(ctx, sb.String())
	case 1:
		rows := make([][]any, len(o.ins))
		for i, id := range o.ins {
			rows[i] = []any{id, o.v, hist(o.v)}
		}
		var k int64
		k, err = c.CopyFrom(ctx, pgx.Identifier{tableName}, []string{"id", "w", "payload"}, pgx.CopyFromRows(rows))
		if err == nil && k != int64(len(rows)) {
			err = fmt.Errorf("copy: %d rows acknowledged, %d sent", k, len(rows))
		}
	default:
		_, err = c.Exec(ctx, "INSERT INTO ct SELECT x, $2, $3 FROM unnest($1::bigint[]) AS x", o.ins, o.v, hist(o.v))
	}
	return m.done(o, err)
}

func inList(ids []int64) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = strconv.FormatInt(id, 10)
	}
	return strings.Join(s, ", ")
}

func (m *model) doUpdate(ctx context.Context, c *pgx.Conn, rng *rand.Rand, n int) bool {
	m.mu.Lock()
	ids := m.pick(rng, n)
	m.mu.Unlock()
	o := m.newOp("update", 0, ids, nil)
	var tag pgconn.CommandTag
	var err error
	if len(ids) == 1 {
		tag, err = c.Exec(ctx, "UPDATE ct SET w = $2, payload = payload || $3 WHERE id = $1", ids[0], o.v, " "+hist(o.v))
	} else {
		tag, err = c.Exec(ctx, fmt.Sprintf("UPDATE ct SET w = %d, payload = payload || ' %d' WHERE id IN (%s)", o.v, o.v, inList(ids)))
	}
	if err == nil && (!tag.Update() || tag.RowsAffected() > int64(len(ids))) {
		err = fmt.Errorf("update of %d ids answered %q", len(ids), tag)
	}
	return m.done(o, err)
}

func (m *model) doDelete(ctx context.Context, c *pgx.Conn, rng *rand.Rand) bool {
	m.mu.Lock()
	ids := m.pick(rng, 1+rng.IntN(3))
	m.mu.Unlock()
	o := m.newOp("delete", 0, nil, ids)
	var tag pgconn.CommandTag
	var err error
	if len(ids) == 1 {
		tag, err = c.Exec(ctx, "DELETE FROM ct WHERE id = $1", ids[0])
	} else {
		tag, err = c.Exec(ctx, fmt.Sprintf("DELETE FROM ct WHERE id IN (%s)", inList(ids)))
	}
	if err == nil && (!tag.Delete() || tag.RowsAffected() > int64(len(ids))) {
		err = fmt.Errorf("delete of %d ids answered %q", len(ids), tag)
	}
	return m.done(o, err)
}

// doTxn: BEGIN; UPDATE a; DELETE b; INSERT c, d; COMMIT.
func (m *model) doTxn(ctx context.Context, c *pgx.Conn, rng *rand.Rand) bool {
	m.mu.Lock()
	ids := m.pick(rng, 2)
	m.mu.Unlock()
	if len(ids) < 2 {
		return m.doInsert(ctx, c, rng)
	}
	o := m.newOp("txn", 2, ids[:1], ids[1:])
	stmts := []string{
		"BEGIN",
		fmt.Sprintf("UPDATE ct SET w = %d, payload = payload || ' %d' WHERE id = %d", o.v, o.v, ids[0]),
		fmt.Sprintf("DELETE FROM ct WHERE id = %d", ids[1]),
		fmt.Sprintf("INSERT INTO ct VALUES (%d, %d, '%d'), (%d, %d, '%d')", o.ins[0], o.v, o.v, o.ins[1], o.v, o.v),
	}
	if rng.IntN(2) == 0 {
		stmts[2], stmts[3] = stmts[3], stmts[2]
	}
	for _, q := range stmts {
		tg, err := c.Exec(ctx, q)
		m.mu.Lock()
		o.tags = append(o.tags, tg.String())
		m.mu.Unlock()
		if err != nil {
			var pe *pgconn.PgError
			if errors.As(err, &pe) {
				if _, rerr := c.Exec(ctx, "ROLLBACK"); rerr != nil {
					m.done(o, rerr)
					return false
				}
			}
			return m.done(o, err)
		}
	}
	if rng.IntN(6) == 0 {
		// Rolled back: never applied, and its claims are released.
		_, err := c.Exec(ctx, "ROLLBACK")
		if err != nil {
			return m.done(o, err)
		}
		m.clock.Add(1)
		m.mu.Lock()
		o.status, o.code = opRejected, "ROLLBACK"
		m.count["rollback"]++
		m.mu.Unlock()
		return true
	}
	tag, err := c.Exec(ctx, "COMMIT")
	if err == nil && tag.String() != "COMMIT" {
		err = &pgconn.PgError{Code: "COMMIT", Message: "COMMIT answered " + tag.String()}
	}
	return m.done(o, err)
}

// sweep updates every row the model holds live in one statement, alone:
// each must change (no claim left behind by a rolled-back or failed
// transaction, no row the model thinks live missing).
func (m *model) sweep(ctx context.Context, t *testing.T, c *pgx.Conn) {
	t.Helper()
	m.mu.Lock()
	ids := append([]int64(nil), m.cand...)
	m.mu.Unlock()
	if len(ids) == 0 {
		return
	}
	o := m.newOp("update", 0, ids, nil)
	tag, err := c.Exec(ctx, fmt.Sprintf("UPDATE ct SET w = %d, payload = payload || ' %d' WHERE id IN (%s)", o.v, o.v, inList(ids)))
	m.done(o, err)
	if err != nil {
		t.Fatalf("sweep: UPDATE of the %d live rows: %v", len(ids), err)
	}
	if tag.RowsAffected() != int64(len(ids)) {
		t.Errorf("sweep: UPDATE of the %d live rows answered %q", len(ids), tag)
	}
}

// readTable reads every row version of ct.
func readTable(ctx context.Context, c *pgx.Conn) (map[int64][]mrow, error) {
	return readTableWith(ctx, c, readQueries[0])
}

// readQueries all read every row of ct, through different plans (a scan,
// a filter and a sort, a subquery with a filter on the payload).
var readQueries = []string{
	"SELECT id, w, payload FROM ct",
	"SELECT id, w, payload FROM ct WHERE w >= 0 ORDER BY id",
	"SELECT * FROM (SELECT id, w, payload FROM ct) s WHERE payload <> ''",
}

func readTableWith(ctx context.Context, c *pgx.Conn, q string) (map[int64][]mrow, error) {
	rows, err := c.Query(ctx, q)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[int64][]mrow{}
	for rows.Next() {
		var id int64
		var w int32
		var p string
		if err := rows.Scan(&id, &w, &p); err != nil {
			return nil, err
		}
		out[id] = append(out[id], mrow{w, p})
	}
	return out, rows.Err()
}

func parseHist(p string) ([]int32, bool) {
	f := strings.Fields(p)
	h := make([]int32, len(f))
	for i, s := range f {
		v, err := strconv.Atoi(s)
		if err != nil {
			return nil, false
		}
		h[i] = int32(v)
	}
	return h, len(h) > 0
}

func isPrefix(a, b []int32) bool { return len(a) <= len(b) && slices.Equal(a, b[:len(a)]) }

// mview is one session's view: the history it last read of each id.
type mview map[int64][]int32

// checkRead checks one read (taken between clock values s and e) and
// returns its violations; sess may be nil.
func (m *model) checkRead(got map[int64][]mrow, s, e int64, sess mview) []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.reads++
	var bad []string
	badf := func(f string, a ...any) { bad = append(bad, fmt.Sprintf(f, a...)) }
	sent := func(o *mop) bool { return o.start < e && o.status != opRejected }
	ackedBefore := func(o *mop) bool { return o.status == opAcked && o.end < s }
	deleteSent := func(id int64) bool {
		for _, o := range m.touch[id] {
			if slices.Contains(o.del, id) && sent(o) {
				return true
			}
		}
		return false
	}
	hists := map[int64][]int32{}
	for id, vs := range got {
		if len(vs) > 1 {
			badf("id %d: %d row versions %v (an update seen twice)", id, len(vs), vs)
		}
		ins := m.insOf[id]
		if ins == nil || !sent(ins) {
			badf("id %d present but its insert was never sent or was refused", id)
			continue
		}
		h, ok := parseHist(vs[0].payload)
		if !ok || h[0] != ins.v {
			badf("id %d: history %q does not start with its insert's value %d", id, vs[0].payload, ins.v)
			continue
		}
		hists[id] = h
		if vs[0].w != h[len(h)-1] {
			badf("id %d: w=%d but history %v (a torn row version)", id, vs[0].w, h)
		}
		seenV := map[int32]bool{}
		for i, v := range h {
			if seenV[v] {
				badf("id %d: value %d applied twice: %v", id, v, h)
			}
			seenV[v] = true
			if i == 0 {
				continue
			}
			o := m.valOf[v]
			if o == nil || !slices.Contains(o.upd, id) || !sent(o) {
				st := "never sent"
				if o != nil && o.status == opRejected {
					st = "refused with " + o.code
				}
				badf("id %d: history %v holds value %d of an update %s", id, h, v, st)
			}
		}
		for _, o := range m.touch[id] {
			if !ackedBefore(o) {
				continue
			}
			if slices.Contains(o.del, id) {
				badf("id %d present, deleted by a %s acknowledged before the read", id, o.kind)
			}
			if slices.Contains(o.upd, id) && !seenV[o.v] {
				badf("id %d: history %v misses value %d of a %s acknowledged before the read (an old version)%s", id, h, o.v, o.kind, o.detail())
			}
		}
		// Real time: a value acknowledged before another was sent comes first.
		for i := 1; i < len(h); i++ {
			a, b := m.valOf[h[i-1]], m.valOf[h[i]]
			if a != nil && b != nil && b.status == opAcked && b.end < a.start {
				badf("id %d: history %v puts %d after %d, acknowledged before %d was sent", id, h, h[i-1], h[i], h[i-1])
			}
		}
		if l := m.longest[id]; !isPrefix(l, h) && !isPrefix(h, l) {
			badf("id %d: history %v diverges from %v read before", id, h, l)
		} else if len(h) > len(l) {
			m.longest[id] = h
		}
		if sess != nil && !isPrefix(sess[id], h) {
			badf("id %d: this session read history %v before, now %v", id, sess[id], h)
		}
		if g, ok := m.gone[id]; ok && g.end < s {
			badf("id %d: present (history %v, read %d-%d) after a read found it deleted (%s)", id, h, s, e, g.what)
		}
	}
	for id, ins := range m.insOf {
		if _, ok := got[id]; ok {
			continue
		}
		if ackedBefore(ins) || sess != nil && sess[id] != nil {
			if !deleteSent(id) {
				badf("id %d lost: acknowledged or seen, absent, and no delete of it was sent", id)
			} else if g, ok := m.gone[id]; !ok || e < g.end {
				m.gone[id] = goneAt{e, m.describeDeletes(id, s, e)}
			}
		}
	}
	// Atomicity of each operation.
	for _, o := range m.ops {
		if o.effects() < 2 || !sent(o) {
			continue
		}
		seen, missing := 0, 0
		for _, id := range o.ins {
			if h := hists[id]; h != nil && h[0] == o.v {
				seen++
			} else if !deleteSent(id) {
				missing++
			}
		}
		for _, id := range o.upd {
			if h, ok := hists[id]; ok {
				if slices.Contains(h, o.v) {
					seen++
				} else {
					missing++
				}
			}
		}
		for _, id := range o.del {
			if _, ok := got[id]; ok {
				missing++
			}
		}
		if seen > 0 && missing > 0 {
			badf("%s %d (ins %v upd %v del %v) half visible: %d effects seen, %d missing%s", o.kind, o.v, o.ins, o.upd, o.del, seen, missing, o.detail())
		}
	}
	if sess != nil {
		for id := range sess {
			if hists[id] == nil {
				delete(sess, id)
			}
		}
		for id, h := range hists {
			sess[id] = h
		}
	}
	if len(bad) > 0 {
		m.viol += len(bad)
		sort.Strings(bad)
		for _, b := range bad {
			if len(m.ex) < 20 {
				m.ex = append(m.ex, b)
			}
		}
	}
	return bad
}

// describeDeletes tells the deletes of id, for a violation's message
// (REQUIRES: m.mu).
func (m *model) describeDeletes(id int64, s, e int64) string {
	var d []string
	for _, o := range m.touch[id] {
		if slices.Contains(o.del, id) {
			d = append(d, fmt.Sprintf("%s %d [%d-%d] status %d %s", o.kind, o.v, o.start, o.end, o.status, o.code))
		}
	}
	return fmt.Sprintf("read %d-%d; deletes: %s", s, e, strings.Join(d, ", "))
}

// resolve settles every operation without an answer (in flight at a
// crash) by what the read after the restart holds: applied (from now on
// acknowledged) or not (from now on refused).
func (m *model) resolve(got map[int64][]mrow) (applied, notApplied int) {
	now := m.clock.Add(1)
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, o := range m.ops {
		if o.status != opPending {
			continue
		}
		seen, refuted := false, false
		for _, id := range o.ins {
			if vs := got[id]; len(vs) > 0 {
				seen = true
			} else {
				refuted = true
			}
		}
		for _, id := range o.upd {
			if vs := got[id]; len(vs) > 0 {
				if h, _ := parseHist(vs[0].payload); slices.Contains(h, o.v) {
					seen = true
				} else {
					refuted = true
				}
			}
		}
		for _, id := range o.del {
			if len(got[id]) > 0 {
				refuted = true
			}
		}
		if seen || !refuted {
			o.status, o.end = opAcked, now
			applied++
			for _, id := range o.ins {
				m.addCand(id)
			}
		} else {
			o.status, o.code = opRejected, "lost in the crash"
			notApplied++
		}
	}
	return applied, notApplied
}

func (m *model) summary() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return fmt.Sprintf("ops=%d inserts=%d updates=%d deletes=%d txns=%d rollbacks=%d refused=%v reads=%d violations=%d ids=%d live=%d",
		len(m.ops), m.count["insert"], m.count["update"], m.count["delete"], m.count["txn"], m.count["rollback"], m.refused, m.reads, m.viol, len(m.insOf), len(m.cand))
}

// report fails t on any violation or unexpected error seen so far.
func (m *model) report(t testing.TB) {
	t.Helper()
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.viol+m.unexpected > 0 {
		t.Errorf("%d violations, %d unexpected errors; first ones:\n  %s", m.viol, m.unexpected, strings.Join(m.ex, "\n  "))
	}
}

// reader reads and checks until ctx ends or a read fails.
func (m *model) reader(ctx context.Context, c *pgx.Conn) {
	sess := mview{}
	for k := 0; ctx.Err() == nil; k++ {
		s := m.clock.Add(1)
		got, err := readTableWith(ctx, c, readQueries[k%len(readQueries)])
		if err != nil {
			return
		}
		m.checkRead(got, s, m.clock.Add(1), sess)
	}
}
