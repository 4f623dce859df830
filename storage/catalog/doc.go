// Package catalog records the databases, schemas and tables of a warehouse,
// as small JSON objects under _catalog/ in the warehouse's object store. It
// holds no state: several processes may share one warehouse.
//
// # Layout
//
//	_catalog/databases/{db}.json             {"name","created_ms","uuid","owner","acl"}
//	_catalog/schemas/{db}/{schema}.json      {"name","database","created_ms","uuid","owner","acl"}
//	_catalog/tables/{db}/{schema}/{name}.json  Entry: {"id":{"Database","Schema","Name"},
//	                                         "uuid","oid","prefix","created_ms","owner","acl"}
//	_catalog/roles.json                      Roles: {"roles":[...],"members":[...]}
//	_catalog/oid-counter                     decimal: the next OID to hand out
//
// "owner" is the owning role's OID; "acl" the object's access control list
// as aclitems with role OIDs ("16384=r*w/10", "=Tc/10" for PUBLIC; package
// acl), null for the default ACL. Records written before owners existed
// lack both: they read as owned by the bootstrap superuser (OID 10), and
// schema public as owned by pg_database_owner with initdb's ACL.
//
// A view is an Entry of the tables' key space with "kind":"v" and "view"
// (its qualified query text, columns and the relations it reads), no
// prefix and no files: tables and views share one namespace, created with
// the same create-if-not-exists. ListTables returns tables only,
// ListRelations both. A table of CREATE TABLE AS is created with
// "creating":true and cleared once filled; the server opens such a left
// over entry as no table.
//
// Names are escaped into one key segment by EscapeName (ASCII letters,
// digits, '_' and '-' kept, every other byte %XX): injective, and no name
// can produce "/", "." or "..". A table's files live under its Prefix,
// {db}/{schema}/{name} with the same escaping.
//
// # Invariants
//
//   - Every record is created with create-if-not-exists: of two processes
//     creating the same database, schema or table, exactly one wins; the
//     other gets ErrExists. Each record carries a fresh UUID, so an
//     ambiguous create is resolved by reading back our own bytes.
//   - OIDs are allocated from _catalog/oid-counter by compare-and-swap
//     (PutIfMatch; PutIfAbsent for the first), starting at 16384 like
//     PostgreSQL user objects: unique in the warehouse, never reused. A
//     lost CreateTable burns its OID.
//   - CreateDatabase also creates the "public" schema.
//   - DropTable removes only the entry; the caller deletes the files.
//     CreateTable refuses (ErrPrefixInUse) while a _manifest object remains
//     at the prefix, so a re-created table never resurrects old rows.
//   - DropDatabase refuses while the database has tables (ErrNotEmpty);
//     DropSchema refuses unless cascade, which removes the table entries.
//   - CreateDatabase writes the new database's public schema record whole,
//     over any record left by an interrupted DROP of an earlier database of
//     that name, so old grants never come back.
//   - Owners and ACLs change with UpdateDatabase / UpdateSchema /
//     UpdateTable: a compare-and-swap (PutIfMatch) of the one record, rerun
//     on the new state when another process changed it meanwhile.
//   - Roles: every role and membership of the warehouse is one object,
//     changed by compare-and-swap (UpdateRoles): names are unique, a rename
//     or a membership change is atomic, concurrent changes of several
//     processes are serialized. Until the first change the warehouse has
//     the bootstrap superuser "postgres" (OID 10). Passwords are stored as
//     SCRAM-SHA-256 verifiers or MD5 hashes, never in cleartext. Role OIDs
//     come from the OID counter; PostgreSQL's predefined roles
//     (pg_read_all_data, ...) are not stored.
//
// Known debt: creating a table races with dropping its schema (the check
// and the create are two operations), which can leave an entry under a
// dropped schema; ListTables still shows it and DropTable removes it.
package catalog
