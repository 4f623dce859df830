package sql

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"github.com/pganalyze/pg_query_go/v6/parser"

	"github.com/bsdb/bsdb-pg/pgerr"
)

// Kind classifies a parsed statement. The planner switches on it.
type Kind int

// Statement kinds. KindOther is everything we do not support; Parse never
// returns it without also being able to name the statement (Statement.Tag).
const (
	KindEmpty  Kind = iota // empty query (";" or only comments)
	KindSelect             // SELECT, VALUES, set operations, TABLE t
	KindInsert
	KindUpdate
	KindDelete
	KindCopy
	KindCreateTable
	KindDropTable
	KindTruncate
	KindCreateSchema
	KindDropSchema
	KindCreateDatabase
	KindDropDatabase
	KindBegin
	KindCommit
	KindRollback
	KindSavepoint // SAVEPOINT, RELEASE, ROLLBACK TO: the planner rejects them (0A000) for now
	KindSet
	KindShow
	KindReset
	KindExplain
	KindPrepare
	KindExecute
	KindDeallocate
	KindDiscard
	KindCreateRole // CREATE ROLE / USER / GROUP
	KindAlterRole  // ALTER ROLE / USER / GROUP, ALTER ROLE ... RENAME TO
	KindDropRole   // DROP ROLE / USER / GROUP
	KindGrant      // GRANT / REVOKE privileges on objects
	KindGrantRole  // GRANT / REVOKE role membership
	KindAlterOwner // ALTER TABLE / SCHEMA / DATABASE ... OWNER TO
	KindMerge
	KindOther
)

var kindNames = [...]string{
	KindEmpty:          "Empty",
	KindSelect:         "Select",
	KindInsert:         "Insert",
	KindUpdate:         "Update",
	KindDelete:         "Delete",
	KindCopy:           "Copy",
	KindCreateTable:    "CreateTable",
	KindDropTable:      "DropTable",
	KindTruncate:       "Truncate",
	KindCreateSchema:   "CreateSchema",
	KindDropSchema:     "DropSchema",
	KindCreateDatabase: "CreateDatabase",
	KindDropDatabase:   "DropDatabase",
	KindBegin:          "Begin",
	KindCommit:         "Commit",
	KindRollback:       "Rollback",
	KindSavepoint:      "Savepoint",
	KindSet:            "Set",
	KindShow:           "Show",
	KindReset:          "Reset",
	KindExplain:        "Explain",
	KindPrepare:        "Prepare",
	KindExecute:        "Execute",
	KindDeallocate:     "Deallocate",
	KindDiscard:        "Discard",
	KindCreateRole:     "CreateRole",
	KindAlterRole:      "AlterRole",
	KindDropRole:       "DropRole",
	KindGrant:          "Grant",
	KindGrantRole:      "GrantRole",
	KindAlterOwner:     "AlterOwner",
	KindMerge:          "Merge",
	KindOther:          "Other",
}

