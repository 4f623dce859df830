package server

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/bsdb/bsdb-pg/internal/pgref"
)

// wireRows runs q (simple protocol) and returns the result's column names
// and type OIDs, then its rows, as text.
func wireRows(ctx context.Context, c *pgx.Conn, q string) ([]string, error) {
	rows, err := c.Query(ctx, q, pgx.QueryExecModeSimpleProtocol)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var head []string
	for _, fd := range rows.FieldDescriptions() {
		head = append(head, fmt.Sprintf("%s:%d", fd.Name, fd.DataTypeOID))
	}
	var out []string
	for rows.Next() {
		var cells []string
		for _, v := range rows.RawValues() {
			if v == nil {
				cells = append(cells, "NULL")
			} else {
				cells = append(cells, string(v))
			}
		}
		out = append(out, strings.Join(cells, "|"))
	}
	if !strings.Contains(strings.ToUpper(q), "ORDER BY") {
		sort.Strings(out)
	}
	return append([]string{strings.Join(head, " ")}, out...), rows.Err()
}

// operatorCatalogQueries are compared row for row, and column names and
// types, with PostgreSQL 15. Those marked with regCastMark cast to reg*
// types, whose results the translator types text (or int8 for ::oid):
// their column types are not compared.
var operatorCatalogQueries = []string{
	`SELECT (SELECT count(*) FROM pg_operator) AS operators, (SELECT count(*) FROM pg_cast) AS casts,
		(SELECT count(*) FROM pg_aggregate) AS aggregates, (SELECT count(*) FROM pg_am) AS ams,
		(SELECT count(*) FROM pg_opclass) AS opclasses, (SELECT count(*) FROM pg_opfamily) AS opfamilies,
		(SELECT count(*) FROM pg_amop) AS amops, (SELECT count(*) FROM pg_amproc) AS amprocs, (SELECT count(*) FROM pg_range) AS ranges`,
	`SELECT * FROM pg_operator ORDER BY oid`,
	`SELECT * FROM pg_catalog.pg_cast ORDER BY oid`,
	`SELECT * FROM pg_aggregate`,
	`SELECT * FROM pg_am ORDER BY oid`,
	`SELECT * FROM pg_opclass ORDER BY oid`,
	`SELECT * FROM pg_opfamily ORDER BY oid`,
	`SELECT * FROM pg_amop ORDER BY oid`,
	`SELECT * FROM pg_amproc ORDER BY oid`,
	`SELECT * FROM pg_range ORDER BY rngtypid`,
	// The binder's view of operators, joined with pg_type as clients do.
	`SELECT o.oprname, l.typname AS lt, r.typname AS rt, res.typname AS result, o.oprcode, o.oprkind,
		pg_catalog.obj_description(o.oid, 'pg_operator') AS descr
		FROM pg_operator o LEFT JOIN pg_type l ON l.oid = o.oprleft JOIN pg_type r ON r.oid = o.oprright
		JOIN pg_type res ON res.oid = o.oprresult ORDER BY o.oid`,
	`SELECT format_type(c.castsource, NULL) AS src, format_type(c.casttarget, NULL) AS dst, p.proname, c.castcontext, c.castmethod
		FROM pg_cast c LEFT JOIN pg_proc p ON p.oid = c.castfunc ORDER BY c.oid`,
	`SELECT opc.opcname, am.amname, opf.opfname, format_type(opc.opcintype, NULL) AS intype
		FROM pg_opclass opc JOIN pg_am am ON am.oid = opc.opcmethod JOIN pg_opfamily opf ON opf.oid = opc.opcfamily
		WHERE opc.opcdefault ORDER BY opc.oid`,
	`/*reg*/ SELECT o.amopopr::regoperator AS op, o.amopstrategy FROM pg_amop o JOIN pg_opfamily f ON f.oid = o.amopfamily
		WHERE f.opfname = 'integer_ops' ORDER BY o.oid`,
	`SELECT aggfnoid, aggkind, aggnumdirectargs, aggtransfn, aggfinalfn, format_type(aggtranstype, NULL) AS transtype, agginitval
		FROM pg_aggregate WHERE aggkind <> 'n' OR aggsortop <> 0`,
	`/*reg*/ SELECT rngtypid::regtype AS t, rngsubtype::regtype AS sub, rngmultitypid::regtype AS multi, rngsubdiff FROM pg_range ORDER BY rngtypid`,
	`/*reg*/ SELECT '+(integer,integer)'::regoperator::oid AS a, 551::regoperator AS b, 551::regoper AS c, '||/'::regoper::oid AS d`,
}

