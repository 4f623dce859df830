// Package pgerr is the error vocabulary every layer uses to say what a
// PostgreSQL client should see: a SQLSTATE, a message, and optionally a
// detail, a hint and a 1-based character position in the query text.
// pgwire turns an *Error into an ErrorResponse (or a NoticeResponse); any
// other error reaching the wire is reported as XX000 internal_error.
//
// encoding.go is PostgreSQL's verification of text in the UTF8 server
// encoding (pg_verify_mbstr: no invalid or truncated sequence, no NUL) and
// its error, 22021 "invalid byte sequence for encoding "UTF8": 0xc3 0x28":
// CheckText, InvalidText, InvalidByteSequence. It lives in this leaf package
// because pgwire (query strings) and pgtypes (values, COPY) both make the
// check. Valid input costs one utf8.Valid and one bytes.IndexByte.
package pgerr

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
)

// SQLSTATE codes used by bsdb-pg (PostgreSQL's errcodes.txt names them).
const (
	SuccessfulCompletion         = "00000"
	Warning                      = "01000"
	FeatureNotSupported          = "0A000"
	CardinalityViolation         = "21000"
	DataException                = "22000"
	StringDataRightTruncation    = "22001"
	NumericValueOutOfRange       = "22003"
	NullValueNotAllowed          = "22004"
	InvalidDatetimeFormat        = "22007"
	DatetimeFieldOverflow        = "22008"
	InvalidTimeZoneDisplacement  = "22009"
	DivisionByZero               = "22012"
	InvalidParameterValue        = "22023"
	InvalidTextRepresentation    = "22P02"
	BadCopyFileFormat            = "22P04"
	InvalidBinaryRepresentation  = "22P03"
	UntranslatableCharacter      = "22P05"
	CharacterNotInRepertoire     = "22021"
	InvalidEscapeSequence        = "22025"
	ArraySubscriptError          = "2202E"
	NotNullViolation             = "23502"
	UniqueViolation              = "23505"
	CheckViolation               = "23514"
	InvalidCursorState           = "24000"
	InvalidTransactionState      = "25000"
	ActiveSQLTransaction         = "25001"
	NoActiveSQLTransaction       = "25P01"
	InFailedSQLTransaction       = "25P02"
	ReadOnlySQLTransaction       = "25006"
	InvalidAuthorizationSpec     = "28000"
	InvalidPassword              = "28P01"
	InvalidSQLStatementName      = "26000"
	InvalidCursorName            = "34000"
	SerializationFailure         = "40001"
	SyntaxError                  = "42601"
	InsufficientPrivilege        = "42501"
	UndefinedColumn              = "42703"
	UndefinedFunction            = "42883"
	UndefinedTable               = "42P01"
	UndefinedParameter           = "42P02"
	UndefinedObject              = "42704"
	DuplicateColumn              = "42701"
	DuplicateDatabase            = "42P04"
	DuplicatePreparedStatement   = "42P05"
	DuplicateSchema              = "42P06"
	DuplicateTable               = "42P07"
	DuplicateObject              = "42710"
	AmbiguousColumn              = "42702"
	AmbiguousFunction            = "42725"
	AmbiguousParameter           = "42P08"
	IndeterminateDatatype        = "42P18"
	DatatypeMismatch             = "42804"
	CannotCoerce                 = "42846"
	GroupingError                = "42803"
	WindowingError               = "42P20"
	InvalidColumnReference       = "42P10"
	InvalidRecursion             = "42P19"
	UndefinedDatabase            = "3D000"
	InvalidSchemaName            = "3F000"
	InvalidCatalogName           = "3D000"
	ProgramLimitExceeded         = "54000"
	StatementTooComplex          = "54001"
	InsufficientResources        = "53000"
	DiskFull                     = "53100"
	TooManyConnections           = "53300"
	OutOfMemory                  = "53200"
	QueryCanceled                = "57014"
	AdminShutdown                = "57P01"
	ObjectNotInPrerequisiteState = "55000"
	ObjectInUse                  = "55006"
	ProtocolViolation            = "08P01"
	ConnectionException          = "08000"
	InternalError                = "XX000"
	DataCorrupted                = "XX001"
	IOError                      = "58030"
)

