package server

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// arrayCases are array values of every element type a client reads, with
// the elements array_out must quote (NULL in any case, empty, blanks,
// quotes, backslashes, braces, the delimiter) and several dimensions.
var arrayCases = []string{
	`array['Null','x',NULL]::text[]`,
	`array['NULL','null','nUlL','NULLS','']::text[]`,
	`array['a b',' lead','trail ','tab	x','{','}','"q"','\','a,b']::text[]`,
	`'{"Null",x,NULL}'::text[]`,
	`array['x'::varchar, NULL]`,
	`array[1, NULL, -2147483648]::int4[]`,
	`array[32767, -32768]::int2[]`,
	`array[9223372036854775807, NULL]::int8[]`,
	`array['NaN', 'Infinity', '-Infinity', '1.5', '-0']::float8[]`,
	`array[0.1::float4, 1e30::float4]`,
	`array[1.50, 2.125]::numeric(6,3)[]`,
	`array[true, false, NULL]`,
	`array['2020-01-01'::date, 'infinity', NULL]`,
	`array['2020-01-01 12:34:56.5'::timestamp]`,
	`array['2020-01-01 12:34:56+02'::timestamptz]`,
	`array['1 year 2 mons 3 days 04:05:06'::interval]`,
	`array['\xdead'::bytea, '\x']`,
	`array['a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid]`,
	`array['{"a": [1, "x"]}'::jsonb, 'null']`,
	`array[array['NULL','a'],array['b',NULL]]`,
	`array[array[1,2],array[3,4]]::int[]`,
	`'{{1,2},{3,4}}'::int[][]`,
	`array[array[array[1],array[2]],array[array[3],array[4]]]`,
	`array[]::int[]`,
	`array[]::text[]`,
	// json and jsonb values: a JSON null is not SQL's NULL.
	`'null'::jsonb`,
	`array['{"a": [1, "x"]}'::jsonb, 'null']`,
	`('{"a": 1, "b": null}'::jsonb)->'b'`,
	`('{"a": 1, "b": null}'::jsonb)->'b' IS NULL`,
	`('{"a": 1, "b": null}'::jsonb)->'c' IS NULL`,
	`('{"a": "x"}'::json)->>'a' || 'y'`,
	`jsonb_build_object('k', 'v', 'n', NULL)`,
}

// TestArrayOutputMatchesPostgres: an array reaches a client as
// PostgreSQL's array_out writes it in text (a client parses "Null" back as
// NULL when it is not quoted) and as array_send in binary, for every
// element type; so does a json value (a JSON null is not NULL).
func TestArrayOutputMatchesPostgres(t *testing.T) {
	ours, ref := typeMatrix(t)
	for _, expr := range arrayCases {
		for _, format := range []int16{0, 1} {
			want, werr := arrayResult(ref, expr, format)
			got, gerr := arrayResult(ours, expr, format)
			if werr != nil {
				t.Fatalf("%s: reference PostgreSQL: %v", expr, werr)
			}
			if gerr != nil {
				t.Errorf("%s (format %d): %v; PostgreSQL: %q", expr, format, gerr, want)
				continue
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s (format %d):\n got %q\nwant %q", expr, format, got, want)
			}
		}
	}
}

// arrayResult is the bytes of the one value of "SELECT expr" in format.
func arrayResult(c *pgconn.PgConn, expr string, format int16) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	rr := c.ExecParams(ctx, "SELECT "+expr, nil, nil, nil, []int16{format})
	var v []byte
	for rr.NextRow() {
		v = append([]byte(nil), rr.Values()[0]...)
	}
	_, err := rr.Close()
	return v, err
}
