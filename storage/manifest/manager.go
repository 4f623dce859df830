package manifest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/bsdb/bsdb-pg/storage/objstore"
)

var (
	// ErrNoTable: the table has no manifest (never created, or dropped).
	ErrNoTable = errors.New("manifest: table has no manifest")
	// ErrConflict: Create lost, another writer created that version first.
	// It wraps objstore.ErrExists.
	ErrConflict = errors.New("manifest: version already exists")
	// ErrCorrupt: a manifest object could not be decoded or is inconsistent.
	ErrCorrupt = errors.New("manifest: corrupt")
)

// Manager reads and creates the manifests of one table. It caches the latest
// manifest it has seen; the cache only moves forward. Safe for concurrent use.
type Manager struct {
	store  objstore.Store
	prefix string // table prefix + "/_manifest/"
	mu     struct {
		sync.Mutex
		latest *Manifest // highest version seen; nil when none yet
	}
}

// NewManager manages the manifests under tablePrefix/_manifest/.
func NewManager(store objstore.Store, tablePrefix string) *Manager {
	return &Manager{store: store, prefix: strings.TrimSuffix(tablePrefix, "/") + "/_manifest/"}
}

// Key is the object key of version n.
func (g *Manager) Key(n int64) string { return g.prefix + "v" + strconv.FormatInt(n, 10) + ".json" }

// parseVersion extracts N from ".../_manifest/v{N}.json"; ok=false for any
// other name (including zero-padded or signed numbers).
func parseVersion(name string) (int64, bool) {
	s, ok := strings.CutPrefix(name, "v")
	if !ok {
		return 0, false
	}
	s, ok = strings.CutSuffix(s, ".json")
	if !ok || s == "" || (len(s) > 1 && s[0] == '0') || s[0] == '+' || s[0] == '-' {
		return 0, false
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 1 {
		return 0, false
	}
	return n, true
}

// Versions lists the versions present, ascending (numerically).
func (g *Manager) Versions(ctx context.Context) ([]int64, error) {
	infos, err := g.store.List(ctx, g.prefix)
	if err != nil {
		return nil, fmt.Errorf("manifest: list %s: %w", g.prefix, err)
	}
	var out []int64
	for _, i := range infos {
		if n, ok := parseVersion(strings.TrimPrefix(i.Key, g.prefix)); ok {
			out = append(out, n)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out, nil
}

// LoadLatest returns the newest manifest. With direct=false it may answer
// from the cache (the newest version this Manager has read or created);
// with direct=true it asks the store: from a cached version it reads the
// next versions until one is missing (versions are created one after the
// other, each with create-if-not-exists, so there is no gap above one
// that exists), else it lists the store. A refresh so costs one read of
// a missing object, not a listing of every version. ErrNoTable when there
// is none. The result is shared: treat it as read-only (use Next or Clone
// to modify).
func (g *Manager) LoadLatest(ctx context.Context, direct bool) (*Manifest, error) {
	g.mu.Lock()
	cached := g.mu.latest
	g.mu.Unlock()
	if cached != nil {
		if !direct {
			return cached, nil
		}
		return g.probeFrom(ctx, cached)
	}
	vs, err := g.Versions(ctx)
	if err != nil {
		return nil, err
	}
	if len(vs) == 0 {
		return nil, fmt.Errorf("%w: %s", ErrNoTable, g.prefix)
	}
	m, err := g.Load(ctx, vs[len(vs)-1])
	if err != nil {
		return nil, err
	}
	// The cache may already hold something newer (a concurrent Create by this
	// process); never move it backwards, and never return older than it.
	return g.observe(m), nil
}

// probeFrom returns the newest manifest, reading versions after m (which
// exists) until one is missing.
func (g *Manager) probeFrom(ctx context.Context, m *Manifest) (*Manifest, error) {
	for {
		next, err := g.Load(ctx, m.Version+1)
		if errors.Is(err, objstore.ErrNotFound) {
			return g.observe(m), nil
		}
		if err != nil {
			return nil, err
		}
		m = next
	}
}

// Load reads version n. ErrNoTable wrapping objstore.ErrNotFound when absent.
func (g *Manager) Load(ctx context.Context, n int64) (*Manifest, error) {
	key := g.Key(n)
	data, _, err := g.store.Get(ctx, key)
	if err != nil {
		if errors.Is(err, objstore.ErrNotFound) {
			return nil, fmt.Errorf("%w: version %d: %w", ErrNoTable, n, err)
		}
		return nil, fmt.Errorf("manifest: load %s: %w", key, err)
	}
	m, err := Unmarshal(data)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrCorrupt, key, err)
	}
	if m.Version != n {
		return nil, fmt.Errorf("%w: %s holds version %d", ErrCorrupt, key, m.Version)
	}
	return m, nil
}

// Create writes m as v{m.Version}.json with create-if-not-exists. It returns
// ErrConflict (wrapping objstore.ErrExists) when another writer created that
// version first.
//
// An ambiguous outcome (the store returned an error, or ErrExists after an
// internal retry of our own successful write) is resolved by reading the
// object back: if it holds exactly our bytes, the create succeeded. The
// encoding carries the table UUID, the timestamp and the WAL tx ids, so a
// byte-identical manifest from another writer is, in practice, impossible.
// On success the cache advances to m (never backwards).
func (g *Manager) Create(ctx context.Context, m *Manifest) error {
	data, err := Marshal(m)
	if err != nil {
		return err
	}
	key := g.Key(m.Version)
	_, perr := g.store.PutIfAbsent(ctx, key, data)
	if perr != nil {
		got, _, gerr := g.store.Get(ctx, key)
		if gerr == nil && bytes.Equal(got, data) {
			perr = nil // ours: the write happened
		} else if errors.Is(perr, objstore.ErrExists) {
			return fmt.Errorf("manifest: create %s: %w: %w", key, ErrConflict, perr)
		} else {
			return fmt.Errorf("manifest: create %s: %w", key, perr)
		}
	}
	g.observe(m.Clone())
	return nil
}

// observe advances the cache to m if m is newer and returns the cache.
func (g *Manager) observe(m *Manifest) *Manifest {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.mu.latest == nil || m.Version > g.mu.latest.Version {
		g.mu.latest = m
	}
	return g.mu.latest
}

// Cached returns the cached latest manifest, or nil.
func (g *Manager) Cached() *Manifest {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.mu.latest
}
