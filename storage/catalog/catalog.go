package catalog

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/bsdb/bsdb-pg/acl"
	"github.com/bsdb/bsdb-pg/storage/objstore"
)

// Sentinel errors (test with errors.Is).
var (
	ErrNotFound = errors.New("catalog: not found")
	ErrExists   = errors.New("catalog: already exists")
	// ErrNotEmpty: DropDatabase / DropSchema without cascade on a non-empty
	// container.
	ErrNotEmpty = errors.New("catalog: not empty")
	// ErrInvalidName: an empty name.
	ErrInvalidName = errors.New("catalog: invalid name")
	// ErrPrefixInUse: CreateTable found a manifest left at the table's prefix
	// (a dropped table whose files were not deleted yet).
	ErrPrefixInUse = errors.New("catalog: table prefix still holds a manifest")
)

// FirstOID is the first OID handed out, as for PostgreSQL user objects.
const FirstOID = 16384

// DefaultSchema is created with every database.
const DefaultSchema = "public"

// TableID names a table.
type TableID struct{ Database, Schema, Name string }

func (id TableID) String() string { return id.Database + "." + id.Schema + "." + id.Name }

// Entry is a table's catalog record. Part of the on-disk format.
type Entry struct {
	ID   TableID `json:"id"`
	UUID string  `json:"uuid"`
	// OID is stable, assigned at creation, unique in the warehouse.
	OID uint32 `json:"oid"`
	// Prefix is the table key prefix: {db}/{schema}/{name}, each segment
	// escaped (see EscapeName).
	Prefix    string `json:"prefix"`
	CreatedMS int64  `json:"created_ms"`
	// Owner is the owning role's OID (relowner); records written before
	// owners existed read as the bootstrap superuser's.
	Owner uint32 `json:"owner,omitempty"`
	// ACL is the table's access control list (relacl); nil = the default.
	ACL acl.ACL `json:"acl"`
	// Kind is the relation's kind: "" a table, KindView a view. Tables
	// and views share one namespace (and one key space), as PostgreSQL's
	// pg_class does.
	Kind string `json:"kind,omitempty"`
	// View is a view's definition (Kind KindView); a view has no Prefix.
	View *ViewDef `json:"view,omitempty"`
	// Creating: a table of CREATE TABLE AS still being filled (created
	// with Creating, cleared by FinishCreate). An entry left so by a crash
	// is no table: it does not open, and a CREATE of its name replaces it.
	Creating bool `json:"creating,omitempty"`
	// PrimaryKey is a primary key added after creation (ALTER TABLE ...
	// ADD PRIMARY KEY): its columns in key order and its constraint name
	// ("" = table_pkey). A key declared by CREATE TABLE is in the table's
	// schema instead (PrimaryKeyName then names it after a rename of the
	// table: the key keeps its name). Informational: not enforced.
	PrimaryKey     []string `json:"primary_key,omitempty"`
	PrimaryKeyName string   `json:"primary_key_name,omitempty"`
	// SchemaKeyDropped: the key of the table's schema was dropped (ALTER
	// TABLE ... DROP CONSTRAINT); the table has none unless PrimaryKey.
	SchemaKeyDropped bool `json:"schema_key_dropped,omitempty"`
	// Indexes are the table's indexes (CREATE INDEX), in creation order.
	// They are recorded for the catalogs, psql, pg_dump and migration
	// tools; queries and writes do not use them.
	Indexes []IndexDef `json:"indexes,omitempty"`
	// Checks are the table's CHECK constraints, in creation order;
	// enforced on every write.
	Checks []CheckDef `json:"checks,omitempty"`
	// ForeignKeys are the table's FOREIGN KEY constraints, in creation
	// order. Recorded for the catalogs, psql, drivers, ORMs and pg_dump;
	// not enforced.
	ForeignKeys []ForeignKeyDef `json:"foreign_keys,omitempty"`
	// RenamedFrom is set while a rename (RenameTable) is not finished:
	// the relation's entry before it. While that entry still exists with
	// the same UUID the rename did not happen and this entry is no
	// relation; once it is gone, this one is the relation (the flag is
	// cleared by the rename's last step).
	RenamedFrom *TableID `json:"renamed_from,omitempty"`
	// Comment is COMMENT ON TABLE/VIEW's text; ColumnComments COMMENT ON
	// COLUMN's, by column name.
	Comment        string            `json:"comment,omitempty"`
	ColumnComments map[string]string `json:"column_comments,omitempty"`
}