func (k Kind) String() string {
	if k >= 0 && int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// Statement is one statement of a query string.
type Statement struct {
	// Text is this statement's own text (without the separating ';').
	Text string
	// Query is the whole query string the statement came from, and Offset
	// the byte offset of Text in it. Positions in errors from Translate*
	// and MapError(err, st.Text) are 1 + byte offsets in Text: Locate /
	// QueryPosition turn them into PostgreSQL's character positions in
	// Query. Parse's own syntax errors already are.
	Query  string
	Offset int
	Kind   Kind
	// Tree is the statement's parse tree (RawStmt.Stmt); nil for KindEmpty.
	Tree *pg_query.Node
	// Tag is the command tag prefix: "SELECT", "INSERT", "CREATE TABLE", ...
	// For KindOther it is the statement's name (for the 0A000 message).
	Tag string
	// PlanCache is the server's, for what it may reuse across executions
	// of a prepared statement (it validates entries itself).
	PlanCache any
}

// Unsupported returns the 0A000 error the planner should send for a
// statement of KindOther.
func (s *Statement) Unsupported() *pgerr.Error {
	return pgerr.New(pgerr.FeatureNotSupported, "%s is not supported", s.Tag)
}

// Parse splits and parses a query string. A syntax error is a *pgerr.Error
// 42601 with PostgreSQL's message and 1-based character Position. An empty
// query string (or one made of ';' and comments) yields one KindEmpty
// statement, as PostgreSQL answers it with EmptyQueryResponse.
//
// Parse is where a client's text meets C code: it bounds the nesting of the
// text before pg_query sees it, and renames calls of functions that are not
// PostgreSQL's (guard.go) before anything else sees the tree.
func Parse(query string) ([]*Statement, error) {
	if err := checkLexicalDepth(query); err != nil {
		return nil, err
	}
	res, err := pg_query.Parse(query)
	if err != nil {
		return nil, parseError(query, err)
	}
	if len(res.Stmts) == 0 {
		return []*Statement{{Kind: KindEmpty, Text: query}}, nil
	}
	out := make([]*Statement, 0, len(res.Stmts))
	for _, raw := range res.Stmts {
		start := int(raw.StmtLocation)
		end := len(query)
		if raw.StmtLen > 0 {
			end = start + int(raw.StmtLen)
		}
		if start < 0 || start > len(query) || end > len(query) || end < start {
			return nil, fmt.Errorf("BUG: sql: statement bounds [%d,%d) outside query of %d bytes", start, end, len(query))
		}
		seg := query[start:end]
		text := strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(seg), ";"))
		offset := start + strings.Index(seg, text)
		tree := raw.Stmt
		if len(res.Stmts) > 1 || offset != 0 {
			// Re-parse the statement alone so that the tree's locations
			// are relative to Text (parsing costs ~40 us; only
			// multi-statement strings pay it twice).
			one, err := pg_query.Parse(text)
			if err != nil || len(one.Stmts) != 1 {
				return nil, fmt.Errorf("BUG: sql: statement %q does not re-parse alone: %v", text, err)
			}
			tree = one.Stmts[0].Stmt
		}
		guardFunctions(tree)
		st := &Statement{Text: text, Query: query, Offset: offset, Tree: tree}
		st.Kind, st.Tag = classify(tree)
		out = append(out, st)
	}
	return out, nil
}

// QueryPosition converts a position reported by Translate*(s.Tree, ...) or
// MapError(err, s.Text) — 1 + a byte offset within s.Text — into
// PostgreSQL's position: 1-based characters within s.Query. 0 stays 0.
func (s *Statement) QueryPosition(pos int) int {
	if pos <= 0 {
		return pos
	}
	return CharPosition(s.Query, s.Offset+pos-1)
}

// Locate returns err with its Position converted by QueryPosition when it
// is a *pgerr.Error with a position (from Translate* or MapError with
// s.Text); other errors are returned unchanged.
func (s *Statement) Locate(err error) error {
	e, ok := pgerr.As(err)
	if !ok || e.Position <= 0 {
		return err
	}
	return e.WithPosition(s.QueryPosition(e.Position))
}

// CharPosition converts a 0-based byte offset in s into PostgreSQL's 1-based
// character position.
func CharPosition(s string, byteOffset int) int {
	if byteOffset < 0 {
		return 0
	}
	if byteOffset > len(s) {
		byteOffset = len(s)
	}
	return utf8.RuneCountInString(s[:byteOffset]) + 1
}

func parseError(query string, err error) error {
	if strings.Contains(err.Error(), "exceeded maximum recursion depth") {
		// The Go side of pg_query refuses a tree nested deeper than
		// protobuf's limit (checkLexicalDepth normally refuses first).
		return StackDepthError()
	}
	var pe *parser.Error
	if errors.As(err, &pe) {
		e := pgerr.Wrap(err, pgerr.SyntaxError, "%s", pe.Message)
		if pe.Cursorpos > 0 {
			// libpg_query's cursorpos is already PostgreSQL's 1-based
			// character position.
			e.Position = pe.Cursorpos
		}
		if strings.HasPrefix(pe.Message, "invalid byte sequence for encoding") {
			// An escape in a literal (E'\xff', E'\000') made bytes that
			// are not UTF-8: the scanner's pg_verifymbstr, 22021 without
			// a position, as PostgreSQL reports it.
			e.Code, e.Position = pgerr.CharacterNotInRepertoire, 0
			return e
		}
		if strings.Contains(pe.Message, "unterminated") || strings.HasPrefix(pe.Message, "syntax error") {
			return e
		}
		// Other parser errors (e.g. "invalid input syntax", "zero-length
		// delimited identifier") keep 42601 as PostgreSQL's scanner does.
		return e
	}
	return pgerr.Wrap(err, pgerr.SyntaxError, "%s", err.Error())
}

