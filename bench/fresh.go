package main

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// freshSystem is what figure 4 needs of a system: an acknowledged
// autocommit INSERT of row k on one connection, and count(*) on another.
type freshSystem interface {
	insert(ctx context.Context, k int) error
	count(ctx context.Context) (int64, error)
}

// pgxFresh is a freshSystem over the wire: a writes, b reads.
type pgxFresh struct{ a, b *pgx.Conn }

var _ freshSystem = pgxFresh{}

func (p pgxFresh) insert(ctx context.Context, k int) error {
	_, err := p.a.Exec(ctx, "INSERT INTO fresh VALUES ($1)", k)
	return err
}

func (p pgxFresh) count(ctx context.Context) (int64, error) {
	var n int64
	err := p.b.QueryRow(ctx, "SELECT count(*) FROM fresh", pgx.QueryExecModeSimpleProtocol).Scan(&n)
	return n, err
}

// freshness measures figure 4 on the system at url: connection A INSERTs
// row k into a fresh table (autocommit); once A has the acknowledgement,
// connection B runs SELECT count(*) FROM fresh.
func freshness(ctx context.Context, url string, probes int) (lag []float64, stale int, err error) {
	a, err := connect(ctx, url)
	if err != nil {
		return nil, 0, err
	}
	defer a.Close(ctx)
	b, err := connect(ctx, url)
	if err != nil {
		return nil, 0, err
	}
	defer b.Close(ctx)
	for _, q := range []string{"DROP TABLE IF EXISTS fresh", "CREATE TABLE fresh (id bigint)"} {
		if _, err := a.Exec(ctx, q); err != nil {
			return nil, 0, fmt.Errorf("%s: %w", q, err)
		}
	}
	return probeFreshness(ctx, pgxFresh{a, b}, probes, 30*time.Second)
}

// probeFreshness inserts rows 1..probes. The row must be visible to the
// very first count after its acknowledgement; stale counts the probes where
// it was not. lag is the time from the acknowledgement to the end of the
// first read that saw the row (ms). A row still invisible after wait is an
// error.
func probeFreshness(ctx context.Context, sys freshSystem, probes int, wait time.Duration) (lag []float64, stale int, err error) {
	for k := 1; k <= probes; k++ {
		if err := sys.insert(ctx, k); err != nil {
			return nil, 0, fmt.Errorf("freshness insert %d: %w", k, err)
		}
		ack := time.Now()
		for attempt := 0; ; attempt++ {
			n, err := sys.count(ctx)
			if err != nil {
				return nil, 0, fmt.Errorf("freshness count: %w", err)
			}
			if n >= int64(k) {
				lag = append(lag, float64(time.Since(ack).Microseconds())/1000)
				break
			}
			if attempt == 0 {
				stale++
			}
			if time.Since(ack) > wait {
				return nil, 0, fmt.Errorf("freshness: row %d not visible %v after its acknowledgement", k, wait)
			}
		}
	}
	return lag, stale, nil
}

// checkFresh is the harness's freshness assertion: no stale read at all.
func checkFresh(system string, stale, probes int) error {
	if stale > 0 {
		return fmt.Errorf("freshness on %s: %d of %d acknowledged INSERTs were not visible to the next statement on another connection", system, stale, probes)
	}
	return nil
}