// IndexDef is an index of a table. Part of the on-disk format.
type IndexDef struct {
	Name string `json:"name"`
	// OID is the index's relation OID (pg_class.oid, pg_index.indexrelid).
	OID uint32 `json:"oid"`
	// Method is the access method: btree, hash, gist, gin, brin, spgist.
	Method string `json:"method"`
	// Keys are the key columns, in order; Include the INCLUDE columns.
	Keys    []IndexKey `json:"keys"`
	Include []string   `json:"include,omitempty"`
	// Where is the predicate of a partial index, PostgreSQL text.
	Where string `json:"where,omitempty"`
	// Comment is COMMENT ON INDEX's text.
	Comment string `json:"comment,omitempty"`
	// Unique: a unique index (CREATE UNIQUE INDEX, or a UNIQUE
	// constraint's), enforced. Constraint: the index of a UNIQUE
	// constraint, whose pg_constraint OID is ConstraintOID; it is
	// dropped with the constraint, not by DROP INDEX.
	Unique        bool   `json:"unique,omitempty"`
	Constraint    bool   `json:"constraint,omitempty"`
	ConstraintOID uint32 `json:"constraint_oid,omitempty"`
}

// CheckDef is a CHECK constraint. Part of the on-disk format.
type CheckDef struct {
	Name string `json:"name"`
	// OID is the constraint's OID (pg_constraint.oid).
	OID uint32 `json:"oid"`
	// Expr is the condition, PostgreSQL text over the table's columns.
	Expr string `json:"expr"`
	// NotValid: ADD CONSTRAINT ... NOT VALID (rows before it were not
	// checked).
	NotValid bool `json:"not_valid,omitempty"`
}

// ForeignKeyDef is a FOREIGN KEY constraint. Part of the on-disk format.
type ForeignKeyDef struct {
	Name string `json:"name"`
	// OID is the constraint's OID (pg_constraint.oid).
	OID uint32 `json:"oid"`
	// Columns reference RefColumns of RefTable (its primary key's
	// columns, in the key's order when none were named).
	Columns    []string `json:"columns"`
	RefTable   TableID  `json:"ref_table"`
	RefColumns []string `json:"ref_columns"`
	// OnUpdate, OnDelete: pg_constraint's confupdtype / confdeltype codes
	// (a no action, r restrict, c cascade, n set null, d set default);
	// Match its confmatchtype (s simple, f full).
	OnUpdate string `json:"on_update"`
	OnDelete string `json:"on_delete"`
	Match    string `json:"match"`
	// Deferrable, Deferred: DEFERRABLE, INITIALLY DEFERRED.
	Deferrable bool `json:"deferrable,omitempty"`
	Deferred   bool `json:"deferred,omitempty"`
	// NotValid: ADD CONSTRAINT ... NOT VALID.
	NotValid bool `json:"not_valid,omitempty"`
}

// IndexKey is one key of an index: a column, or an expression (PostgreSQL
// text), with its ordering options as written ("DESC", "NULLS FIRST", ...).
type IndexKey struct {
	Column  string `json:"column,omitempty"`
	Expr    string `json:"expr,omitempty"`
	Options string `json:"options,omitempty"`
}

// IndexNamed returns the index of e named name, or nil.
func (e *Entry) IndexNamed(name string) *IndexDef {
	for i := range e.Indexes {
		if e.Indexes[i].Name == name {
			return &e.Indexes[i]
		}
	}
	return nil
}

// EffectiveKey is the table's primary key given the one of its schema
// (CREATE TABLE's): its columns and constraint name ("" = table_pkey).
func (e *Entry) EffectiveKey(schemaKey []string) ([]string, string) {
	switch {
	case len(e.PrimaryKey) > 0:
		return e.PrimaryKey, e.PrimaryKeyName
	case e.SchemaKeyDropped:
		return nil, ""
	}
	return schemaKey, e.PrimaryKeyName
}

// KindView is Entry.Kind of a view (PostgreSQL's relkind 'v').
const KindView = "v"

// IsView reports whether the entry is a view.
func (e *Entry) IsView() bool { return e.Kind == KindView }

// ViewDef is a view's stored definition. Part of the on-disk format.
type ViewDef struct {
	// Query is the view's SELECT as PostgreSQL text, every relation it
	// reads qualified with its schema (so that it means the same whatever
	// the reader's search_path).
	Query string `json:"query"`
	// Columns are the view's columns: names (the column list of CREATE
	// VIEW, else the query's) and PostgreSQL types.
	Columns []ViewColumn `json:"columns"`
	// Deps are the relations (tables and views of the same database) the
	// query reads: DROP of one of them without CASCADE is refused.
	Deps []TableID `json:"deps,omitempty"`
}