// classify returns the statement kind and command tag.
func classify(n *pg_query.Node) (Kind, string) {
	switch s := n.GetNode().(type) {
	case *pg_query.Node_SelectStmt:
		if s.SelectStmt.IntoClause != nil {
			return KindOther, "SELECT INTO"
		}
		if len(s.SelectStmt.LockingClause) > 0 {
			// FOR UPDATE/SHARE: a snapshot read cannot lock rows; we accept
			// and ignore like a read-only replica would not. Reject instead.
			return KindOther, "SELECT FOR UPDATE/SHARE"
		}
		return KindSelect, "SELECT"
	case *pg_query.Node_InsertStmt:
		return KindInsert, "INSERT"
	case *pg_query.Node_UpdateStmt:
		return KindUpdate, "UPDATE"
	case *pg_query.Node_DeleteStmt:
		return KindDelete, "DELETE"
	case *pg_query.Node_MergeStmt:
		return KindMerge, "MERGE"
	case *pg_query.Node_CopyStmt:
		return KindCopy, "COPY"
	case *pg_query.Node_CreateStmt:
		return KindCreateTable, "CREATE TABLE"
	case *pg_query.Node_DropStmt:
		switch s.DropStmt.RemoveType {
		case pg_query.ObjectType_OBJECT_TABLE:
			return KindDropTable, "DROP TABLE"
		case pg_query.ObjectType_OBJECT_SCHEMA:
			return KindDropSchema, "DROP SCHEMA"
		}
		return KindOther, "DROP " + objectTypeName(s.DropStmt.RemoveType)
	case *pg_query.Node_TruncateStmt:
		return KindTruncate, "TRUNCATE TABLE"
	case *pg_query.Node_CreateSchemaStmt:
		return KindCreateSchema, "CREATE SCHEMA"
	case *pg_query.Node_CreatedbStmt:
		return KindCreateDatabase, "CREATE DATABASE"
	case *pg_query.Node_DropdbStmt:
		return KindDropDatabase, "DROP DATABASE"
	case *pg_query.Node_TransactionStmt:
		switch s.TransactionStmt.Kind {
		case pg_query.TransactionStmtKind_TRANS_STMT_BEGIN:
			return KindBegin, "BEGIN"
		case pg_query.TransactionStmtKind_TRANS_STMT_START:
			return KindBegin, "START TRANSACTION"
		case pg_query.TransactionStmtKind_TRANS_STMT_COMMIT:
			return KindCommit, "COMMIT"
		case pg_query.TransactionStmtKind_TRANS_STMT_ROLLBACK:
			return KindRollback, "ROLLBACK"
		case pg_query.TransactionStmtKind_TRANS_STMT_SAVEPOINT:
			return KindSavepoint, "SAVEPOINT"
		case pg_query.TransactionStmtKind_TRANS_STMT_RELEASE:
			return KindSavepoint, "RELEASE"
		case pg_query.TransactionStmtKind_TRANS_STMT_ROLLBACK_TO:
			return KindSavepoint, "ROLLBACK"
		}
		return KindOther, "PREPARE TRANSACTION"
	case *pg_query.Node_VariableSetStmt:
		switch s.VariableSetStmt.Kind {
		case pg_query.VariableSetKind_VAR_RESET, pg_query.VariableSetKind_VAR_RESET_ALL:
			return KindReset, "RESET"
		}
		return KindSet, "SET"
	case *pg_query.Node_VariableShowStmt:
		return KindShow, "SHOW"
	case *pg_query.Node_ExplainStmt:
		return KindExplain, "EXPLAIN"
	case *pg_query.Node_PrepareStmt:
		return KindPrepare, "PREPARE"
	case *pg_query.Node_ExecuteStmt:
		return KindExecute, "EXECUTE"
	case *pg_query.Node_DeallocateStmt:
		if s.DeallocateStmt.Isall {
			return KindDeallocate, "DEALLOCATE ALL"
		}
		return KindDeallocate, "DEALLOCATE"
	case *pg_query.Node_DiscardStmt:
		switch s.DiscardStmt.Target {
		case pg_query.DiscardMode_DISCARD_ALL:
			return KindDiscard, "DISCARD ALL"
		case pg_query.DiscardMode_DISCARD_PLANS:
			return KindDiscard, "DISCARD PLANS"
		case pg_query.DiscardMode_DISCARD_SEQUENCES:
			return KindDiscard, "DISCARD SEQUENCES"
		}
		return KindDiscard, "DISCARD TEMP"
	case *pg_query.Node_CreateRoleStmt:
		return KindCreateRole, "CREATE ROLE"
	case *pg_query.Node_AlterRoleStmt:
		return KindAlterRole, "ALTER ROLE"
	case *pg_query.Node_DropRoleStmt:
		return KindDropRole, "DROP ROLE"
	case *pg_query.Node_GrantStmt:
		if s.GrantStmt.IsGrant {
			return KindGrant, "GRANT"
		}
		return KindGrant, "REVOKE"
	case *pg_query.Node_GrantRoleStmt:
		if s.GrantRoleStmt.IsGrant {
			return KindGrantRole, "GRANT ROLE"
		}
		return KindGrantRole, "REVOKE ROLE"
	case *pg_query.Node_RenameStmt:
		if s.RenameStmt.RenameType == pg_query.ObjectType_OBJECT_ROLE {
			return KindAlterRole, "ALTER ROLE"
		}
	case *pg_query.Node_AlterOwnerStmt:
		switch s.AlterOwnerStmt.ObjectType {
		case pg_query.ObjectType_OBJECT_SCHEMA:
			return KindAlterOwner, "ALTER SCHEMA"
		case pg_query.ObjectType_OBJECT_DATABASE:
			return KindAlterOwner, "ALTER DATABASE"
		}
	case *pg_query.Node_AlterTableStmt:
		if isOwnerChange(s.AlterTableStmt) {
			if s.AlterTableStmt.Objtype == pg_query.ObjectType_OBJECT_SEQUENCE {
				return KindAlterOwner, "ALTER SEQUENCE"
			}
			return KindAlterOwner, "ALTER TABLE"
		}
	}
	return KindOther, otherTag(n)
}

