package iceberg

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"github.com/apache/iceberg-go/table"

	"github.com/bsdb/bsdb-pg/internal/crash"
	"github.com/bsdb/bsdb-pg/storage/manifest"
	"github.com/bsdb/bsdb-pg/storage/objstore"
)

// SummaryManifestVersion is the snapshot-summary property holding the
// _manifest version a snapshot publishes.
const SummaryManifestVersion = "bsdb.manifest-version"

// MaxAttempts bounds the metadata CAS loop of Publish.
const MaxAttempts = 64

// ErrTooManyAttempts: Publish or the hint advance lost its CAS too often.
var ErrTooManyAttempts = errors.New("iceberg: too many lost compare-and-swap attempts")

// Publisher publishes Iceberg metadata for one table from its manifests.
// It keeps no state between calls: every call re-reads the head, so any
// number of Publishers (goroutines, processes, hosts) may run at once.
type Publisher struct {
	store  objstore.Store
	prefix string // table prefix, no trailing slash
	// keep is how many snapshots (and earlier metadata files) a metadata
	// file lists; see KeepSnapshots.
	keep int
}

// KeepSnapshots is how many snapshots each metadata file keeps (the
// newest; older ones are expired), and how many earlier metadata files
// its metadata log lists and the table directory keeps (older ones are
// deleted once a newer version is published). Without a bound, every
// metadata file repeated the table's whole history: a table committed
// every few seconds wrote megabytes per commit after a day. It is
// Iceberg's write.metadata.previous-versions-max (default 100) and the
// history other engines can time-travel to.
const KeepSnapshots = 100

// NewPublisher publishes under tablePrefix/metadata/.
func NewPublisher(store objstore.Store, tablePrefix string) *Publisher {
	return &Publisher{store: store, prefix: strings.TrimSuffix(tablePrefix, "/"), keep: KeepSnapshots}
}

// WithKeep returns a copy of p that keeps n snapshots and metadata files
// instead of KeepSnapshots (n >= 1; for tests).
func (p *Publisher) WithKeep(n int) *Publisher {
	q := *p
	q.keep = max(1, n)
	return &q
}

// MetadataKey is the key of metadata version k.
func (p *Publisher) MetadataKey(k int) string {
	return p.prefix + "/metadata/v" + strconv.Itoa(k) + ".metadata.json"
}

// HintKey is the key of version-hint.text.
func (p *Publisher) HintKey() string { return p.prefix + "/metadata/version-hint.text" }

// head is the newest metadata file.
type head struct {
	k    int            // 0: none
	meta table.Metadata // nil when k == 0
}

// manifestVersion is the _manifest version the head's current snapshot
// publishes (0 when none).
func (h head) manifestVersion() int64 {
	if h.meta == nil {
		return 0
	}
	return snapshotManifestVersion(h.meta.CurrentSnapshot())
}

func snapshotManifestVersion(s *table.Snapshot) int64 {
	if s == nil || s.Summary == nil {
		return 0
	}
	n, err := strconv.ParseInt(s.Summary.Properties[SummaryManifestVersion], 10, 64)
	if err != nil {
		return 0
	}
	return n
}

// Publish makes the Iceberg head reflect manifest m, idempotently. If the
// head already publishes m.Version or a newer manifest, it only makes sure
// the version hint points at the head (or later) and returns the head's key.
// Otherwise it writes metadata v{K+1} with create-if-not-exists (re-reading
// and rebuilding on a lost race, up to MaxAttempts times), then advances the
// version hint forwards. It returns the key of the metadata file that
// reflects m (or a newer manifest).
func (p *Publisher) Publish(ctx context.Context, m *manifest.Manifest) (string, error) {
	var lastErr error
	for attempt := 0; attempt < MaxAttempts; attempt++ {
		h, err := p.readHead(ctx)
		if err != nil {
			return "", err
		}
		if h.manifestVersion() >= m.Version {
			// AlreadyCurrent (or overtaken by a newer manifest): never
			// publish an older snapshot over a newer one.
			if err := p.advanceHint(ctx, h.k); err != nil {
				return "", err
			}
			return p.MetadataKey(h.k), nil
		}
		if lastErr != nil {
			// The previous attempt failed for a reason other than a lost race
			// and did not in fact land: report it.
			return "", lastErr
		}
		data, expired, err := p.build(ctx, h, m)
		if err != nil {
			return "", err
		}
		next := h.k + 1
		key := p.MetadataKey(next)
		_, err = p.store.PutIfAbsent(ctx, key, data)
		switch {
		case err == nil:
			crash.Point(crash.CommitAfterMetadata)
			if err := p.advanceHint(ctx, next); err != nil {
				return "", err
			}
			crash.Point(crash.CommitAfterHint)
			p.deleteExpiredMetadata(ctx, next)
			p.deleteSnapshotFiles(ctx, expired)
			return key, nil
		case errors.Is(err, objstore.ErrExists):
			backoff(attempt)
		default:
			// Ambiguous: the file may exist. Re-read once; if it landed, the
			// head now reflects m and the loop converges without a duplicate.
			lastErr = fmt.Errorf("iceberg: publish manifest v%d: write %s: %w", m.Version, key, err)
		}
	}
	return "", fmt.Errorf("%w: publish manifest v%d", ErrTooManyAttempts, m.Version)
}

