package catalog

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/bsdb/bsdb-pg/acl"
	"github.com/bsdb/bsdb-pg/storage/objstore"
)

// Role is one role of the warehouse (a row of pg_authid). Part of the
// on-disk format.
type Role struct {
	OID         uint32 `json:"oid"`
	Name        string `json:"name"`
	Super       bool   `json:"super,omitempty"`
	Inherit     bool   `json:"inherit"`
	CreateRole  bool   `json:"createrole,omitempty"`
	CreateDB    bool   `json:"createdb,omitempty"`
	Login       bool   `json:"login,omitempty"`
	Replication bool   `json:"replication,omitempty"`
	BypassRLS   bool   `json:"bypassrls,omitempty"`
	ConnLimit   int32  `json:"connlimit"`
	// Password is rolpassword: a SCRAM-SHA-256 verifier
	// ("SCRAM-SHA-256$4096:salt$StoredKey:ServerKey"), an MD5 hash
	// ("md5" + hex), or "" for none. Never a cleartext password.
	Password string `json:"password,omitempty"`
	// ValidUntil is rolvaliduntil, a timestamptz in PostgreSQL's form:
	// microseconds since 2000-01-01 UTC (math.MaxInt64 = infinity,
	// math.MinInt64 = -infinity), or nil for none.
	ValidUntil *int64 `json:"valid_until,omitempty"`
}

// RoleMember is one membership (pg_auth_members): Member is a member of
// Role, granted by Grantor, with ADMIN OPTION when Admin.
type RoleMember struct {
	Role    uint32 `json:"role"`
	Member  uint32 `json:"member"`
	Grantor uint32 `json:"grantor"`
	Admin   bool   `json:"admin,omitempty"`
}

// Roles is every role and membership of a warehouse, stored as one object
// (_catalog/roles.json) changed by compare-and-swap: role names are unique
// and every change (a rename, a membership) is atomic. PostgreSQL's
// predefined roles (acl.Predefined) are not stored.
type Roles struct {
	Roles   []Role       `json:"roles"`
	Members []RoleMember `json:"members"`
}

// BootstrapRoles is the role set of a fresh warehouse: the superuser
// "postgres" (OID 10), as initdb -U postgres creates it.
func BootstrapRoles() *Roles {
	return &Roles{Roles: []Role{{OID: acl.BootstrapSuperuser, Name: "postgres", Super: true, Inherit: true, CreateRole: true,
		CreateDB: true, Login: true, Replication: true, BypassRLS: true, ConnLimit: -1}}}
}

// ByName returns the role named name, or nil.
func (r *Roles) ByName(name string) *Role {
	for i := range r.Roles {
		if r.Roles[i].Name == name {
			return &r.Roles[i]
		}
	}
	return nil
}

// ByOID returns the role with that OID, or nil.
func (r *Roles) ByOID(oid uint32) *Role {
	for i := range r.Roles {
		if r.Roles[i].OID == oid {
			return &r.Roles[i]
		}
	}
	return nil
}

// Clone returns a deep copy.
func (r *Roles) Clone() *Roles {
	c := &Roles{Roles: append([]Role(nil), r.Roles...), Members: append([]RoleMember(nil), r.Members...)}
	for i := range c.Roles {
		if v := c.Roles[i].ValidUntil; v != nil {
			x := *v
			c.Roles[i].ValidUntil = &x
		}
	}
	return c
}

// ReadRoles returns the warehouse's roles (BootstrapRoles until the first
// change is stored).
func (c *Catalog) ReadRoles(ctx context.Context) (*Roles, error) {
	r, _, err := c.readRoles(ctx)
	return r, err
}

func (c *Catalog) readRoles(ctx context.Context) (*Roles, objstore.Version, error) {
	data, v, err := c.store.Get(ctx, rolesKey())
	if errors.Is(err, objstore.ErrNotFound) {
		return BootstrapRoles(), "", nil
	}
	if err != nil {
		return nil, "", fmt.Errorf("catalog: read roles: %w", err)
	}
	var r Roles
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, "", fmt.Errorf("catalog: roles: corrupt record: %w", err)
	}
	return &r, v, nil
}

// UpdateRoles changes the roles with fn, atomically: fn gets the current
// roles and changes them in place; if another process changed them
// meanwhile, fn runs again on the new state. fn's error is returned as is
// and nothing is written. It returns the roles as written.
func (c *Catalog) UpdateRoles(ctx context.Context, fn func(*Roles) error) (*Roles, error) {
	for attempt := 0; attempt < 64; attempt++ {
		r, v, err := c.readRoles(ctx)
		if err != nil {
			return nil, err
		}
		if err := fn(r); err != nil {
			return nil, err
		}
		data, err := json.Marshal(r)
		if err != nil {
			return nil, fmt.Errorf("catalog: encode roles: %w", err)
		}
		if v == "" {
			_, err = c.store.PutIfAbsent(ctx, rolesKey(), data)
		} else {
			_, err = c.store.PutIfMatch(ctx, rolesKey(), data, v)
		}
		if err == nil {
			return r, nil
		}
		if errors.Is(err, objstore.ErrPrecondition) || errors.Is(err, objstore.ErrExists) {
			continue
		}
		if got, _, gerr := c.store.Get(ctx, rolesKey()); gerr == nil && bytes.Equal(got, data) {
			return r, nil
		}
		return nil, fmt.Errorf("catalog: update roles: %w", err)
	}
	return nil, errors.New("catalog: update roles: too much contention")
}