// Severities.
const (
	SeverityError  = "ERROR"
	SeverityFatal  = "FATAL"
	SeverityNotice = "NOTICE"
	SeverityWarn   = "WARNING"
)

// Error is an error with a SQLSTATE.
type Error struct {
	Severity string // "" means ERROR
	Code     string
	Message  string
	Detail   string
	Hint     string
	Position int // 1-based character offset into the query text, 0 = none
	// NoPosition: the error never carries a position, whatever reference
	// it arose at (PostgreSQL raises it at execution, e.g. "permission
	// denied for table t"): WithPosition leaves Position 0.
	NoPosition bool
	Where      string
	// SchemaName, TableName, ConstraintName: the object an integrity
	// error is about (the ErrorResponse's s, t, n fields; drivers expose
	// them, e.g. pgx's PgError.ConstraintName).
	SchemaName, TableName, ConstraintName string
	Err                                   error // cause, not sent to the client
}

func (e *Error) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("%s (SQLSTATE %s): %v", e.Message, e.Code, e.Err)
	}
	return fmt.Sprintf("%s (SQLSTATE %s)", e.Message, e.Code)
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// New returns an ERROR with code and message.
func New(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Wrap returns an ERROR with code and message whose cause is err.
func Wrap(err error, code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...), Err: err}
}

// As extracts an *Error from err's chain.
func As(err error) (*Error, bool) {
	var e *Error
	if errors.As(err, &e) {
		return e, true
	}
	return nil, false
}

// Code returns the SQLSTATE of err: its *Error's code, 57014 for a cancelled
// context, else XX000.
func Code(err error) string {
	if e, ok := As(err); ok {
		return e.Code
	}
	return InternalError
}

// WithPosition returns a copy of e with Position set (unless NoPosition).
func (e *Error) WithPosition(pos int) *Error {
	c := *e
	if !c.NoPosition {
		c.Position = pos
	}
	return &c
}

// WithPositionIfNone gives err the position pos when it is an *Error
// without one; other errors are returned as they are.
func WithPositionIfNone(err error, pos int) error {
	e, ok := As(err)
	if !ok || e.Position != 0 || pos <= 0 {
		return err
	}
	return e.WithPosition(pos)
}

// WithDetail returns a copy of e with Detail set.
func (e *Error) WithDetail(format string, args ...any) *Error {
	c := *e
	c.Detail = fmt.Sprintf(format, args...)
	return &c
}

// WithHint returns a copy of e with Hint set.
func (e *Error) WithHint(format string, args ...any) *Error {
	c := *e
	c.Hint = fmt.Sprintf(format, args...)
	return &c
}

// absPath matches an absolute file path of at least two components,
// where a path can start (after a space, a quote, '=', '(', ':' or ',').
var absPath = regexp.MustCompile(`(^|[\s"'=(:,])((?:/[A-Za-z0-9._\-+@%=~*]+){2,}/?)`)

// RedactPaths replaces every absolute path in msg by its last component:
// a client never learns where the server keeps its files. Only messages of
// internal and system errors (classes XX, 58, 53) are redacted by the wire
// layer: others may quote a client's own text, which may look like a path.
func RedactPaths(msg string) string {
	return absPath.ReplaceAllStringFunc(msg, func(m string) string {
		sub := absPath.FindStringSubmatch(m)
		p := strings.TrimSuffix(sub[2], "/")
		return sub[1] + p[strings.LastIndexByte(p, '/')+1:]
	})
}

// RedactedClass reports whether errors of this SQLSTATE get RedactPaths.
func RedactedClass(code string) bool {
	return strings.HasPrefix(code, "XX") || strings.HasPrefix(code, "58") || strings.HasPrefix(code, "53")
}
