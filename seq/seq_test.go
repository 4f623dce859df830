package seq

import (
	"context"
	"sort"
	"sync"
	"testing"

	"github.com/bsdb/bsdb-pg/pgerr"
	"github.com/bsdb/bsdb-pg/storage/catalog"
	"github.com/bsdb/bsdb-pg/storage/objstore"
)

func newCat(t *testing.T, store objstore.Store) *catalog.Catalog {
	t.Helper()
	c := catalog.New(store)
	if err := c.CreateDatabase(context.Background(), "db"); err != nil {
		t.Fatal(err)
	}
	return c
}

func create(t *testing.T, m *Manager, name string, o *Options) *Seq {
	t.Helper()
	rec := &catalog.Sequence{ID: catalog.TableID{Database: "db", Schema: "public", Name: name}}
	if err := ApplyOptions(rec, o, true, false); err != nil {
		t.Fatal(err)
	}
	s, err := m.Create(context.Background(), rec)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func i64(v int64) *int64 { return &v }

func code(err error) string {
	if pe, ok := pgerr.As(err); ok {
		return pe.Code + " " + pe.Message
	}
	if err == nil {
		return ""
	}
	return err.Error()
}

func TestNextSetValCycle(t *testing.T) {
	ctx := context.Background()
	m := NewManager(newCat(t, objstore.NewMem()))
	s := create(t, m, "s", &Options{})
	for want := int64(1); want <= 3; want++ {
		v, err := s.Next(ctx, 1)
		if err != nil || v[0] != want {
			t.Fatalf("nextval = %v, %v; want %d", v, err, want)
		}
	}
	if st := s.State(); st.LastValue != 3 || st.LogCnt != 30 || !st.IsCalled {
		t.Fatalf("state %+v, want last 3 log_cnt 30 (PostgreSQL's)", st)
	}
	if err := s.SetVal(ctx, 10, false); err != nil {
		t.Fatal(err)
	}
	if v, _ := s.Next(ctx, 1); v[0] != 10 {
		t.Fatalf("after setval(10, false): %v", v)
	}
	if err := s.SetVal(ctx, 0, true); code(err) != `22003 setval: value 0 is out of bounds for sequence "s" (1..9223372036854775807)` {
		t.Fatalf("setval 0: %v", code(err))
	}
	c := create(t, m, "c", &Options{Min: i64(1), Max: i64(3), Cycle: new(bool)})
	var got []int64
	for i := 0; i < 3; i++ {
		v, err := c.Next(ctx, 1)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, v[0])
	}
	if _, err := c.Next(ctx, 1); code(err) != `2200H nextval: reached maximum value of sequence "c" (3)` {
		t.Fatalf("past max: %v (got %v)", code(err), got)
	}
	yes := true
	cy := create(t, m, "cy", &Options{Min: i64(1), Max: i64(3), Cycle: &yes})
	v, err := cy.Next(ctx, 7)
	if err != nil || len(v) != 7 || v[3] != 1 || v[6] != 1 {
		t.Fatalf("cycle: %v %v", v, err)
	}
	d := create(t, m, "d", &Options{Increment: i64(-2)})
	if v, _ := d.Next(ctx, 2); v[0] != -1 || v[1] != -3 {
		t.Fatalf("descending: %v", v)
	}
}

func TestOptionErrors(t *testing.T) {
	for _, c := range []struct {
		o    Options
		want string
	}{
		{Options{Increment: i64(0)}, "INCREMENT must not be zero"},
		{Options{Min: i64(5), Max: i64(5)}, "MINVALUE (5) must be less than MAXVALUE (5)"},
		{Options{Start: i64(0)}, "START value (0) cannot be less than MINVALUE (1)"},
		{Options{As: func() *uint32 { v := uint32(OIDInt2); return &v }(), Max: i64(100000)}, "MAXVALUE (100000) is out of range for sequence data type smallint"},
		{Options{Cache: i64(0)}, "CACHE (0) must be greater than zero"},
	} {
		rec := &catalog.Sequence{}
		err := ApplyOptions(rec, &c.o, true, false)
		if code(err) != "22023 "+c.want {
			t.Errorf("%+v: %v, want %s", c.o, code(err), c.want)
		}
	}
}

// TestConcurrentDistinct: many goroutines (sessions) calling nextval, single
// and in batches, get distinct values, and together exactly the values
// 1..N (one process, no crash: no gaps).
func TestConcurrentDistinct(t *testing.T) {
	ctx := context.Background()
	m := NewManager(newCat(t, objstore.NewMem()))
	s := create(t, m, "s", &Options{})
	const workers, calls = 8, 200
	var mu sync.Mutex
	var all []int64
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			var mine []int64
			for i := 0; i < calls; i++ {
				n := 1
				if w%2 == 1 {
					n = 1 + i%50
				}
				v, err := s.Next(ctx, n)
				if err != nil {
					t.Error(err)
					return
				}
				mine = append(mine, v...)
			}
			mu.Lock()
			all = append(all, mine...)
			mu.Unlock()
		}(w)
	}
	wg.Wait()
	sort.Slice(all, func(i, j int) bool { return all[i] < all[j] })
	for i, v := range all {
		if v != int64(i+1) {
			t.Fatalf("value %d is %d: duplicates or gaps", i, v)
		}
	}
}

// TestRestartNeverReissues: a process that stops at any point (its
// in-memory state lost, as in a crash) and a new one on the same store
// never hands out a value twice. Negative control: without the log-ahead
// write in nextLocked this fails (the new process restarts at 1).
func TestRestartNeverReissues(t *testing.T) {
	ctx := context.Background()
	store := objstore.NewMem()
	cat := newCat(t, store)
	s := create(t, NewManager(cat), "s", &Options{})
	seen := map[int64]bool{}
	for round := 0; round < 20; round++ {
		for i := 0; i < round*7%40+1; i++ {
			v, err := s.Next(ctx, 1+round%3)
			if err != nil {
				t.Fatal(err)
			}
			for _, x := range v {
				if seen[x] {
					t.Fatalf("round %d: %d handed out twice", round, x)
				}
				seen[x] = true
			}
		}
		// "Crash": a fresh manager reads only the durable record.
		s2, err := NewManager(cat).Lookup(ctx, s.Info().ID)
		if err != nil || s2 == nil {
			t.Fatal(err)
		}
		s = s2
	}
}

// TestTwoProcesses: two managers on one store (two server processes)
// hand out distinct values.
func TestTwoProcesses(t *testing.T) {
	ctx := context.Background()
	cat := newCat(t, objstore.NewMem())
	a := create(t, NewManager(cat), "s", &Options{})
	b, err := NewManager(cat).Lookup(ctx, a.Info().ID)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int64]bool{}
	var wg sync.WaitGroup
	var mu sync.Mutex
	for _, s := range []*Seq{a, b} {
		wg.Add(1)
		go func(s *Seq) {
			defer wg.Done()
			for i := 0; i < 300; i++ {
				v, err := s.Next(ctx, 1)
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				if seen[v[0]] {
					t.Errorf("%d twice", v[0])
				}
				seen[v[0]] = true
				mu.Unlock()
			}
		}(s)
	}
	wg.Wait()
}