// ViewColumn is one column of a view.
type ViewColumn struct {
	Name    string `json:"name"`
	TypeOID uint32 `json:"type"`
	TypeMod int32  `json:"typmod"`
}

// Container is the record of a database or a schema. Part of the on-disk
// format.
type Container struct {
	Name      string `json:"name"`
	Database  string `json:"database,omitempty"` // schemas only
	CreatedMS int64  `json:"created_ms"`
	// UUID makes every record unique, so that reading back "our own bytes"
	// after an ambiguous create can never mistake someone else's record.
	UUID string `json:"uuid"`
	// Owner is the owning role's OID (datdba, nspowner); ACL the access
	// control list (datacl, nspacl), nil = the default. Records written
	// before owners existed read as owned by the bootstrap superuser, and
	// schema public as owned by pg_database_owner with initdb's ACL.
	Owner uint32  `json:"owner,omitempty"`
	ACL   acl.ACL `json:"acl"`
}

// normalize fills the owner of a record written before owners existed.
func (c *Container) normalize() {
	if c.Owner != 0 {
		return
	}
	if c.Database != "" && c.Name == DefaultSchema {
		c.Owner = acl.RoleDatabaseOwner
		if c.ACL == nil {
			c.ACL = PublicSchemaACL()
		}
		return
	}
	c.Owner = acl.BootstrapSuperuser
}

func (e *Entry) normalize() {
	if e.Owner == 0 {
		e.Owner = acl.BootstrapSuperuser
	}
}

// PublicSchemaACL is the ACL initdb gives schema public in PostgreSQL 15:
// {pg_database_owner=UC/pg_database_owner,=U/pg_database_owner}.
func PublicSchemaACL() acl.ACL {
	o := acl.RoleDatabaseOwner
	return acl.ACL{{Grantee: o, Grantor: o, Mode: acl.Usage | acl.Create}, {Grantee: acl.Public, Grantor: o, Mode: acl.Usage}}
}

// CreateOption configures a create.
type CreateOption func(*createOptions)

type createOptions struct {
	owner    uint32
	ownerSet bool
	creating bool
	entry    []func(*Entry)
}

// WithEntry applies fn to a created table's entry before it is stored
// (constraints declared by CREATE TABLE).
func WithEntry(fn func(*Entry)) CreateOption {
	return func(o *createOptions) { o.entry = append(o.entry, fn) }
}

// Creating marks a created table as being filled (Entry.Creating).
func Creating() CreateOption {
	return func(o *createOptions) { o.creating = true }
}

// OwnedBy makes role the owner of the created object (default: the
// bootstrap superuser).
func OwnedBy(role uint32) CreateOption {
	return func(o *createOptions) { o.owner, o.ownerSet = role, true }
}

func applyCreate(opts []CreateOption) createOptions {
	o := createOptions{owner: acl.BootstrapSuperuser}
	for _, f := range opts {
		f(&o)
	}
	return o
}

// Catalog is the warehouse catalog on an object store. It holds no state:
// every call reads the store, so several processes may share a warehouse.
type Catalog struct {
	store objstore.Store
	now   func() time.Time
}

// New returns a catalog stored under _catalog/ in store.
func New(store objstore.Store) *Catalog { return &Catalog{store: store, now: time.Now} }

const root = "_catalog/"

func dbKey(db string) string             { return root + "databases/" + EscapeName(db) + ".json" }
func schemaDir(db string) string         { return root + "schemas/" + EscapeName(db) + "/" }
func schemaKey(db, s string) string      { return schemaDir(db) + EscapeName(s) + ".json" }
func tableDir(db string) string          { return root + "tables/" + EscapeName(db) + "/" }
func tableSchemaDir(db, s string) string { return tableDir(db) + EscapeName(s) + "/" }
func tableKey(id TableID) string {
	return tableSchemaDir(id.Database, id.Schema) + EscapeName(id.Name) + ".json"
}
func oidKey() string   { return root + "oid-counter" }
func rolesKey() string { return root + "roles.json" }

// TablePrefix is the key prefix of a table's files.
func TablePrefix(id TableID) string {
	return EscapeName(id.Database) + "/" + EscapeName(id.Schema) + "/" + EscapeName(id.Name)
}

