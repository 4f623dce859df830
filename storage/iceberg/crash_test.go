package iceberg_test

import (
	"context"
	"testing"

	"github.com/bsdb/bsdb-pg/internal/crash"
	"github.com/bsdb/bsdb-pg/storage/iceberg"
	"github.com/bsdb/bsdb-pg/storage/objstore"
)

type crashed struct{ point string }

// A crash after the metadata file is durable but before the hint moved
// leaves a lagging hint; the next Publish (the tail resume) finds the
// metadata current, writes nothing new and advances the hint.
func TestResumeAfterCrashPoints(t *testing.T) {
	for _, point := range []string{crash.CommitAfterMetadata, crash.CommitAfterHint} {
		t.Run(point, func(t *testing.T) {
			ctx := context.Background()
			mem := objstore.NewMem()
			p := iceberg.NewPublisher(mem, prefix)
			ms := chain(2)
			if _, err := p.Publish(ctx, ms[0]); err != nil {
				t.Fatal(err)
			}
			crash.SetHandler(func(name string) { panic(crashed{name}) })
			crash.Arm(point, 1)
			defer func() { crash.Disarm(); crash.SetHandler(nil) }()
			func() {
				defer func() {
					if r := recover(); r != (crashed{point}) {
						t.Fatalf("recovered %v, want crash at %s", r, point)
					}
				}()
				_, _ = p.Publish(ctx, ms[1])
			}()
			hint, _, _ := p.Hint(ctx)
			wantHint := 1
			if point == crash.CommitAfterHint {
				wantHint = 2
			}
			if hint != wantHint {
				t.Fatalf("hint after crash = %d, want %d", hint, wantHint)
			}
			key, err := p.Publish(ctx, ms[1])
			if err != nil {
				t.Fatal(err)
			}
			if k, latest, _ := p.Latest(ctx); k != 2 || latest != key {
				t.Fatalf("after resume: latest v%d %s, publish returned %s", k, latest, key)
			}
			if hint, _, _ := p.Hint(ctx); hint != 2 {
				t.Fatalf("hint after resume = %d", hint)
			}
		})
	}
}
