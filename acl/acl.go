package acl

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Mode is a set of privileges, PostgreSQL's AclMode: the privilege bits in
// the low 16 bits, the matching grant options in the high 16.
type Mode uint32

// Privilege bits, as PostgreSQL numbers them (parsenodes.h).
const (
	Insert     Mode = 1 << 0 // a
	Select     Mode = 1 << 1 // r
	Update     Mode = 1 << 2 // w
	Delete     Mode = 1 << 3 // d
	Truncate   Mode = 1 << 4 // D
	References Mode = 1 << 5 // x
	Trigger    Mode = 1 << 6 // t
	Execute    Mode = 1 << 7 // X
	Usage      Mode = 1 << 8 // U
	Create     Mode = 1 << 9 // C
	Temp       Mode = 1 << 10
	Connect    Mode = 1 << 11 // c

	// None is no privilege.
	None Mode = 0
	// privBits are the privilege half of a Mode.
	privBits Mode = 0xFFFF
)

// rightChars are the privilege letters in bit order (ACL_ALL_RIGHTS_STR).
const rightChars = "arwdDxtXUCTcsA"

// GrantOption returns the grant options for the privileges of m.
func GrantOption(m Mode) Mode { return (m & privBits) << 16 }

// Privs returns the privileges of m without grant options.
func (m Mode) Privs() Mode { return m & privBits }

// Options returns the privileges whose grant option m holds.
func (m Mode) Options() Mode { return m >> 16 }

// String spells m as aclitem does: "arw*".
func (m Mode) String() string {
	var b strings.Builder
	for i := 0; i < len(rightChars); i++ {
		bit := Mode(1) << i
		if m&bit != 0 {
			b.WriteByte(rightChars[i])
			if m&GrantOption(bit) != 0 {
				b.WriteByte('*')
			}
		}
	}
	return b.String()
}

// ParseMode reads the privilege part of an aclitem ("arw*").
func ParseMode(s string) (Mode, error) {
	var m Mode
	for i := 0; i < len(s); i++ {
		if s[i] == '*' {
			return 0, fmt.Errorf("acl: misplaced '*' in %q", s)
		}
		k := strings.IndexByte(rightChars, s[i])
		if k < 0 {
			return 0, fmt.Errorf("acl: invalid mode character %q in %q", s[i], s)
		}
		bit := Mode(1) << k
		m |= bit
		if i+1 < len(s) && s[i+1] == '*' {
			m |= GrantOption(bit)
			i++
		}
	}
	return m, nil
}

// ObjectType is the kind of object an ACL protects.
type ObjectType int

// Object types.
const (
	Table ObjectType = iota
	Schema
	Database
)

// AllRights is ALL [PRIVILEGES] for objects of type t.
func (t ObjectType) AllRights() Mode {
	switch t {
	case Table:
		return Insert | Select | Update | Delete | Truncate | References | Trigger
	case Schema:
		return Usage | Create
	case Database:
		return Create | Temp | Connect
	}
	return None
}

// Noun names the type in messages: "permission denied for table t".
func (t ObjectType) Noun() string {
	switch t {
	case Table:
		return "table"
	case Schema:
		return "schema"
	case Database:
		return "database"
	}
	return "object"
}

// Public is the grantee OID of PUBLIC in an aclitem.
const Public uint32 = 0

// Item is one aclitem: what Grantee holds, granted by Grantor.
type Item struct {
	Grantee uint32 // Public for PUBLIC
	Grantor uint32
	Mode    Mode
}

// ACL is an access control list; nil is the object's default (Default).
type ACL []Item

// Default is PostgreSQL's acldefault: the ACL an object of type t owned by
// owner has while its stored ACL is NULL.
func Default(t ObjectType, owner uint32) ACL {
	switch t {
	case Database:
		return ACL{{Grantee: Public, Grantor: owner, Mode: Temp | Connect}, {Grantee: owner, Grantor: owner, Mode: t.AllRights()}}
	default:
		return ACL{{Grantee: owner, Grantor: owner, Mode: t.AllRights()}}
	}
}

// Effective is a, or the default ACL when a is nil.
func Effective(a ACL, t ObjectType, owner uint32) ACL {
	if a == nil {
		return Default(t, owner)
	}
	return a
}

// Clone copies a (nil stays nil).
func (a ACL) Clone() ACL {
	if a == nil {
		return nil
	}
	return append(ACL{}, a...)
}

// Format writes the item as aclitemout does; name gives a role's name ("",
// false: the role is gone, its OID is printed).
func (it Item) Format(name func(uint32) (string, bool)) string {
	var b strings.Builder
	if it.Grantee != Public {
		putID(&b, it.Grantee, name)
	}
	b.WriteByte('=')
	b.WriteString(it.Mode.String())
	b.WriteByte('/')
	putID(&b, it.Grantor, name)
	return b.String()
}

