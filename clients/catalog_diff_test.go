package clients

import (
	"context"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/bsdb/bsdb-pg/internal/pgref"
)

type namedQuery struct{ name, sql string }

// loadQueries parses testdata/catalog_queries.sql: each query is preceded
// by a "-- name" comment line.
func loadQueries(t *testing.T) []namedQuery {
	t.Helper()
	b, err := os.ReadFile("testdata/catalog_queries.sql")
	if err != nil {
		t.Fatal(err)
	}
	var out []namedQuery
	var name string
	var cur strings.Builder
	flush := func() {
		if q := strings.TrimSpace(cur.String()); q != "" {
			out = append(out, namedQuery{name, strings.TrimSuffix(q, ";")})
		}
		cur.Reset()
	}
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "-- ") {
			flush()
			name = strings.TrimPrefix(line, "-- ")
			continue
		}
		cur.WriteString(line + "\n")
	}
	flush()
	return out
}

// oidTypes are result types whose values legitimately differ between
// servers (OIDs of user objects): masked before comparing.
var oidTypes = map[uint32]bool{26: true, 2205: true}

// queryRows runs q and returns its rows as text, OID-typed values masked.
func queryRows(ctx context.Context, conn *pgx.Conn, q string) ([]string, error) {
	rows, err := conn.Query(ctx, q, pgx.QueryExecModeSimpleProtocol)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		fds := rows.FieldDescriptions()
		raw := rows.RawValues()
		cells := make([]string, len(raw))
		for i, v := range raw {
			switch {
			case v == nil:
				cells[i] = "NULL"
			case oidTypes[fds[i].DataTypeOID] || (fds[i].Name == "oid" || strings.HasSuffix(fds[i].Name, "relid")) && string(v) > "16383" && len(v) >= 5:
				cells[i] = "<oid>"
			default:
				cells[i] = string(v)
			}
		}
		out = append(out, strings.Join(cells, "|"))
	}
	return out, rows.Err()
}

// TestCatalogQueriesMatchPostgres runs the catalog queries clients send on
// bsdb-pg and on a PostgreSQL holding the same tables and compares rows.
func TestCatalogQueriesMatchPostgres(t *testing.T) {
	refURL := pgref.NewDatabase(t, pgref.Start(t))
	s := startServer(t)
	execSQL(t, s.url("postgres"), fixture...)
	execSQL(t, refURL, fixture...)
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	ours, err := pgx.Connect(ctx, s.url("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	defer ours.Close(ctx)
	ref, err := pgx.Connect(ctx, refURL)
	if err != nil {
		t.Fatal(err)
	}
	defer ref.Close(ctx)
	_, refDB := hostAndDB(t, refURL)

	for _, q := range loadQueries(t) {
		want, err := queryRows(ctx, ref, q.sql)
		if err != nil {
			t.Errorf("%s: PostgreSQL: %v", q.name, err)
			continue
		}
		got, err := queryRows(ctx, ours, q.sql)
		if err != nil {
			t.Errorf("%s: bsdb-pg: %v\n%s", q.name, err, q.sql)
			continue
		}
		for i := range want {
			want[i] = strings.ReplaceAll(want[i], refDB, "postgres")
		}
		if !strings.Contains(strings.ToUpper(q.sql), "ORDER BY") {
			sort.Strings(got)
			sort.Strings(want)
		}
		if g, w := strings.Join(got, "\n"), strings.Join(want, "\n"); g != w {
			t.Errorf("%s: rows differ\n%s", q.name, lineDiff(g, w))
		}
	}
}