// isOwnerChange reports whether an ALTER TABLE only changes the owner.
func isOwnerChange(at *pg_query.AlterTableStmt) bool {
	if at.Objtype != pg_query.ObjectType_OBJECT_TABLE && at.Objtype != pg_query.ObjectType_OBJECT_SEQUENCE || len(at.Cmds) == 0 {
		return false
	}
	for _, c := range at.Cmds {
		if c.GetAlterTableCmd().GetSubtype() != pg_query.AlterTableType_AT_ChangeOwner {
			return false
		}
	}
	return true
}

// otherTag names an unsupported statement the way PostgreSQL's command tag
// would (best effort): "CREATE INDEX", "ALTER TABLE", ...
func otherTag(n *pg_query.Node) string {
	switch s := n.GetNode().(type) {
	case *pg_query.Node_IndexStmt:
		return "CREATE INDEX"
	case *pg_query.Node_AlterTableStmt:
		return "ALTER TABLE"
	case *pg_query.Node_ViewStmt:
		return "CREATE VIEW"
	case *pg_query.Node_CreateTableAsStmt:
		return "CREATE TABLE AS"
	case *pg_query.Node_CreateSeqStmt:
		return "CREATE SEQUENCE"
	case *pg_query.Node_CreateFunctionStmt:
		return "CREATE FUNCTION"
	case *pg_query.Node_MergeStmt:
		return "MERGE"
	case *pg_query.Node_VacuumStmt:
		if s.VacuumStmt.IsVacuumcmd {
			return "VACUUM"
		}
		return "ANALYZE"
	case *pg_query.Node_GrantStmt:
		if s.GrantStmt.IsGrant {
			return "GRANT"
		}
		return "REVOKE"
	case *pg_query.Node_CreateRoleStmt:
		return "CREATE ROLE"
	case *pg_query.Node_ListenStmt:
		return "LISTEN"
	case *pg_query.Node_NotifyStmt:
		return "NOTIFY"
	case *pg_query.Node_LockStmt:
		return "LOCK TABLE"
	case *pg_query.Node_DeclareCursorStmt:
		return "DECLARE CURSOR"
	case *pg_query.Node_RenameStmt:
		return "ALTER " + objectTypeName(s.RenameStmt.RenameType)
	case *pg_query.Node_DoStmt:
		return "DO"
	case *pg_query.Node_CallStmt:
		return "CALL"
	case *pg_query.Node_CommentStmt:
		return "COMMENT"
	case *pg_query.Node_DefineStmt:
		return "CREATE " + objectTypeName(s.DefineStmt.Kind)
	}
	// Fall back to the node type name without the "Stmt" suffix, in words
	// (AlterDefaultPrivilegesStmt is "ALTER DEFAULT PRIVILEGES"), with the
	// names PostgreSQL's CreateCommandTag gives where the node's differs.
	name := fmt.Sprintf("%T", n.GetNode())
	name = strings.TrimSuffix(strings.TrimPrefix(name, "*pg_query.Node_"), "Stmt")
	if tag, ok := nodeTags[name]; ok {
		return tag
	}
	var b strings.Builder
	for i, r := range name {
		if i > 0 && unicode.IsUpper(r) {
			b.WriteByte(' ')
		}
		b.WriteRune(unicode.ToUpper(r))
	}
	return b.String()
}

