package server

import (
	"context"
	"fmt"
	"math/big"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
)

// TestTypeRoundTrip writes one value of every column type with binary
// parameters (pgx's default) and reads it back in binary and in text.
func TestTypeRoundTrip(t *testing.T) {
	ts := startServer(t, "")
	c := ts.conn(t)
	mustExec(t, c, `CREATE TABLE ty (
		i2 smallint, i4 integer, i8 bigint, f4 real, f8 double precision, n numeric(12,3),
		s text, vc varchar(10), ch char(4), b boolean, d date, tm time, tsp timestamp,
		tz timestamptz, iv interval, ba bytea, u uuid, j json, jb jsonb)`)
	ts0 := time.Date(2024, 2, 29, 13, 14, 15, 123456000, time.UTC)
	u := [16]byte{0xa0, 0xee, 0xbc, 0x99, 0x9c, 0x0b, 0x4e, 0xf8, 0xbb, 0x6d, 0x6b, 0xb9, 0xbd, 0x38, 0x0a, 0x11}
	num := pgtype.Numeric{Int: big.NewInt(1234567), Exp: -3, Valid: true}
	args := []any{int16(-7), int32(123456), int64(-9876543210), float32(1.5), 3.25, num,
		"héllo", "short", "ab", true, pgtype.Date{Time: time.Date(2024, 2, 29, 0, 0, 0, 0, time.UTC), Valid: true},
		pgtype.Time{Microseconds: (13*3600+14*60+15)*1e6 + 500, Valid: true}, pgtype.Timestamp{Time: ts0, Valid: true},
		ts0, pgtype.Interval{Months: 14, Days: 3, Microseconds: 3723000000, Valid: true}, []byte{0, 1, 0xfe, 0xff},
		u, `{"k": [1, 2]}`, `{"b":1, "a":2}`}
	mustExec(t, c, "INSERT INTO ty VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$15,$16,$17,$18,$19)", args...)
	mustExec(t, c, "INSERT INTO ty (i4) VALUES (NULL)")

	// Binary results through pgx's extended protocol.
	var (
		i2        int16
		i4        int32
		i8        int64
		f4        float32
		f8        float64
		n         pgtype.Numeric
		s, vc, ch string
		b         bool
		d         pgtype.Date
		tm        pgtype.Time
		tsp       pgtype.Timestamp
		tz        time.Time
		iv        pgtype.Interval
		by        []byte
		uu        [16]byte
		j, jb     string
	)
	err := c.QueryRow(context.Background(), "SELECT i2,i4,i8,f4,f8,n,s,vc,ch,b,d,tm,tsp,tz,iv,ba,u,j::text,jb::text FROM ty WHERE i2 IS NOT NULL").
		Scan(&i2, &i4, &i8, &f4, &f8, &n, &s, &vc, &ch, &b, &d, &tm, &tsp, &tz, &iv, &by, &uu, &j, &jb)
	if err != nil {
		t.Fatal(err)
	}
	got := fmt.Sprint(i2, i4, i8, f4, f8, n.Int, n.Exp, s, vc, "["+ch+"]", b, d.Time.Format("2006-01-02"), tm.Microseconds,
		tsp.Time.Format(time.RFC3339Nano), tz.UTC().Format(time.RFC3339Nano), iv.Months, iv.Days, iv.Microseconds, by, uu == u, j, jb)
	want := fmt.Sprint(int16(-7), int32(123456), int64(-9876543210), float32(1.5), 3.25, big.NewInt(1234567), -3, "héllo", "short", "[ab  ]", true,
		"2024-02-29", int64((13*3600+14*60+15)*1e6+500), ts0.Format(time.RFC3339Nano), ts0.Format(time.RFC3339Nano), 14, 3, 3723000000,
		[]byte{0, 1, 0xfe, 0xff}, true, `{"k": [1, 2]}`, `{"a": 2, "b": 1}`)
	if got != want {
		t.Fatalf("binary round trip:\n got %s\nwant %s", got, want)
	}

	// Text results (simple protocol), exactly as PostgreSQL prints them.
	rows, err := c.Query(context.Background(), "SELECT i2,i4,i8,f4,f8,n,s,vc,ch,b,d,tm,tsp,tz,iv,ba,u,j,jb FROM ty ORDER BY i4 NULLS LAST", pgx.QueryExecModeSimpleProtocol)
	if err != nil {
		t.Fatal(err)
	}
	var lines []string
	for rows.Next() {
		raw := rows.RawValues()
		line := ""
		for k, v := range raw {
			if k > 0 {
				line += "|"
			}
			if v == nil {
				line += "NULL"
			} else {
				line += string(v)
			}
		}
		lines = append(lines, line)
	}
	if rows.Err() != nil {
		t.Fatal(rows.Err())
	}
	wantText := `-7|123456|-9876543210|1.5|3.25|1234.567|héllo|short|ab  |t|2024-02-29|13:14:15.0005|2024-02-29 13:14:15.123456|2024-02-29 13:14:15.123456+00|1 year 2 mons 3 days 01:02:03|\x0001feff|a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11|{"k": [1, 2]}|{"a": 2, "b": 1}`
	if len(lines) != 2 || lines[0] != wantText || lines[1] != "NULL|NULL|NULL|NULL|NULL|NULL|NULL|NULL|NULL|NULL|NULL|NULL|NULL|NULL|NULL|NULL|NULL|NULL|NULL" {
		t.Fatalf("text output:\n got %q\nwant %q", lines, wantText)
	}
	// The same after the rows are committed to Parquet.
	if err := ts.eng.FlushAll(context.Background()); err != nil {
		t.Fatal(err)
	}
	var again string
	if err := c.QueryRow(context.Background(), "SELECT concat_ws('|', i2,i4,i8,f4,f8,n,s,vc,ch,b,d,tm,tsp,tz,iv,u,j,jb) FROM ty WHERE i2 IS NOT NULL").Scan(&again); err != nil {
		t.Fatal(err)
	}
	if again == "" {
		t.Fatal("no row after flush")
	}
	var s2 string
	var iv2 pgtype.Interval
	var u2 [16]byte
	if err := c.QueryRow(context.Background(), "SELECT s, iv, u FROM ty WHERE i2 IS NOT NULL").Scan(&s2, &iv2, &u2); err != nil {
		t.Fatal(err)
	}
	if s2 != "héllo" || iv2.Months != 14 || iv2.Days != 3 || iv2.Microseconds != 3723000000 || u2 != u {
		t.Fatalf("after flush: %q %+v %x", s2, iv2, u2)
	}
}
