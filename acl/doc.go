// Package acl is PostgreSQL's privilege model, as pure functions over
// values: privilege bits (AclMode), access control lists of aclitems
// (grantee=privileges/grantor), the default ACL of each kind of object
// (acldefault), GRANT and REVOKE on a list (aclupdate, recursive_revoke),
// the privileges a role holds through a list (aclmask), and role
// membership with INHERIT (has_privs_of_role, is_member_of_role). It knows
// nothing of storage: the catalog stores ACLs and roles, the server checks
// statements with this package.
//
// # Semantics (PostgreSQL 15)
//
//   - An ACL is a list of items; nil means the object's default ACL, which
//     Default computes from its owner: a table's owner has arwdDxt and
//     PUBLIC nothing; a schema's owner UC; a database's owner CTc and
//     PUBLIC Tc (=Tc/owner first, as acldefault lists it).
//   - Grant adds privileges to the item of (grantee, grantor), appending a
//     new item when there is none; Revoke removes them from that item and
//     drops items left empty. Revoking a grant option that others' grants
//     depend on fails with 2BP01 "dependent privileges exist" unless
//     CASCADE, which revokes those grants too (recursively).
//   - Mask: a superuser holds every privilege; the owner (and every role
//     with the owner's privileges) holds every grant option; otherwise a
//     role holds the union of the items for itself, for PUBLIC and for the
//     roles whose privileges it has. Members of pg_read_all_data hold
//     SELECT on every table and USAGE on every schema, members of
//     pg_write_all_data INSERT, UPDATE, DELETE and USAGE.
//   - A role has the privileges of another when it is that role, a
//     superuser, or reaches it through memberships, each step taken only
//     from a role that has INHERIT. The owner of the current database is
//     implicitly a member of pg_database_owner. Membership (SET ROLE,
//     ALTER ... OWNER TO) ignores INHERIT.
//
// # Text forms
//
// Format writes an aclitem as PostgreSQL prints it: grantee (empty for
// PUBLIC, double-quoted when it holds other than letters, digits and '_'),
// '=', the privilege letters in the order "arwdDxtXUCTcsA" each followed
// by '*' when held with grant option, '/', grantor. The catalog stores the
// same form with role OIDs in place of names (MarshalText), so that a
// renamed role keeps its grants.
package acl
