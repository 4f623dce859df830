package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
)

// The catalogs of operators, casts, aggregates, access methods and
// operator classes, and what pg_type and pg_proc's lines lack, each as a
// string constant of tab-separated lines (the format of proc_gen.go: \N =
// NULL, booleans t/f; see the parsing side in package pgcatalog). regproc
// columns are written as the function's OID (0 = "-"): pgcatalog prints
// them as regprocout does. Every query keeps built-in objects only (OID <
// 16384, schema pg_catalog) and orders by OID, so the output is
// deterministic. ORDER BY names the table's column qualified: a bare
// "oid" would be the output column oid::text, ordered as text.

// catalogFile is one generated file: its constants in order.
type catalogFile struct {
	name   string
	consts []catalogConst
}

// catalogConst is one string constant: the query's text columns joined
// by tabs, one line per row.
type catalogConst struct {
	name, doc string
	query     string
	ncols     int
	min       int // fewer rows is an error (a wrong server or filter)
	check     string
}

// catalogFiles are the files written besides static_gen.go and
// proc_gen.go. check, when set, is a query counting rows that break an
// assumption of the line format (it must return 0).
var catalogFiles = []catalogFile{
	{"oper_gen.go", []catalogConst{{
		name: "operLines",
		doc: `pg_operator's rows (schema pg_catalog, owner postgres):
oid oprname oprkind oprcanmerge oprcanhash oprleft oprright oprresult
oprcom oprnegate oprcode oprrest oprjoin (regproc as OIDs) description.`,
		query: `SELECT o.oid::text, oprname::text, oprkind::text, pg_temp.b(oprcanmerge), pg_temp.b(oprcanhash),
	oprleft::text, oprright::text, oprresult::text, oprcom::text, oprnegate::text, oprcode::oid::text,
	oprrest::oid::text, oprjoin::oid::text, d.description
	FROM pg_operator o LEFT JOIN pg_description d ON d.objoid = o.oid AND d.classoid = 'pg_operator'::regclass AND d.objsubid = 0
	WHERE o.oid < 16384 AND o.oprnamespace = 'pg_catalog'::regnamespace ORDER BY o.oid`,
		ncols: 14, min: 700,
		check: `SELECT count(*) FROM pg_operator WHERE oid < 16384 AND (oprnamespace <> 'pg_catalog'::regnamespace OR oprowner <> 10)`,
	}}},
	{"cast_gen.go", []catalogConst{{
		name:  "castLines",
		doc:   `pg_cast's rows: oid castsource casttarget castfunc castcontext castmethod.`,
		query: `SELECT oid::text, castsource::text, casttarget::text, castfunc::text, castcontext::text, castmethod::text FROM pg_cast c WHERE c.oid < 16384 ORDER BY c.oid`,
		ncols: 6, min: 200,
	}}},
	{"agg_gen.go", []catalogConst{{
		name: "aggLines",
		doc: `pg_aggregate's rows, one per built-in aggregate function:
aggfnoid aggkind aggnumdirectargs aggtransfn aggfinalfn aggcombinefn
aggserialfn aggdeserialfn aggmtransfn aggminvtransfn aggmfinalfn (regproc
as OIDs) aggfinalextra aggmfinalextra aggfinalmodify aggmfinalmodify
aggsortop aggtranstype aggtransspace aggmtranstype aggmtransspace
agginitval aggminitval.`,
		query: `SELECT aggfnoid::oid::text, aggkind::text, aggnumdirectargs::text, aggtransfn::oid::text, aggfinalfn::oid::text,
	aggcombinefn::oid::text, aggserialfn::oid::text, aggdeserialfn::oid::text, aggmtransfn::oid::text,
	aggminvtransfn::oid::text, aggmfinalfn::oid::text, pg_temp.b(aggfinalextra), pg_temp.b(aggmfinalextra),
	aggfinalmodify::text, aggmfinalmodify::text, aggsortop::text, aggtranstype::text, aggtransspace::text,
	aggmtranstype::text, aggmtransspace::text, agginitval, aggminitval
	FROM pg_aggregate a JOIN pg_proc p ON p.oid = a.aggfnoid
	WHERE p.oid < 16384 AND p.pronamespace = 'pg_catalog'::regnamespace ORDER BY p.oid`,
		ncols: 22, min: 100,
	}}},
	{"opclass_gen.go", []catalogConst{{
		name:  "amLines",
		doc:   `pg_am's rows: oid amname amhandler (OID) amtype.`,
		query: `SELECT oid::text, amname::text, amhandler::oid::text, amtype::text FROM pg_am a WHERE a.oid < 16384 ORDER BY a.oid`,
		ncols: 4, min: 2,
	}, {
		name:  "opfamilyLines",
		doc:   `pg_opfamily's rows (schema pg_catalog, owner postgres): oid opfmethod opfname.`,
		query: `SELECT oid::text, opfmethod::text, opfname::text FROM pg_opfamily f WHERE f.oid < 16384 AND opfnamespace = 'pg_catalog'::regnamespace ORDER BY f.oid`,
		ncols: 3, min: 100,
		check: `SELECT count(*) FROM pg_opfamily WHERE oid < 16384 AND (opfnamespace <> 'pg_catalog'::regnamespace OR opfowner <> 10)`,
	}, {
		name: "opclassLines",
		doc: `pg_opclass's rows (schema pg_catalog, owner postgres):
oid opcmethod opcname opcfamily opcintype opcdefault opckeytype.`,
		query: `SELECT oid::text, opcmethod::text, opcname::text, opcfamily::text, opcintype::text, pg_temp.b(opcdefault), opckeytype::text
	FROM pg_opclass c WHERE c.oid < 16384 AND opcnamespace = 'pg_catalog'::regnamespace ORDER BY c.oid`,
		ncols: 7, min: 100,
		check: `SELECT count(*) FROM pg_opclass WHERE oid < 16384 AND (opcnamespace <> 'pg_catalog'::regnamespace OR opcowner <> 10)`,
	}, {
		name: "amopLines",
		doc: `pg_amop's rows: oid amopfamily amoplefttype amoprighttype amopstrategy
amoppurpose amopopr amopmethod amopsortfamily.`,
		query: `SELECT oid::text, amopfamily::text, amoplefttype::text, amoprighttype::text, amopstrategy::text, amoppurpose::text,
	amopopr::text, amopmethod::text, amopsortfamily::text FROM pg_amop o WHERE o.oid < 16384 ORDER BY o.oid`,
		ncols: 9, min: 500,
	}, {
		name: "amprocLines",
		doc: `pg_amproc's rows: oid amprocfamily amproclefttype amprocrighttype
amprocnum amproc (OID).`,
		query: `SELECT oid::text, amprocfamily::text, amproclefttype::text, amprocrighttype::text, amprocnum::text, amproc::oid::text
	FROM pg_amproc p WHERE p.oid < 16384 ORDER BY p.oid`,
		ncols: 6, min: 500,
	}}},
	{"extra_gen.go", []catalogConst{{
		name: "typeExtraLines",
		doc: `the pg_type columns static_gen.go lacks, for the same rows in the
same order: oid typsubscript typanalyze.`,
		query: `SELECT oid::text, typsubscript::text, typanalyze::text FROM pg_type t WHERE ` + typeFilter + ` ORDER BY t.oid`,
		ncols: 3, min: 300,
	}, {
		name: "rangeLines",
		doc: `pg_range's rows: rngtypid rngsubtype rngmultitypid rngcollation
rngsubopc rngcanonical rngsubdiff (regproc as OIDs).`,
		query: `SELECT rngtypid::text, rngsubtype::text, rngmultitypid::text, rngcollation::text, rngsubopc::text,
	rngcanonical::oid::text, rngsubdiff::oid::text FROM pg_range r WHERE r.rngtypid < 16384 ORDER BY r.rngtypid`,
		ncols: 7, min: 6,
	}, {
		name: "argDefaultLines",
		doc: `the default expressions of the built-in functions' input arguments
(pg_get_function_arg_default), in argument order: function OID,
expression. A function with pronargdefaults N has N lines, for its last
N input arguments.`,
		query: `SELECT p.oid::text, pg_get_function_arg_default(p.oid, n)
	FROM pg_proc p, generate_series(1, coalesce(array_length(p.proallargtypes, 1), p.pronargs)) n
	WHERE p.oid < 16384 AND p.pronamespace = 'pg_catalog'::regnamespace AND p.pronargdefaults > 0
	AND pg_get_function_arg_default(p.oid, n) IS NOT NULL ORDER BY p.oid, n`,
		ncols: 2, min: 20,
		check: `SELECT count(*) FROM pg_proc p WHERE p.oid < 16384 AND p.pronamespace = 'pg_catalog'::regnamespace
	AND p.pronargdefaults <> (SELECT count(*) FROM generate_series(1, coalesce(array_length(p.proallargtypes, 1), p.pronargs)) n
		WHERE pg_get_function_arg_default(p.oid, n) IS NOT NULL)`,
	}, {
		name: "keywordLines",
		doc: `the keywords quote_identifier quotes (all but the unreserved ones:
pg_get_keywords() with catcode <> 'U'), one per line.`,
		query: `SELECT word FROM pg_get_keywords() WHERE catcode <> 'U' ORDER BY word`,
		ncols: 1, min: 100,
	}}},
}

// genCatalogFile returns the text of f after the header.
func genCatalogFile(ctx context.Context, conn *pgx.Conn, f catalogFile) (string, error) {
	var b strings.Builder
	for i, c := range f.consts {
		if i > 0 {
			b.WriteString("\n")
		}
		b.WriteString("// " + c.name + " are " + strings.ReplaceAll(c.doc, "\n", "\n// ") + "\nconst " + c.name + " = \"\" +\n")
		n, err := writeLines(ctx, conn, &b, c.query, c.ncols)
		if err != nil {
			return "", fmt.Errorf("%s: %w", c.name, err)
		}
		if n < c.min {
			return "", fmt.Errorf("%s: only %d rows", c.name, n)
		}
		if c.check != "" {
			var bad int
			if err := conn.QueryRow(ctx, c.check).Scan(&bad); err != nil {
				return "", fmt.Errorf("%s: %w", c.name, err)
			}
			if bad > 0 {
				return "", fmt.Errorf("%s: %d rows break an assumption of the line format (%s)", c.name, bad, c.check)
			}
		}
		b.WriteString("\t\"\"\n")
	}
	return b.String(), nil
}