// nodeTags are PostgreSQL's command tags of the statement nodes whose
// names, split into words, are not the tag.
var nodeTags = map[string]string{
	"Index": "CREATE INDEX", "View": "CREATE VIEW", "CreateSeq": "CREATE SEQUENCE",
	"AlterSeq": "ALTER SEQUENCE", "Rule": "CREATE RULE", "Createdb": "CREATE DATABASE",
	"Dropdb": "DROP DATABASE", "Alterdb": "ALTER DATABASE", "CreateTrig": "CREATE TRIGGER",
	"CreatePLang": "CREATE LANGUAGE", "CreateFdw": "CREATE FOREIGN DATA WRAPPER",
	"AlterFdw": "ALTER FOREIGN DATA WRAPPER", "CreateForeignServer": "CREATE SERVER",
	"AlterForeignServer": "ALTER SERVER", "CreateUserMapping": "CREATE USER MAPPING",
	"Reindex": "REINDEX", "Cluster": "CLUSTER", "Load": "LOAD", "Checkpoint": "CHECKPOINT",
	"CompositeType": "CREATE TYPE", "CreateEnum": "CREATE TYPE", "CreateRange": "CREATE TYPE",
	"AlterEnum": "ALTER TYPE", "CreateAm": "CREATE ACCESS METHOD", "CreateOpClass": "CREATE OPERATOR CLASS",
	"CreateOpFamily": "CREATE OPERATOR FAMILY", "AlterOpFamily": "ALTER OPERATOR FAMILY",
	"CreateConversion": "CREATE CONVERSION", "CreateCast": "CREATE CAST", "CreateTransform": "CREATE TRANSFORM",
	"AlterTSDictionary": "ALTER TEXT SEARCH DICTIONARY", "AlterTSConfiguration": "ALTER TEXT SEARCH CONFIGURATION",
	"CreateEventTrig": "CREATE EVENT TRIGGER", "AlterEventTrig": "ALTER EVENT TRIGGER",
	"CreateStats": "CREATE STATISTICS", "AlterStats": "ALTER STATISTICS", "CreateFunction": "CREATE FUNCTION",
	"AlterFunction": "ALTER FUNCTION", "Truncate": "TRUNCATE TABLE",
	"Discard": "DISCARD", "ReassignOwned": "REASSIGN OWNED", "DropOwned": "DROP OWNED",
	"AlterSystem": "ALTER SYSTEM", "ImportForeignSchema": "IMPORT FOREIGN SCHEMA", "SecLabel": "SECURITY LABEL",
	"CreateExtension": "CREATE EXTENSION", "AlterExtension": "ALTER EXTENSION", "AlterExtensionContents": "ALTER EXTENSION",
	"Constraints": "SET CONSTRAINTS", "RefreshMatView": "REFRESH MATERIALIZED VIEW",
	"AlterTableSpaceOptions": "ALTER TABLESPACE", "CreateTableSpace": "CREATE TABLESPACE", "DropTableSpace": "DROP TABLESPACE",
}

func objectTypeName(t pg_query.ObjectType) string {
	s := strings.TrimPrefix(t.String(), "OBJECT_")
	return strings.ReplaceAll(s, "_", " ")
}