// EscapeName makes a name safe as one key segment: ASCII letters, digits,
// '_' and '-' stay; every other byte becomes %XX (uppercase hex). The
// mapping is injective, so distinct names never share a key, and "." and
// ".." cannot occur.
func EscapeName(name string) string {
	var b strings.Builder
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '_', c == '-':
			b.WriteByte(c)
		default:
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

// UnescapeName inverts EscapeName.
func UnescapeName(s string) (string, error) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '%' {
			b.WriteByte(s[i])
			continue
		}
		if i+2 >= len(s) {
			return "", fmt.Errorf("%w: bad escape in %q", ErrInvalidName, s)
		}
		n, err := strconv.ParseUint(s[i+1:i+3], 16, 8)
		if err != nil {
			return "", fmt.Errorf("%w: bad escape in %q", ErrInvalidName, s)
		}
		b.WriteByte(byte(n))
		i += 2
	}
	return b.String(), nil
}

func checkNames(names ...string) error {
	for _, n := range names {
		if n == "" {
			return fmt.Errorf("%w: empty name", ErrInvalidName)
		}
	}
	return nil
}

// create writes v at key with create-if-not-exists: ErrExists if present.
// An ambiguous failure is resolved by reading back our own bytes; every
// record carries a fresh UUID, so equal bytes mean our write landed.
func (c *Catalog) create(ctx context.Context, key, what string, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("catalog: encode %s: %w", what, err)
	}
	_, err = c.store.PutIfAbsent(ctx, key, data)
	if err == nil {
		return nil
	}
	if got, _, gerr := c.store.Get(ctx, key); gerr == nil && string(got) == string(data) {
		return nil // our own write landed
	}
	if errors.Is(err, objstore.ErrExists) {
		return fmt.Errorf("%w: %s: %w", ErrExists, what, err)
	}
	return fmt.Errorf("catalog: create %s: %w", what, err)
}

func (c *Catalog) exists(ctx context.Context, key string) (bool, error) {
	_, _, err := c.store.Get(ctx, key)
	if errors.Is(err, objstore.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("catalog: read %s: %w", key, err)
	}
	return true, nil
}

// names lists the escaped .json names directly under dir, unescaped.
func (c *Catalog) names(ctx context.Context, dir string) ([]string, error) {
	infos, err := c.store.List(ctx, dir)
	if err != nil {
		return nil, fmt.Errorf("catalog: list %s: %w", dir, err)
	}
	var out []string
	for _, i := range infos {
		rest := strings.TrimPrefix(i.Key, dir)
		if strings.Contains(rest, "/") {
			continue
		}
		esc, ok := strings.CutSuffix(rest, ".json")
		if !ok {
			continue
		}
		n, err := UnescapeName(esc)
		if err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	sort.Strings(out)
	return out, nil
}

// AllocOID hands out a fresh OID (unique in the warehouse, never reused).
func (c *Catalog) AllocOID(ctx context.Context) (uint32, error) { return c.allocOID(ctx) }

// allocOID takes the next OID from the counter object with a
// compare-and-swap (PutIfAbsent when the counter does not exist yet).
func (c *Catalog) allocOID(ctx context.Context) (uint32, error) {
	for attempt := 0; attempt < 256; attempt++ {
		data, v, err := c.store.Get(ctx, oidKey())
		if errors.Is(err, objstore.ErrNotFound) {
			_, err = c.store.PutIfAbsent(ctx, oidKey(), []byte(strconv.Itoa(FirstOID+1)))
			if err == nil {
				return FirstOID, nil
			}
			if errors.Is(err, objstore.ErrExists) {
				continue
			}
			return 0, fmt.Errorf("catalog: oid counter: %w", err)
		}
		if err != nil {
			return 0, fmt.Errorf("catalog: oid counter: %w", err)
		}
		next, err := strconv.ParseUint(strings.TrimSpace(string(data)), 10, 32)
		if err != nil || next < FirstOID {
			return 0, fmt.Errorf("catalog: oid counter holds %q", data)
		}
		if next == 1<<32-1 {
			return 0, errors.New("catalog: OIDs exhausted")
		}
		_, err = c.store.PutIfMatch(ctx, oidKey(), []byte(strconv.FormatUint(next+1, 10)), v)
		if err == nil {
			return uint32(next), nil
		}
		if !errors.Is(err, objstore.ErrPrecondition) {
			// Ambiguous: the OID may be burnt; taking the next one is safe.
			return 0, fmt.Errorf("catalog: oid counter: %w", err)
		}
	}
	return 0, errors.New("catalog: oid counter: too much contention")
}