// deleteExpiredMetadata deletes the metadata file that version next's
// metadata log no longer lists (Iceberg's delete-after-commit): v(next -
// keep - 1). Best effort: one that is left (a crash, an error) stays an
// orphan for the table's orphan cleanup.
func (p *Publisher) deleteExpiredMetadata(ctx context.Context, next int) {
	if old := next - p.keep - 1; old >= 1 {
		_ = p.store.Delete(ctx, p.MetadataKey(old))
	}
}

// Latest returns the newest metadata version and its key; (0, "", nil) when
// the table has no Iceberg metadata yet.
func (p *Publisher) Latest(ctx context.Context) (int, string, error) {
	k, err := p.latestVersion(ctx)
	if err != nil || k == 0 {
		return 0, "", err
	}
	return k, p.MetadataKey(k), nil
}

// Hint reads version-hint.text: (0, "", nil) when missing or unparsable.
func (p *Publisher) Hint(ctx context.Context) (int, objstore.Version, error) {
	data, v, err := p.store.Get(ctx, p.HintKey())
	if errors.Is(err, objstore.ErrNotFound) {
		return 0, "", nil
	}
	if err != nil {
		return 0, "", fmt.Errorf("iceberg: read hint: %w", err)
	}
	n, perr := strconv.Atoi(strings.TrimSpace(string(data)))
	if perr != nil || n < 0 {
		return 0, v, nil // garbage: treat as "no hint", overwritten forwards
	}
	return n, v, nil
}

// latestVersion starts at the hint (which may lag) and probes forwards for
// v{K+1}.metadata.json until one is missing. Without a usable hint it lists.
func (p *Publisher) latestVersion(ctx context.Context) (int, error) {
	k, _, err := p.Hint(ctx)
	if err != nil {
		return 0, err
	}
	if k == 0 {
		if k, err = p.listLatest(ctx); err != nil {
			return 0, err
		}
	}
	for {
		_, _, err := p.store.Get(ctx, p.MetadataKey(k+1))
		if errors.Is(err, objstore.ErrNotFound) {
			return k, nil
		}
		if err != nil {
			return 0, fmt.Errorf("iceberg: probe metadata v%d: %w", k+1, err)
		}
		k++
	}
}

func (p *Publisher) listLatest(ctx context.Context) (int, error) {
	dir := p.prefix + "/metadata/v"
	infos, err := p.store.List(ctx, dir)
	if err != nil {
		return 0, fmt.Errorf("iceberg: list metadata: %w", err)
	}
	best := 0
	for _, i := range infos {
		s, ok := strings.CutSuffix(strings.TrimPrefix(i.Key, dir), ".metadata.json")
		if !ok {
			continue
		}
		if n, err := strconv.Atoi(s); err == nil && n > best {
			best = n
		}
	}
	return best, nil
}

func (p *Publisher) readHead(ctx context.Context) (head, error) {
	k, err := p.latestVersion(ctx)
	if err != nil || k == 0 {
		return head{}, err
	}
	key := p.MetadataKey(k)
	data, _, err := p.store.Get(ctx, key)
	if err != nil {
		return head{}, fmt.Errorf("iceberg: read %s: %w", key, err)
	}
	meta, err := table.ParseMetadataBytes(data)
	if err != nil {
		return head{}, fmt.Errorf("iceberg: parse %s: %w", key, err)
	}
	return head{k: k, meta: meta}, nil
}

// advanceHint moves version-hint.text to k, only forwards: read the hint;
// stop if it is already >= k; else replace it with a conditional write
// (PutIfMatch, or PutIfAbsent when missing) and retry on a lost race.
func (p *Publisher) advanceHint(ctx context.Context, k int) error {
	body := []byte(strconv.Itoa(k))
	for attempt := 0; attempt < 4*MaxAttempts; attempt++ {
		data, v, err := p.store.Get(ctx, p.HintKey())
		switch {
		case errors.Is(err, objstore.ErrNotFound):
			_, err = p.store.PutIfAbsent(ctx, p.HintKey(), body)
			if err == nil || errors.Is(err, objstore.ErrExists) {
				continue // re-read: verifies (or lost to someone else)
			}
			return fmt.Errorf("iceberg: create hint: %w", err)
		case err != nil:
			return fmt.Errorf("iceberg: read hint: %w", err)
		}
		cur, perr := strconv.Atoi(strings.TrimSpace(string(data)))
		if perr == nil && cur >= k {
			return nil // forward-only: never move it back
		}
		_, err = p.store.PutIfMatch(ctx, p.HintKey(), body, v)
		if err == nil {
			return nil
		}
		if !errors.Is(err, objstore.ErrPrecondition) {
			return fmt.Errorf("iceberg: advance hint to %d: %w", k, err)
		}
	}
	return fmt.Errorf("%w: advance hint to %d", ErrTooManyAttempts, k)
}

// backoff sleeps 2-15 ms (randomized) after a lost metadata race.
func backoff(attempt int) {
	_ = attempt
	time.Sleep(time.Duration(2000+rand.IntN(13000)) * time.Microsecond)
}
