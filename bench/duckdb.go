package main

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"strconv"

	duckdb "github.com/duckdb/duckdb-go/v2"
)

// openDuckDB opens an in-memory DuckDB with threads = cores, and loads
// events rows [0, n) and users with its appender (native tables).
func openDuckDB(ctx context.Context, g *Gen, n int64, threads int) (*sql.DB, error) {
	conn, err := duckdb.NewConnector("", nil)
	if err != nil {
		return nil, fmt.Errorf("duckdb: %w", err)
	}
	db := sql.OpenDB(conn)
	db.SetMaxOpenConns(1)
	for _, q := range []string{"SET threads = " + strconv.Itoa(threads), "SET TimeZone = 'UTC'", EventsDDL, UsersDDL} {
		if _, err := db.ExecContext(ctx, q); err != nil {
			db.Close()
			return nil, fmt.Errorf("duckdb %q: %w", q, err)
		}
	}
	c, err := db.Conn(ctx)
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("duckdb conn: %w", err)
	}
	defer c.Close()
	err = c.Raw(func(dc any) error {
		dconn, ok := dc.(driver.Conn)
		if !ok {
			return fmt.Errorf("BUG: duckdb raw connection is %T", dc)
		}
		if err := duckAppend(dconn, "events", n, func(i int64) []driver.Value {
			e := g.Event(i)
			return []driver.Value{e.ID, e.TS, e.UserID, e.Kind, e.Value, e.Payload}
		}); err != nil {
			return err
		}
		return duckAppend(dconn, "users", Users, func(i int64) []driver.Value {
			u := int32(i) + 1
			return []driver.Value{u, g.Country(u)}
		})
	})
	if err != nil {
		db.Close()
		return nil, err
	}
	return db, nil
}

func duckAppend(dc driver.Conn, table string, n int64, row func(int64) []driver.Value) error {
	a, err := duckdb.NewAppenderFromConn(dc, "", table)
	if err != nil {
		return fmt.Errorf("duckdb appender %s: %w", table, err)
	}
	for i := int64(0); i < n; i++ {
		if err := a.AppendRow(row(i)...); err != nil {
			a.Close()
			return fmt.Errorf("duckdb append %s row %d: %w", table, i, err)
		}
	}
	if err := a.Close(); err != nil {
		return fmt.Errorf("duckdb appender %s close: %w", table, err)
	}
	return nil
}