// operatorPsqlCommands are compared byte for byte with PostgreSQL's psql
// output.
const operatorPsqlCommands = `\do+ ||
\do
\do+ pg_catalog.<@
\dC
\dC text
\dA+
\dAc btree int4
\dAc brin
\dAf hash int4
\dAo+ btree integer_ops
\da+ sum
`

// TestOperatorCatalogsMatchPostgres: pg_operator, pg_cast, pg_aggregate,
// pg_am, pg_opclass, pg_opfamily, pg_amop, pg_amproc and pg_range, read
// through the wire, and psql's \do, \dC, \dA and \da commands over them,
// answer as PostgreSQL 15 does.
func TestOperatorCatalogsMatchPostgres(t *testing.T) {
	refURL := pgref.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	ref, err := pgx.Connect(ctx, refURL)
	if err != nil {
		t.Fatal(err)
	}
	defer ref.Close(context.Background())
	var v int
	if err := ref.QueryRow(ctx, "SELECT current_setting('server_version_num')::int").Scan(&v); err != nil {
		t.Fatal(err)
	}
	if v/10000 != 15 {
		t.Skipf("reference PostgreSQL is version %d, the built-in catalogs are PostgreSQL 15's", v)
	}
	ts := startServer(t, "")
	ours := ts.conn(t)
	for _, q := range operatorCatalogQueries {
		want, err := wireRows(ctx, ref, q)
		if err != nil {
			t.Fatalf("PostgreSQL: %s: %v", q, err)
		}
		got, err := wireRows(ctx, ours, q)
		if err != nil {
			t.Errorf("%s: %v", q, err)
			continue
		}
		if strings.HasPrefix(q, regCastMark) {
			got[0], want[0] = columnNames(got[0]), columnNames(want[0])
		}
		if d := firstDiff(got, want); d != "" {
			t.Errorf("%s:\n%s", q, d)
		}
	}

	bin, err := exec.LookPath("psql")
	if err != nil {
		if os.Getenv("BSDB_REQUIRE_CLIENTS") == "1" {
			t.Fatalf("psql required: %v", err)
		}
		t.Skipf("psql unavailable: %v", err)
	}
	psql := func(url string) string {
		cmd := exec.CommandContext(ctx, bin, "-X", "-P", "pager=off", "-v", "ON_ERROR_STOP=0", "-f", "-", url)
		cmd.Stdin = strings.NewReader(operatorPsqlCommands)
		cmd.Env = append(os.Environ(), "PGCONNECT_TIMEOUT=10")
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil {
			t.Fatalf("psql: %v\n%s", err, out.String())
		}
		return out.String()
	}
	got, want := psql(ts.url()), psql(refURL)
	if d := firstDiff(strings.Split(got, "\n"), strings.Split(want, "\n")); d != "" {
		t.Errorf("psql output differs from PostgreSQL's:\n%s", d)
	}
	if !strings.Contains(got, "| array_prepend   | prepend element onto front of array") {
		t.Errorf("\\do+ || lacks array_prepend:\n%.2000s", got)
	}
}

const regCastMark = "/*reg*/"

// columnNames drops the types from wireRows' heading.
func columnNames(head string) string {
	var names []string
	for _, f := range strings.Fields(head) {
		n, _, _ := strings.Cut(f, ":")
		names = append(names, n)
	}
	return strings.Join(names, " ")
}

// firstDiff describes where got and want (lines) first differ, "" if
// they do not.
func firstDiff(got, want []string) string {
	for i := 0; i < len(got) || i < len(want); i++ {
		g, w := "<none>", "<none>"
		if i < len(got) {
			g = got[i]
		}
		if i < len(want) {
			w = want[i]
		}
		if g != w {
			return fmt.Sprintf("line %d (of %d, PostgreSQL %d):\n got %s\nwant %s", i+1, len(got), len(want), g, w)
		}
	}
	return ""
}
