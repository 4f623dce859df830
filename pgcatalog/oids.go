package pgcatalog

import (
	"hash/fnv"
	"sort"
)

// SchemaOID is the OID of a schema: PostgreSQL's for the built-in ones, and
// for user schemas a stable hash of the name in [2^30, 2^31) (our storage
// catalog keeps no schema OIDs; table OIDs are allocated from 16384 up, so
// the ranges cannot meet).
func SchemaOID(name string) uint32 {
	switch name {
	case "pg_catalog":
		return OIDPgCatalog
	case "public":
		return OIDPublic
	case "information_schema":
		return OIDInfoSchema
	}
	h := fnv.New32a()
	h.Write([]byte(name))
	return 1<<30 | h.Sum32()&(1<<30-1)
}

// DatabaseOID is a database's stable OID, same scheme as SchemaOID
// ("postgres" keeps PostgreSQL's 5).
func DatabaseOID(name string) uint32 {
	if name == "postgres" {
		return 5
	}
	h := fnv.New32a()
	h.Write([]byte("db:" + name))
	return 1<<30 | h.Sum32()&(1<<30-1)
}

// PKIndexOID and PKConstraintOID derive the OIDs of a table's primary key
// index and constraint from the table's OID (which is < 2^30).
func PKIndexOID(table uint32) uint32      { return table | 1<<31 }
func PKConstraintOID(table uint32) uint32 { return table | 1<<31 | 1<<30 }

// systemRelOIDs are PostgreSQL's OIDs for the catalogs that have fixed
// ones; other system relations get 12000 + their rank in name order.
var systemRelOIDs = map[string]uint32{
	"pg_catalog.pg_type": 1247, "pg_catalog.pg_attribute": 1249, "pg_catalog.pg_proc": 1255,
	"pg_catalog.pg_class": 1259, "pg_catalog.pg_authid": 1260, "pg_catalog.pg_database": 1262,
	"pg_catalog.pg_namespace": 2615, "pg_catalog.pg_constraint": 2606, "pg_catalog.pg_index": 2610,
	"pg_catalog.pg_attrdef": 2604, "pg_catalog.pg_description": 2609, "pg_catalog.pg_am": 2601,
	"pg_catalog.pg_inherits": 2611, "pg_catalog.pg_tablespace": 1213, "pg_catalog.pg_collation": 3456,
	"pg_catalog.pg_extension": 3079, "pg_catalog.pg_enum": 3501, "pg_catalog.pg_range": 3541,
	"pg_catalog.pg_language": 2612, "pg_catalog.pg_shdescription": 2396, "pg_catalog.pg_operator": 2617,
	"pg_catalog.pg_cast": 2605, "pg_catalog.pg_aggregate": 2600, "pg_catalog.pg_opclass": 2616,
	"pg_catalog.pg_opfamily": 2753, "pg_catalog.pg_amop": 2602, "pg_catalog.pg_amproc": 2603,
	"pg_catalog.pg_conversion": 2607, "pg_catalog.pg_db_role_setting": 2964, "pg_catalog.pg_default_acl": 826,
	"pg_catalog.pg_depend": 2608, "pg_catalog.pg_event_trigger": 3466, "pg_catalog.pg_foreign_data_wrapper": 2328,
	"pg_catalog.pg_foreign_server": 1417, "pg_catalog.pg_foreign_table": 3118, "pg_catalog.pg_init_privs": 3394,
	"pg_catalog.pg_largeobject_metadata": 2995, "pg_catalog.pg_parameter_acl": 6243,
	"pg_catalog.pg_partitioned_table": 3350, "pg_catalog.pg_policy": 3256, "pg_catalog.pg_publication": 6104,
	"pg_catalog.pg_publication_namespace": 6237, "pg_catalog.pg_publication_rel": 6106, "pg_catalog.pg_rewrite": 2618,
	"pg_catalog.pg_seclabel": 3596, "pg_catalog.pg_sequence": 2224, "pg_catalog.pg_shdepend": 1214,
	"pg_catalog.pg_shseclabel": 3592, "pg_catalog.pg_statistic_ext": 3381, "pg_catalog.pg_subscription": 6100,
	"pg_catalog.pg_transform": 3576, "pg_catalog.pg_trigger": 2620, "pg_catalog.pg_ts_config": 3602,
	"pg_catalog.pg_ts_config_map": 3603, "pg_catalog.pg_ts_dict": 3600, "pg_catalog.pg_ts_parser": 3601,
	"pg_catalog.pg_ts_template": 3764, "pg_catalog.pg_user_mapping": 1418,
}

// RelationOID is the pg_class OID of the system relation schema.name (0 if
// there is none): what its system column tableoid holds.
func RelationOID(schema, name string) uint32 {
	key := schema + "." + name
	for i, k := range sortedKeys() {
		if k == key {
			return systemRelOID(k, i)
		}
	}
	return 0
}

func systemRelOID(key string, rank int) uint32 {
	if o, ok := systemRelOIDs[key]; ok {
		return o
	}
	return 12000 + uint32(rank)
}

func sortedTables(ts []Table) []Table {
	out := append([]Table(nil), ts...)
	sort.Slice(out, func(i, j int) bool { return out[i].OID < out[j].OID })
	return out
}

// SystemRelation names the system relation (pg_catalog or
// information_schema) whose pg_class OID is oid.
func SystemRelation(oid uint32) (schema, name string, ok bool) {
	for i, k := range sortedKeys() {
		r := registry[k]
		if r.schema == "bsdb_internal" {
			continue
		}
		if systemRelOID(k, i) == oid {
			return r.schema, r.name, true
		}
	}
	return "", "", false
}
