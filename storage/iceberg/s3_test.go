package iceberg_test

import (
	"context"
	"sync"
	"testing"

	"github.com/bsdb/bsdb-pg/storage/iceberg"
	"github.com/bsdb/bsdb-pg/storage/objstore/objstoretest"
)

// Concurrent publishers on a real S3-compatible server: conditional writes
// with ETags (If-None-Match / If-Match) keep one snapshot per manifest
// version and a hint at the newest.
func TestConcurrentPublishOnS3(t *testing.T) {
	gw := objstoretest.StartVersityGW(t)
	s := gw.NewBucket(t, "warehouse")
	ctx := context.Background()
	ms := chain(8)
	var wg sync.WaitGroup
	errs := make(chan error, len(ms))
	for i := len(ms) - 1; i >= 0; i-- {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			if _, err := iceberg.NewPublisher(s, prefix).Publish(ctx, ms[i]); err != nil {
				errs <- err
			}
		}(i)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	p := iceberg.NewPublisher(s, prefix)
	k, key, err := p.Latest(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// Re-publishing any version is a no-op now: the head publishes v8.
	for _, m := range ms {
		if got, err := p.Publish(ctx, m); err != nil || got != key {
			t.Fatalf("re-publish v%d: %s %v, want %s", m.Version, got, err, key)
		}
	}
	hint, _, _ := p.Hint(ctx)
	if hint != k {
		t.Fatalf("hint %d, latest %d", hint, k)
	}
	meta := loadMeta(t, s, key)
	if mv := manifestVersionOf(meta.CurrentSnapshot()); mv != 8 {
		t.Fatalf("head publishes manifest v%d", mv)
	}
	checkHistory(t, meta)
}