func putID(b *strings.Builder, oid uint32, name func(uint32) (string, bool)) {
	n, ok := name(oid)
	if !ok {
		b.WriteString(strconv.FormatUint(uint64(oid), 10))
		return
	}
	safe := true
	for i := 0; i < len(n); i++ {
		c := n[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			safe = false
			break
		}
	}
	if safe {
		b.WriteString(n)
		return
	}
	b.WriteByte('"')
	b.WriteString(strings.ReplaceAll(n, `"`, `""`))
	b.WriteByte('"')
}

// Format writes every item (nil: nil, the SQL NULL of relacl & co).
func (a ACL) Format(name func(uint32) (string, bool)) []string {
	if a == nil {
		return nil
	}
	out := make([]string, len(a))
	for i, it := range a {
		out[i] = it.Format(name)
	}
	return out
}

// MarshalText is the stored form: "16384=r*w/10", "=Tc/10" for PUBLIC.
func (it Item) MarshalText() ([]byte, error) {
	var b strings.Builder
	if it.Grantee != Public {
		b.WriteString(strconv.FormatUint(uint64(it.Grantee), 10))
	}
	b.WriteByte('=')
	b.WriteString(it.Mode.String())
	b.WriteByte('/')
	b.WriteString(strconv.FormatUint(uint64(it.Grantor), 10))
	return []byte(b.String()), nil
}

// UnmarshalText reads the stored form.
func (it *Item) UnmarshalText(text []byte) error {
	s := string(text)
	grantee, rest, ok := strings.Cut(s, "=")
	if !ok {
		return fmt.Errorf("acl: bad item %q", s)
	}
	mode, grantor, ok := strings.Cut(rest, "/")
	if !ok {
		return fmt.Errorf("acl: bad item %q", s)
	}
	var g uint64
	if grantee != "" {
		var err error
		if g, err = strconv.ParseUint(grantee, 10, 32); err != nil || g == 0 {
			return fmt.Errorf("acl: bad grantee in %q", s)
		}
	}
	gr, err := strconv.ParseUint(grantor, 10, 32)
	if err != nil || gr == 0 {
		return fmt.Errorf("acl: bad grantor in %q", s)
	}
	m, err := ParseMode(mode)
	if err != nil {
		return err
	}
	*it = Item{Grantee: uint32(g), Grantor: uint32(gr), Mode: m}
	return nil
}

// ErrDependentPrivileges is Revoke's refusal to cut grants that depend on
// a revoked grant option without CASCADE.
var ErrDependentPrivileges = errors.New("dependent privileges exist")

// Grant adds mode (privileges, and grant options if mode has them) to the
// item of (grantee, grantor), as aclupdate with ACL_MODECHG_ADD. a must be
// the effective ACL (not nil).
func Grant(a ACL, grantee, grantor uint32, mode Mode) ACL {
	out := a.Clone()
	if out == nil {
		out = ACL{}
	}
	for i := range out {
		if out[i].Grantee == grantee && out[i].Grantor == grantor {
			out[i].Mode |= mode
			return out
		}
	}
	if mode == None {
		return out // aclupdate drops an item left without rights
	}
	return append(out, Item{Grantee: grantee, Grantor: grantor, Mode: mode})
}

// Revoke removes mode from the item of (grantee, grantor), as aclupdate
// with ACL_MODECHG_DEL: an item left without privileges goes, and grant
// options the grantee loses are revoked from those it granted to
// (recursive_revoke): ErrDependentPrivileges unless cascade. a must be the
// effective ACL of an object owned by owner.
func Revoke(a ACL, grantee, grantor uint32, mode Mode, owner uint32, cascade bool, m Membership) (ACL, error) {
	out := ACL{}
	var lost Mode
	for _, it := range a {
		if it.Grantee == grantee && it.Grantor == grantor {
			old := it.Mode
			it.Mode &^= mode
			lost = old.Options() &^ it.Mode.Options()
			if it.Mode.Privs() == None && it.Mode.Options() == None {
				continue
			}
		}
		out = append(out, it)
	}
	if lost == None {
		return out, nil
	}
	return recursiveRevoke(out, grantee, lost, owner, cascade, m)
}

