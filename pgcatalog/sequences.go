package pgcatalog

import "strconv"

// Sequence is one sequence of the current database (pg_class relkind
// 'S', pg_sequence, pg_sequences, information_schema.sequences).
type Sequence struct {
	OID       uint32
	Schema    string
	Name      string
	Owner     uint32
	ACL       []string
	TypeOID   uint32
	Start     int64
	Increment int64
	Min, Max  int64
	Cache     int64
	Cycle     bool
	// LastValue is pg_sequences.last_value: nil before the first nextval
	// (or after setval(..., false)).
	LastValue *int64
	// OwnedBy is the owning table's OID and column number (0: none);
	// Identity: the sequence of an identity column.
	OwnedBy    uint32
	OwnedByCol int
	Identity   bool
}

// Registered after pg_catalog.go's (file order): pg_sequence has rows now.
func init() {
	colTypes["regtype"] = colType{2206, "VARCHAR"}
	register("pg_catalog", "pg_sequence", false, "seqrelid:oid seqtypid:oid seqstart:int8 seqincrement:int8 seqmax:int8 seqmin:int8 seqcache:int8 seqcycle:bool",
		func(s *Snapshot, _ *Facts) [][]any {
			var rows [][]any
			for _, q := range s.Sequences {
				rows = append(rows, []any{int64(q.OID), int64(q.TypeOID), q.Start, q.Increment, q.Max, q.Min, q.Cache, q.Cycle})
			}
			return rows
		})
	register("pg_catalog", "pg_sequences", false, `schemaname:name sequencename:name sequenceowner:name data_type:regtype
		start_value:int8 min_value:int8 max_value:int8 increment_by:int8 cycle:bool cache_size:int8 last_value:int8`,
		func(s *Snapshot, _ *Facts) [][]any {
			var rows [][]any
			for _, q := range s.Sequences {
				var last any
				if q.LastValue != nil {
					last = *q.LastValue
				}
				rows = append(rows, []any{q.Schema, q.Name, roleName(s, q.Owner), FormatType(q.TypeOID, -1), q.Start, q.Min, q.Max,
					q.Increment, q.Cycle, q.Cache, last})
			}
			return rows
		})
	register("pg_catalog", "pg_depend", false, "classid:oid objid:oid objsubid:int4 refclassid:oid refobjid:oid refobjsubid:int4 deptype:char", sequenceDependRows)
	register("information_schema", "sequences", false, `sequence_catalog:name sequence_schema:name sequence_name:name
		data_type:text numeric_precision:int4 numeric_precision_radix:int4 numeric_scale:int4 start_value:text
		minimum_value:text maximum_value:text increment:text cycle_option:text`,
		func(s *Snapshot, _ *Facts) [][]any {
			var rows [][]any
			for _, q := range s.Sequences {
				if q.Identity {
					continue // not listed by PostgreSQL either
				}
				prec := int32(64)
				switch q.TypeOID {
				case 21:
					prec = 16
				case 23:
					prec = 32
				}
				cycle := "NO"
				if q.Cycle {
					cycle = "YES"
				}
				rows = append(rows, []any{s.Database, q.Schema, q.Name, FormatType(q.TypeOID, -1), prec, int32(2), int32(0),
					strconv.FormatInt(q.Start, 10), strconv.FormatInt(q.Min, 10), strconv.FormatInt(q.Max, 10),
					strconv.FormatInt(q.Increment, 10), cycle})
			}
			return rows
		})
}

// sequenceClassRows are the pg_class rows of the sequences.
func sequenceClassRows(s *Snapshot, row func(oid uint32, name string, ns uint32, owner uint32, am int64, kind string, natts int, hasIndex bool, relacl any) []any) [][]any {
	var rows [][]any
	for _, q := range s.Sequences {
		rows = append(rows, row(q.OID, q.Name, SchemaOID(q.Schema), q.Owner, 0, "S", 3, false, aclArray(q.ACL)))
	}
	return rows
}

// identitySequence is the sequence of table t's identity column attnum.
func identitySequence(s *Snapshot, t Table, attnum int) *Sequence {
	for i := range s.Sequences {
		if q := &s.Sequences[i]; q.Identity && q.OwnedBy == t.OID && q.OwnedByCol == attnum {
			return q
		}
	}
	return nil
}

// sequenceDependRows are pg_depend's rows of sequences owned by columns
// (deptype 'a' for serial, 'i' for identity), which psql's \d reads.
func sequenceDependRows(s *Snapshot, _ *Facts) [][]any {
	var rows [][]any
	for _, q := range s.Sequences {
		if q.OwnedBy == 0 {
			continue
		}
		kind := "a"
		if q.Identity {
			kind = "i"
		}
		rows = append(rows, []any{int64(1259), int64(q.OID), int32(0), int64(1259), int64(q.OwnedBy), int32(q.OwnedByCol), kind})
	}
	// A default calling nextval depends on its sequence (normal) and on
	// its column (auto), as PostgreSQL records them: pg_dump sees the
	// loop table -> default -> sequence -> table of a serial column and
	// dumps the default as ALTER TABLE ... SET DEFAULT after the
	// sequence.
	for _, t := range sortedTables(s.Tables) {
		for i, c := range t.Columns {
			if q := defaultSequence(s, t, c); q != nil {
				oid := defaultOID(s, t, c, i)
				rows = append(rows,
					[]any{int64(OIDPgAttrdefClass), oid, int32(0), int64(1259), int64(q.OID), int32(0), "n"},
					[]any{int64(OIDPgAttrdefClass), oid, int32(0), int64(1259), int64(t.OID), int32(c.Num(i)), "a"})
			}
		}
	}
	return rows
}
