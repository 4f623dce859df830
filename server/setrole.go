package server

import (
	"context"
	"fmt"

	pg_query "github.com/pganalyze/pg_query_go/v6"

	"github.com/bsdb/bsdb-pg/pgerr"
	"github.com/bsdb/bsdb-pg/pgwire"
	bsql "github.com/bsdb/bsdb-pg/sql"
)

// SET ROLE / SET SESSION AUTHORIZATION. The session user starts as the
// authenticated role; SET SESSION AUTHORIZATION (for a superuser login
// only) changes it and resets the current role; SET ROLE changes the
// current role to one the session user is a member of. Privileges are
// checked for the current role; current_user and session_user report them.

func (s *session) planSetRole(vs *pg_query.VariableSetStmt) plan {
	tag := "SET"
	if vs.Kind == pg_query.VariableSetKind_VAR_RESET {
		tag = "RESET"
	}
	return &funcPlan{run: func(ctx context.Context, w pgwire.ResultWriter) error {
		value := ""
		if vs.Kind == pg_query.VariableSetKind_VAR_SET_VALUE {
			v, err := setValue(vs.Name, vs.Args)
			if err != nil {
				return err
			}
			value = v
		}
		var changed []*guc
		var err error
		if vs.Name == "role" {
			changed, err = s.setRole(ctx, value)
		} else {
			changed, err = s.setSessionAuthorization(ctx, value)
		}
		if err != nil {
			return err
		}
		if err := s.settingsChanged(ctx, w, changed); err != nil {
			return err
		}
		return w.Complete(tag)
	}}
}

// setRole is SET ROLE name ("" or "none": back to the session user).
func (s *session) setRole(ctx context.Context, name string) ([]*guc, error) {
	rs, err := s.b.sec.snapshot(ctx)
	if err != nil {
		return nil, err
	}
	if name == "" || name == "none" {
		s.currentRole, s.roleSet = s.sessionRole, false
		s.set.vals["role"] = "none"
		return s.reportSuperuser(ctx), nil
	}
	r := rs.byName[name]
	if r == nil {
		return nil, pgerr.New(pgerr.InvalidParameterValue, "role \"%s\" does not exist", name)
	}
	if !rs.graph.In(0).IsMemberOf(s.sessionRole, r.OID) {
		return nil, pgerr.New(pgerr.InsufficientPrivilege, "permission denied to set role \"%s\"", name)
	}
	s.currentRole, s.roleSet = r.OID, true
	s.set.vals["role"] = r.Name
	return s.reportSuperuser(ctx), nil
}

// setSessionAuthorization is SET SESSION AUTHORIZATION name ("": DEFAULT,
// back to the authenticated role).
func (s *session) setSessionAuthorization(ctx context.Context, name string) ([]*guc, error) {
	rs, err := s.b.sec.snapshot(ctx)
	if err != nil {
		return nil, err
	}
	target := s.loginRole
	if name != "" {
		r := rs.byName[name]
		if r == nil {
			return nil, pgerr.New(pgerr.InvalidParameterValue, "role \"%s\" does not exist", name)
		}
		if r.OID != s.loginRole && !rs.superuser(s.loginRole) {
			return nil, pgerr.New(pgerr.InsufficientPrivilege, "permission denied to set session authorization \"%s\"", name)
		}
		target = r.OID
	}
	s.sessionRole, s.currentRole, s.roleSet = target, target, false
	s.set.vals["role"] = "none"
	s.set.vals["session_authorization"] = s.sessionRoleName(rs)
	return append([]*guc{gucs["session_authorization"]}, s.reportSuperuser(ctx)...), nil
}

// resetAuthorization is DISCARD ALL's SET SESSION AUTHORIZATION DEFAULT.
func (s *session) resetAuthorization() {
	rs := s.b.sec.roles.Load()
	s.sessionRole, s.currentRole, s.roleSet = s.loginRole, s.loginRole, false
	s.set.vals["role"] = "none"
	if rs != nil {
		s.set.vals["session_authorization"] = s.sessionRoleName(rs)
		s.set.vals["is_superuser"] = onOff(rs.superuser(s.loginRole))
	}
}

// planSecurity dispatches the role and privilege statements. Like the
// other DDL they are not transactional: refused in a block that wrote.
func (s *session) planSecurity(st *bsql.Statement) (plan, error) {
	if err := s.ddlAllowed(st.Tag); err != nil {
		return nil, err
	}
	switch st.Kind {
	case bsql.KindCreateRole:
		return s.planCreateRole(st)
	case bsql.KindAlterRole:
		return s.planAlterRole(st)
	case bsql.KindDropRole:
		return s.planDropRole(st)
	case bsql.KindGrant:
		return s.planGrant(st)
	case bsql.KindGrantRole:
		return s.planGrantRole(st)
	case bsql.KindAlterOwner:
		return s.planAlterOwner(st)
	}
	return nil, fmt.Errorf("BUG: planSecurity on %v", st.Kind)
}