// recursiveRevoke is PostgreSQL's recursive_revoke: grantee lost the grant
// options of privs; the grants it made of them go too.
func recursiveRevoke(a ACL, grantee uint32, privs Mode, owner uint32, cascade bool, m Membership) (ACL, error) {
	if grantee == owner {
		return a, nil // the owner never truly loses grant options
	}
	still := Mask(a, owner, grantee, GrantOption(privs), true, m)
	privs &^= still.Options()
	if privs == None {
		return a, nil
	}
	for {
		var hit *Item
		for i := range a {
			if a[i].Grantor == grantee && a[i].Mode.Privs()&privs != 0 {
				hit = &a[i]
				break
			}
		}
		if hit == nil {
			return a, nil
		}
		if !cascade {
			return nil, ErrDependentPrivileges
		}
		var err error
		if a, err = Revoke(a, hit.Grantee, grantee, privs|GrantOption(privs), owner, cascade, m); err != nil {
			return nil, err
		}
	}
}

// Mask is PostgreSQL's aclmask over an effective ACL: the part of want
// that role holds on an object owned by owner. With all, it may stop as
// soon as every wanted bit is found; otherwise at the first one (the
// answer is then only meaningful as zero or non-zero).
func Mask(a ACL, owner, role uint32, want Mode, all bool, m Membership) Mode {
	done := func(got Mode) bool {
		if all {
			return got == want
		}
		return got != 0
	}
	var got Mode
	const optionBits = privBits << 16
	if want&optionBits != 0 && m.HasPrivsOf(role, owner) {
		got = want & optionBits
		if done(got) {
			return got
		}
	}
	for _, it := range a {
		if it.Grantee == role || it.Grantee == Public {
			got |= it.Mode & want
			if done(got) {
				return got
			}
		}
	}
	for _, it := range a {
		if it.Grantee == role || it.Grantee == Public || it.Mode&want&^got == 0 {
			continue
		}
		if m.HasPrivsOf(role, it.Grantee) {
			got |= it.Mode & want
			if done(got) {
				return got
			}
		}
	}
	return got
}

// ObjectMask is what role holds among want on an object of type t: the
// superuser bypass, Mask over the effective ACL, and the privileges of the
// predefined roles pg_read_all_data / pg_write_all_data (pg_class_aclmask,
// pg_namespace_aclmask).
func ObjectMask(t ObjectType, a ACL, owner, role uint32, want Mode, m Membership) Mode {
	if m.Super(role) {
		return want
	}
	got := Mask(Effective(a, t, owner), owner, role, want, true, m)
	if got == want {
		return got
	}
	switch t {
	case Table:
		if want&Select != 0 && m.HasPrivsOf(role, RoleReadAllData) {
			got |= Select
		}
		if want&(Insert|Update|Delete) != 0 && m.HasPrivsOf(role, RoleWriteAllData) {
			got |= want & (Insert | Update | Delete)
		}
	case Schema:
		if want&Usage != 0 && (m.HasPrivsOf(role, RoleReadAllData) || m.HasPrivsOf(role, RoleWriteAllData)) {
			got |= Usage
		}
	}
	return got
}

// Mentions reports whether a names role as grantee or grantor (DROP ROLE's
// dependency check).
func (a ACL) Mentions(role uint32) bool {
	for _, it := range a {
		if it.Grantee == role || it.Grantor == role {
			return true
		}
	}
	return false
}

// DirectMask is PostgreSQL's aclmask_direct: what role holds among want
// through items naming it exactly (not PUBLIC, not its memberships), and
// every grant option when it is the owner itself. GRANT uses it to choose
// the grantor.
func DirectMask(a ACL, owner, role uint32, want Mode) Mode {
	var got Mode
	const optionBits = privBits << 16
	if want&optionBits != 0 && role == owner {
		got = want & optionBits
	}
	for _, it := range a {
		if it.Grantee == role {
			got |= it.Mode & want
		}
	}
	return got
}

// NewOwner is PostgreSQL's aclnewowner: a's items with the old owner as
// grantee or grantor name the new owner instead, items that become
// duplicates merged (ALTER ... OWNER TO). nil stays nil.
func NewOwner(a ACL, old, new uint32) ACL {
	if a == nil {
		return nil
	}
	out := ACL{}
	for _, it := range a {
		if it.Grantee == old {
			it.Grantee = new
		}
		if it.Grantor == old {
			it.Grantor = new
		}
		merged := false
		for i := range out {
			if out[i].Grantee == it.Grantee && out[i].Grantor == it.Grantor {
				out[i].Mode |= it.Mode
				merged = true
				break
			}
		}
		if !merged {
			out = append(out, it)
		}
	}
	return out
}

// Count is the number of privileges and grant options in m.
func (m Mode) Count() int {
	n := 0
	for ; m != 0; m &= m - 1 {
		n++
	}
	return n
}
