package acl

// Membership answers the role questions privilege checks ask.
type Membership interface {
	// Super reports whether role is a superuser.
	Super(role uint32) bool
	// HasPrivsOf is has_privs_of_role: member holds role's privileges.
	HasPrivsOf(member, role uint32) bool
}

// OIDs of PostgreSQL's built-in roles (pg_authid.dat).
const (
	BootstrapSuperuser    uint32 = 10
	RoleMonitor           uint32 = 3373
	RoleReadAllSettings   uint32 = 3374
	RoleReadAllStats      uint32 = 3375
	RoleStatScanTables    uint32 = 3377
	RoleSignalBackend     uint32 = 4200
	RoleCheckpoint        uint32 = 4544
	RoleReadServerFiles   uint32 = 4569
	RoleWriteServerFiles  uint32 = 4570
	RoleExecServerProgram uint32 = 4571
	RoleDatabaseOwner     uint32 = 6171
	RoleReadAllData       uint32 = 6181
	RoleWriteAllData      uint32 = 6182
)

// Predefined are PostgreSQL 15's predefined roles (NOLOGIN, INHERIT), in
// OID order; they exist in every cluster and cannot be changed.
var Predefined = []struct {
	OID  uint32
	Name string
}{
	{RoleMonitor, "pg_monitor"},
	{RoleReadAllSettings, "pg_read_all_settings"},
	{RoleReadAllStats, "pg_read_all_stats"},
	{RoleStatScanTables, "pg_stat_scan_tables"},
	{RoleSignalBackend, "pg_signal_backend"},
	{RoleCheckpoint, "pg_checkpoint"},
	{RoleReadServerFiles, "pg_read_server_files"},
	{RoleWriteServerFiles, "pg_write_server_files"},
	{RoleExecServerProgram, "pg_execute_server_program"},
	{RoleDatabaseOwner, "pg_database_owner"},
	{RoleReadAllData, "pg_read_all_data"},
	{RoleWriteAllData, "pg_write_all_data"},
}

// PredefinedEdges are the memberships initdb creates: pg_monitor is a
// member of pg_read_all_settings, pg_read_all_stats and
// pg_stat_scan_tables (granted by the bootstrap superuser).
var PredefinedEdges = []Edge{
	{Role: RoleReadAllSettings, Member: RoleMonitor, Grantor: BootstrapSuperuser},
	{Role: RoleReadAllStats, Member: RoleMonitor, Grantor: BootstrapSuperuser},
	{Role: RoleStatScanTables, Member: RoleMonitor, Grantor: BootstrapSuperuser},
}

// IsPredefined reports whether oid is a predefined role.
func IsPredefined(oid uint32) bool {
	for _, p := range Predefined {
		if p.OID == oid {
			return true
		}
	}
	return false
}

// Edge is one membership: Member is a member of Role (pg_auth_members).
type Edge struct {
	Role, Member, Grantor uint32
	Admin                 bool
}

// Attrs are the role attributes membership depends on.
type Attrs struct {
	Super, Inherit bool
}

// Graph is the role membership graph of a cluster. Build it with NewGraph;
// it is immutable and safe for concurrent use.
type Graph struct {
	attrs    map[uint32]Attrs
	memberOf map[uint32][]Edge // by Member
}

// NewGraph builds a graph from every role's attributes and every edge
// (the predefined roles and edges are added).
func NewGraph(roles map[uint32]Attrs, edges []Edge) *Graph {
	g := &Graph{attrs: make(map[uint32]Attrs, len(roles)+len(Predefined)), memberOf: map[uint32][]Edge{}}
	for _, p := range Predefined {
		g.attrs[p.OID] = Attrs{Inherit: true}
	}
	for oid, a := range roles {
		g.attrs[oid] = a
	}
	for _, e := range append(append([]Edge(nil), PredefinedEdges...), edges...) {
		g.memberOf[e.Member] = append(g.memberOf[e.Member], e)
	}
	return g
}

// In is the graph as seen from a database owned by dba: dba is implicitly
// a member of pg_database_owner there.
func (g *Graph) In(dba uint32) Context { return Context{g: g, dba: dba} }

// Context is a Graph within one database; it implements Membership.
type Context struct {
	g   *Graph
	dba uint32
}

// Super implements Membership.
func (c Context) Super(role uint32) bool { return c.g.attrs[role].Super }

// HasPrivsOf implements Membership (has_privs_of_role).
func (c Context) HasPrivsOf(member, role uint32) bool {
	if member == role || c.Super(member) {
		return true
	}
	return c.reaches(member, role, true)
}

// IsMemberOf is is_member_of_role: membership whatever INHERIT says (may
// member SET ROLE to role, or make role an owner).
func (c Context) IsMemberOf(member, role uint32) bool {
	if member == role || c.Super(member) {
		return true
	}
	return c.reaches(member, role, false)
}

// IsAdminOf is is_admin_of_role: member may grant and revoke membership
// in role (superuser, or WITH ADMIN OPTION on role through its
// memberships).
func (c Context) IsAdminOf(member, role uint32) bool {
	if c.Super(member) {
		return true
	}
	if member == role {
		return false
	}
	admin := false
	c.walk(member, false, func(e Edge) {
		if e.Role == role && e.Admin {
			admin = true
		}
	})
	return admin
}

// MembersOf lists the roles member is in, directly or not (pg_has_role's
// closure), without member itself.
func (c Context) MembersOf(member uint32, inherit bool) []uint32 {
	return c.closure(member, inherit)[1:]
}

// IsMemberOfNoSuper is is_member_of_role_nosuper: membership without the
// superuser shortcut (GRANT's circularity check).
func (c Context) IsMemberOfNoSuper(member, role uint32) bool {
	return member == role || c.reaches(member, role, false)
}

func (c Context) reaches(member, role uint32, inherit bool) bool {
	for _, r := range c.closure(member, inherit) {
		if r == role {
			return true
		}
	}
	return false
}

// closure is roles_is_member_of: member first, then every role reached;
// with inherit, only roles with INHERIT are expanded.
func (c Context) closure(member uint32, inherit bool) []uint32 {
	list := []uint32{member}
	c.walkList(&list, inherit, nil)
	return list
}

func (c Context) walk(member uint32, inherit bool, visit func(Edge)) {
	list := []uint32{member}
	c.walkList(&list, inherit, visit)
}

func (c Context) walkList(list *[]uint32, inherit bool, visit func(Edge)) {
	seen := map[uint32]bool{(*list)[0]: true}
	add := func(r uint32) {
		if !seen[r] {
			seen[r] = true
			*list = append(*list, r)
		}
	}
	for i := 0; i < len(*list); i++ {
		m := (*list)[i]
		if inherit && !c.g.attrs[m].Inherit {
			continue
		}
		for _, e := range c.g.memberOf[m] {
			if visit != nil {
				visit(e)
			}
			add(e.Role)
		}
		if c.dba != 0 && m == c.dba {
			add(RoleDatabaseOwner)
		}
	}
}
