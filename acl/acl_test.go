package acl

import (
	"errors"
	"strings"
	"testing"
)

// Role OIDs of the tests, named as in the PostgreSQL sessions the expected
// lists were taken from.
const (
	postgres = BootstrapSuperuser
	alice    = 16384
	bob      = 16385
	grp      = 16386
	dave     = 16387
)

var names = map[uint32]string{postgres: "postgres", alice: "alice", bob: "bob", grp: "grp", dave: "dave",
	RoleDatabaseOwner: "pg_database_owner", 16390: `we"ird name`, 16391: "Ünï"}

func name(oid uint32) (string, bool) {
	n, ok := names[oid]
	return n, ok
}

func format(a ACL) string { return "{" + strings.Join(a.Format(name), ",") + "}" }

func graph(edges ...Edge) Context {
	return NewGraph(map[uint32]Attrs{postgres: {Super: true, Inherit: true}, alice: {Inherit: true}, bob: {Inherit: true},
		grp: {Inherit: true}, dave: {Inherit: true}}, edges).In(postgres)
}

func mustMode(t *testing.T, s string) Mode {
	t.Helper()
	m, err := ParseMode(s)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestGrantRevokeSequence replays GRANT/REVOKE statements whose relacl and
// datacl a PostgreSQL 15 printed after each step.
func TestGrantRevokeSequence(t *testing.T) {
	m := graph()
	tbl := Default(Table, postgres)
	if got := format(tbl); got != "{postgres=arwdDxt/postgres}" {
		t.Fatalf("default table ACL %s", got)
	}
	tbl = Grant(tbl, alice, postgres, Select)
	if got := format(tbl); got != "{postgres=arwdDxt/postgres,alice=r/postgres}" {
		t.Fatalf("after GRANT SELECT TO alice: %s", got)
	}
	tbl = Grant(tbl, Public, postgres, Select|Insert)
	tbl = Grant(tbl, alice, postgres, Update|GrantOption(Update))
	if got := format(tbl); got != "{postgres=arwdDxt/postgres,alice=rw*/postgres,=ar/postgres}" {
		t.Fatalf("after GRANT ... TO PUBLIC, WITH GRANT OPTION: %s", got)
	}
	var err error
	if tbl, err = Revoke(tbl, Public, postgres, Insert|GrantOption(Insert), postgres, false, m); err != nil {
		t.Fatal(err)
	}
	if tbl, err = Revoke(tbl, alice, postgres, GrantOption(Update), postgres, false, m); err != nil {
		t.Fatal(err)
	}
	if got := format(tbl); got != "{postgres=arwdDxt/postgres,alice=rw/postgres,=r/postgres}" {
		t.Fatalf("after REVOKE INSERT FROM PUBLIC, REVOKE GRANT OPTION FOR UPDATE: %s", got)
	}
	all := Table.AllRights()
	tbl = Grant(tbl, dave, postgres, all)
	if got := format(tbl); got != "{postgres=arwdDxt/postgres,alice=rw/postgres,=r/postgres,dave=arwdDxt/postgres}" {
		t.Fatalf("after GRANT ALL TO dave: %s", got)
	}
	for _, g := range []uint32{dave, postgres} {
		if tbl, err = Revoke(tbl, g, postgres, all|GrantOption(all), postgres, false, m); err != nil {
			t.Fatal(err)
		}
	}
	if got := format(tbl); got != "{alice=rw/postgres,=r/postgres}" {
		t.Fatalf("after REVOKE ALL FROM dave, postgres: %s", got)
	}

	db := Default(Database, postgres)
	if got := format(db); got != "{=Tc/postgres,postgres=CTc/postgres}" {
		t.Fatalf("default database ACL %s", got)
	}
	db = Grant(db, alice, postgres, Connect|Temp|Create)
	db = Grant(db, bob, postgres, Temp)
	if db, err = Revoke(db, Public, postgres, Connect|GrantOption(Connect), postgres, false, m); err != nil {
		t.Fatal(err)
	}
	if got := format(db); got != "{=T/postgres,postgres=CTc/postgres,alice=CTc/postgres,bob=T/postgres}" {
		t.Fatalf("database ACL %s", got)
	}
}

func TestDependentPrivileges(t *testing.T) {
	m := graph()
	a := Default(Table, postgres)
	a = Grant(a, alice, postgres, Select|GrantOption(Select))
	a = Grant(a, bob, alice, Select|GrantOption(Select))
	a = Grant(a, dave, bob, Select)
	if _, err := Revoke(a, alice, postgres, GrantOption(Select), postgres, false, m); !errors.Is(err, ErrDependentPrivileges) {
		t.Fatalf("REVOKE GRANT OPTION without CASCADE: %v", err)
	}
	got, err := Revoke(a, alice, postgres, GrantOption(Select), postgres, true, m)
	if err != nil {
		t.Fatal(err)
	}
	if s := format(got); s != "{postgres=arwdDxt/postgres,alice=r/postgres}" {
		t.Fatalf("CASCADE left %s", s)
	}
	// A grant option held through another grantor keeps the dependent grants.
	b := Grant(a, alice, dave, Select|GrantOption(Select))
	got, err = Revoke(b, alice, postgres, Select|GrantOption(Select), postgres, false, m)
	if err != nil {
		t.Fatal(err)
	}
	if s := format(got); s != "{postgres=arwdDxt/postgres,bob=r*/alice,dave=r/bob,alice=r*/dave}" {
		t.Fatalf("revoke with another grantor left %s", s)
	}
}

func TestMask(t *testing.T) {
	a := Grant(Default(Table, alice), grp, alice, Select)
	noinherit := NewGraph(map[uint32]Attrs{bob: {}, grp: {Inherit: true}}, []Edge{{Role: grp, Member: bob}}).In(postgres)
	for _, c := range []struct {
		name string
		m    Membership
		role uint32
		want Mode
		got  Mode
	}{
		{"owner", graph(), alice, Select | Insert, Select | Insert},
		{"owner grant options", graph(), alice, GrantOption(Select), GrantOption(Select)},
		{"stranger", graph(), bob, Select, None},
		{"superuser", graph(), postgres, Select | GrantOption(Delete), Select | GrantOption(Delete)},
		{"member of grp", graph(Edge{Role: grp, Member: bob}), bob, Select | Insert, Select},
		{"member of a member", graph(Edge{Role: grp, Member: dave}, Edge{Role: dave, Member: bob}), bob, Select, Select},
		{"NOINHERIT member", noinherit, bob, Select, None},
		{"pg_read_all_data", graph(Edge{Role: RoleReadAllData, Member: bob}), bob, Select | Insert, Select},
		{"pg_write_all_data", graph(Edge{Role: RoleWriteAllData, Member: bob}), bob, Select | Insert | Delete | Truncate, Insert | Delete},
	} {
		if got := ObjectMask(Table, a, alice, c.role, c.want, c.m); got != c.got {
			t.Errorf("%s: mask %s, want %s", c.name, got, c.got)
		}
	}
	// The owner's privileges are its ACL item's: REVOKE ALL FROM the owner
	// takes them away (its grant options stay).
	m := graph()
	bare, err := Revoke(Default(Table, alice), alice, alice, Table.AllRights()|GrantOption(Table.AllRights()), alice, false, m)
	if err != nil {
		t.Fatal(err)
	}
	if got := ObjectMask(Table, bare, alice, alice, Select|GrantOption(Select), m); got != GrantOption(Select) {
		t.Errorf("owner after REVOKE ALL: %s", got)
	}
	// PUBLIC's database privileges, and pg_database_owner in the DBA's database.
	if got := ObjectMask(Database, nil, postgres, bob, Connect|Create, m); got != Connect {
		t.Errorf("PUBLIC on a database: %s", got)
	}
	public := ACL{{Grantee: RoleDatabaseOwner, Grantor: RoleDatabaseOwner, Mode: Usage | Create}, {Grantee: Public, Grantor: RoleDatabaseOwner, Mode: Usage}}
	g := NewGraph(map[uint32]Attrs{alice: {Inherit: true}, bob: {Inherit: true}}, nil)
	if got := ObjectMask(Schema, public, RoleDatabaseOwner, alice, Usage|Create, g.In(alice)); got != Usage|Create {
		t.Errorf("database owner on schema public: %s", got)
	}
	if got := ObjectMask(Schema, public, RoleDatabaseOwner, bob, Usage|Create, g.In(alice)); got != Usage {
		t.Errorf("other role on schema public: %s", got)
	}
}

func TestMembership(t *testing.T) {
	g := NewGraph(map[uint32]Attrs{alice: {Inherit: true}, bob: {}, grp: {Inherit: true}},
		[]Edge{{Role: grp, Member: alice}, {Role: grp, Member: bob, Admin: true}}).In(0)
	if !g.IsMemberOf(bob, grp) || g.HasPrivsOf(bob, grp) {
		t.Error("NOINHERIT bob: member of grp without its privileges")
	}
	if !g.IsAdminOf(bob, grp) || g.IsAdminOf(alice, grp) {
		t.Error("admin option")
	}
	if !g.IsMemberOfNoSuper(alice, grp) || g.IsMemberOfNoSuper(grp, alice) {
		t.Error("circularity check")
	}
	if got := NewGraph(nil, nil).In(0).MembersOf(RoleMonitor, true); len(got) != 3 {
		t.Errorf("pg_monitor's roles: %v", got)
	}
}

func TestText(t *testing.T) {
	it := Item{Grantee: 16390, Grantor: 16391, Mode: Select | GrantOption(Select) | Insert}
	if got := it.Format(name); got != `"we""ird name"=ar*/"Ünï"` {
		t.Errorf("quoted names: %s", got)
	}
	if got := (Item{Grantee: 99999, Grantor: postgres, Mode: Usage}).Format(name); got != "99999=U/postgres" {
		t.Errorf("dropped role: %s", got)
	}
	for _, s := range []string{"16384=r*w/10", "=Tc/10", "16384=arwdDxt/16385"} {
		var it Item
		if err := it.UnmarshalText([]byte(s)); err != nil {
			t.Fatal(err)
		}
		b, _ := it.MarshalText()
		if string(b) != s {
			t.Errorf("round trip %s -> %s", s, b)
		}
	}
	for _, s := range []string{"", "=r", "x=r/10", "1=q/10", "1=*r/10", "1=r/0"} {
		var it Item
		if err := it.UnmarshalText([]byte(s)); err == nil {
			t.Errorf("%q accepted", s)
		}
	}
}
