package server

import (
	"context"
	"math/big"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgtype"
)

// TestWhereParamsEveryType: a value written with binary parameters is found
// again by equality with the same binary parameter, for every type (char(n)
// compares without its padding, as bpchareq does).
func TestWhereParamsEveryType(t *testing.T) {
	ts := startServer(t, "")
	c := ts.conn(t)
	mustExec(t, c, "SET TimeZone = 'UTC'")
	mustExec(t, c, `CREATE TABLE w (c_real real, c_numeric numeric(10,2), c_char char(4), c_time time, c_timestamptz timestamptz, c_interval interval, c_bytea bytea, c_jsonb jsonb, c_date date, c_timestamp timestamp)`)
	args := []any{float32(1.5), pgtype.Numeric{Int: big.NewInt(-1234567), Exp: -2, Valid: true}, "ab",
		pgtype.Time{Microseconds: (13*3600+45*60+30)*1e6 + 123456, Valid: true}, time.Date(2024, 7, 4, 6, 7, 8, 0, time.FixedZone("", 2*3600)),
		pgtype.Interval{Months: 14, Days: 3, Microseconds: (4*3600 + 5*60 + 6) * 1e6, Valid: true}, []byte{0xde, 0xad, 0x00, 0xff}, `{"b": 1, "a": [1, 2]}`,
		time.Date(2024, 2, 29, 0, 0, 0, 0, time.UTC), time.Date(2024, 1, 15, 13, 45, 30, 123456000, time.UTC)}
	mustExec(t, c, "INSERT INTO w VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10)", args...)
	for i, col := range []string{"c_real", "c_numeric", "c_char", "c_time", "c_timestamptz", "c_interval", "c_bytea", "c_jsonb", "c_date", "c_timestamp"} {
		var n int64
		err := c.QueryRow(context.Background(), "SELECT count(*) FROM w WHERE "+col+" = $1", args[i]).Scan(&n)
		if err != nil || n != 1 {
			t.Errorf("%s: %d %v", col, n, err)
		}
	}
}
