package pgcatalog

// initPrivsRows are initdb's privileges of the built-in objects that have
// an ACL (schemas pg_catalog and public, the functions whose proacl is
// set): pg_dump dumps only how an object's ACL differs from them.
func initPrivsRows(*Snapshot, *Facts) [][]any {
	rows := [][]any{
		{int64(OIDPgCatalog), int64(systemRelOIDs["pg_catalog.pg_namespace"]), int32(0), "i", aclArray(systemSchemaACL)},
		{int64(OIDPublic), int64(systemRelOIDs["pg_catalog.pg_namespace"]), int32(0), "i", aclArray(publicSchemaACL)},
	}
	for _, p := range procs() {
		if acl := p.strings(pACL); acl != nil {
			rows = append(rows, []any{p.int(pOID), int64(systemRelOIDs["pg_catalog.pg_proc"]), int32(0), "i", acl})
		}
	}
	return rows
}

// The catalogs pg_dump 15 reads that hold no object of ours: it reads each
// of them (with their system column tableoid) before it dumps anything, so
// each must exist with PostgreSQL's columns, empty. Built-in rows that
// pg_dump never dumps (the text search objects and conversions of
// pg_catalog) are left out.
func init() {
	register("pg_catalog", "pg_init_privs", true, "objoid:oid classoid:oid objsubid:int4 privtype:char initprivs:text[]", initPrivsRows)
	register("pg_catalog", "pg_default_acl", true, "oid:oid defaclrole:oid defaclnamespace:oid defaclobjtype:char defaclacl:text[]", none)
	register("pg_catalog", "pg_ts_parser", true, `oid:oid prsname:name prsnamespace:oid prsstart:regproc prstoken:regproc
		prsend:regproc prsheadline:regproc prslextype:regproc`, none)
	register("pg_catalog", "pg_ts_template", true, "oid:oid tmplname:name tmplnamespace:oid tmplinit:regproc tmpllexize:regproc", none)
	register("pg_catalog", "pg_ts_dict", true, "oid:oid dictname:name dictnamespace:oid dictowner:oid dicttemplate:oid dictinitoption:text", none)
	register("pg_catalog", "pg_ts_config", true, "oid:oid cfgname:name cfgnamespace:oid cfgowner:oid cfgparser:oid", none)
	register("pg_catalog", "pg_ts_config_map", true, "mapcfg:oid maptokentype:int4 mapseqno:int4 mapdict:oid", none)
	register("pg_catalog", "pg_conversion", true, `oid:oid conname:name connamespace:oid conowner:oid conforencoding:int4
		contoencoding:int4 conproc:regproc condefault:bool`, none)
	register("pg_catalog", "pg_transform", true, "oid:oid trftype:oid trflang:oid trffromsql:regproc trftosql:regproc", none)
	register("pg_catalog", "pg_subscription", true, `oid:oid subdbid:oid subskiplsn:text subname:name subowner:oid
		subenabled:bool subbinary:bool substream:bool subtwophasestate:char subdisableonerr:bool subconninfo:text
		subslotname:name subsynccommit:text subpublications:text[]`, none)
	register("pg_catalog", "pg_largeobject_metadata", true, "oid:oid lomowner:oid lomacl:text[]", none)
	register("pg_catalog", "pg_seclabel", true, "objoid:oid classoid:oid objsubid:int4 provider:text label:text", none)
	register("pg_catalog", "pg_shseclabel", true, "objoid:oid classoid:oid provider:text label:text", none)
	register("pg_catalog", "pg_seclabels", true, `objoid:oid classoid:oid objsubid:int4 objtype:text objnamespace:oid
		objname:text provider:text label:text`, none)
	register("pg_catalog", "pg_db_role_setting", true, "setdatabase:oid setrole:oid setconfig:text[]", none)
	register("pg_catalog", "pg_user_mapping", true, "oid:oid umuser:oid umserver:oid umoptions:text[]", none)
	register("pg_catalog", "pg_shdepend", true, `dbid:oid classid:oid objid:oid objsubid:int4 refclassid:oid
		refobjid:oid deptype:char`, none)
	register("pg_catalog", "pg_parameter_acl", true, "oid:oid parname:text paracl:text[]", none)
}
