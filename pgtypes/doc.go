// Package pgtypes is the PostgreSQL type vocabulary shared by the wire layer
// (pgwire) and the SQL layer (sql): type OIDs and pg_type metadata, type
// names and typmods, the exact text and binary formats of values, and the
// COPY row formats. Its output must be byte-identical to PostgreSQL 15/16
// under the same settings; the tests compare against a real PostgreSQL
// (internal/pgref) for every format. It imports only the standard library,
// pgerr and storage/schema.
//
// # Where to start
//
//   - oid.go, oid_table.go: OIDs (OIDInt4 ...), TypeInfo, TypeByOID, TypeByName.
//     oid_table.go was generated from pg_type of PostgreSQL 15;
//     TestTypeTableMatchesPgType re-checks it.
//   - typename.go: ParseTypeName (from pg_query's TypeName), ParseTypeString
//     (SQL spelling, the inverse of FormatType), FormatType (format_type),
//     typmod encoding: varchar(n)/char(n) n+4; numeric(p,s) ((p<<16)|(s&0x7ff))+4
//     (PostgreSQL 15 allows -1000 <= s <= 1000); time/timestamp(p) p (p>6 is
//     reduced to 6); interval ((fields&0x7fff)<<16)|(p&0xffff).
//   - schemamap.go: ColumnType (PG type -> storage/schema Column with Kind,
//     Precision/Scale/Length and Annotation = FormatType spelling) and
//     TypeOfColumn (the inverse: Annotation first, else Kind).
//   - textout.go, datetime_out.go, interval_out.go: AppendText (typoutput).
//   - textin.go, datetime_in.go, interval_in.go, jsonb.go: ParseText (typinput).
//   - binary.go, array.go: AppendBinary / ParseBinary (typsend / typreceive).
//   - copy.go, copy_text.go, copy_binary.go: CopyReader / CopyWriter.
//   - copy_typed.go: ParseIntText, ParseFloatText, ParseBoolText,
//     ParseDateText, ParseTimestampText, ParseUUIDText, ParseByteaText: the
//     typinput of one type, unboxed (same parsing and errors as ParseText),
//     for COPY's typed column builders (server/copy_decode.go).
//
// # Value representation (the canonical in-memory form every layer uses)
//
//	bool                      bool
//	int2 / int4 / int8        int16 / int32 / int64 (encoders accept any Go int)
//	float4 / float8           float32 / float64
//	numeric                   Numeric{Int *big.Int; Scale int32; NaN bool; Inf int8}
//	                          value = Int * 10^-Scale; Scale is the display scale
//	text varchar bpchar name  string (bpchar values are blank-padded by
//	json jsonb xml "char"     ParseText; AppendText pads to the typmod too)
//	                          jsonb strings are in jsonb_out's normalized form
//	bytea                     []byte
//	date                      Date: int32 days since 2000-01-01, proleptic
//	                          Gregorian; DateInfinity / DateNegInfinity
//	time                      Time: int64 µs since midnight (24:00:00 allowed)
//	timetz                    TimeTZ{Micros int64; Offset int32 seconds east}
//	timestamp                 Timestamp: int64 µs since 2000-01-01 00:00 (wall clock)
//	timestamptz               TimestampTZ: int64 µs since 2000-01-01 00:00 UTC
//	                          both with ±infinity sentinels (MinInt64/MaxInt64)
//	interval                  Interval{Months, Days int32; Micros int64}
//	uuid                      [16]byte
//	oid, reg*                 uint32 (reg* text input that is not a number is
//	                          returned as string: the SQL layer resolves names)
//	arrays (_int4 ...)        []any of element values (nil = NULL), 1-D with
//	                          lower bound 1; Array{Dims, LBound, Elems} otherwise
//	NULL                      nil (never passed to the encoders)
//
// Encoders also accept time.Time for date, time, timestamp (its wall clock in
// its location) and timestamptz (its instant), and time.Duration for
// interval and time, because the DuckDB driver returns those.
//
// # Settings (Settings; nil = DefaultSettings())
//
//   - DateStyle + DateOrder: output ISO / Postgres / SQL / German; order
//     MDY / DMY / YMD for input of ambiguous dates and SQL/Postgres output.
//     SetDateStyle parses "ISO, MDY" like check_datestyle.
//   - TimeZone (*time.Location) and TimeZoneName: timestamptz output offset
//     (ISO: +HH[:MM[:SS]], other styles: the zone abbreviation), and the zone
//     for input without an explicit zone. Offsets and abbreviations come from
//     the system tzdata, as in a Debian PostgreSQL (--with-system-tzdata).
//   - IntervalStyle: postgres, postgres_verbose, sql_standard, iso_8601.
//   - ExtraFloatDigits: > 0 shortest round-trip digits (PostgreSQL uses Ryu,
//     we use strconv's shortest, which yields the same digits), exponent form
//     when the decimal exponent is < -4 or >= 15 (float8) / 6 (float4),
//     printed "1e+20", "1.5e-07"; <= 0 "%.{15+n}g" / "%.{6+n}g".
//     NaN, Infinity, -Infinity, -0 as PostgreSQL prints them.
//   - ByteaOutput: hex (\x0aff) or escape (\012\377 and \\).
//
// # Formats and their specifications
//
// Text formats follow the type's input/output functions in PostgreSQL's
// src/backend/utils/adt (int.c, float.c, numeric.c, date.c, timestamp.c,
// datetime.c EncodeDateTime/EncodeInterval/DecodeDateTime, varlena.c,
// uuid.c, jsonb.c). Binary formats are the typsend/typreceive functions
// (documented per type in binary.go's AppendBinary). COPY formats are the
// "File Formats" section of the COPY reference page: text (delimiter, NULL
// string matched on the raw field before de-escaping, escapes \b \f \n \r
// \t \v \\ \digits \xhh, end marker "\." alone on a line), CSV (unquoted
// NULL string = NULL, quoted = string, FORCE_QUOTE / FORCE_NOT_NULL /
// FORCE_NULL, quoted fields may span lines), and binary (copy_binary.go has
// the byte layout: signature "PGCOPY\n\377\r\n\0", int32 flags, int32
// extension length, tuples of int16 count + int32-length fields, -1 trailer).
//
// JSON input errors (jsonerr.go) carry PostgreSQL's DETAIL (Token "x" is
// invalid., Expected ":", but found "}"., The input string ended
// unexpectedly., ...) and CONTEXT ("JSON data, line N: <line up to the
// token>", "..." where cut), for json and jsonb alike; json keeps its text.
// jsonb text output (AppendText) normalizes whatever text it is given, so
// engine-produced fragments (DuckDB prints compact JSON) print as
// jsonb_out would. Numeric encoders accept a float64 (NaN, ±Infinity, or a
// finite value with 15 significant digits), which is how the SQL layer
// carries numeric NaN through DuckDB.
//
// Errors are *pgerr.Error with PostgreSQL's SQLSTATE and message text (22P02
// invalid_text_representation, 22003 numeric_value_out_of_range, 22007
// invalid_datetime_format, 22008 datetime_field_overflow, 22001
// string_data_right_truncation, 22P03 invalid_binary_representation, 22P04
// bad_copy_file_format, 22023 invalid_parameter_value). COPY errors are
// *CopyError{Line, Column} wrapping a *pgerr.Error whose Where is
// PostgreSQL's CONTEXT line ("COPY t, line 3: ..." ); for a conversion error
// in a value the caller uses CopyReader.Where(col, value).
//
// # Text encoding, array dimensions
//
// COPY FROM verifies its input as PostgreSQL does: text and CSV input
// (whatever the column types, the header too) must be valid UTF-8 without
// NUL, verified a whole read at a time as it is read (copy_verify.go: one
// vectorized pass, no cost per line), the error met at the line that holds
// the bytes (22021, CONTEXT "COPY t, line N" without the line); an escape
// that makes a non-ASCII byte or a NUL (\xff, \0) has its field verified
// again (CONTEXT with the line). Binary fields are verified by the receive
// functions of the text types (ParseBinary of text, varchar, bpchar, name,
// json, jsonb, xml and text array elements), and a binary COPY's CONTEXT
// never shows a value. ParseText trusts its input: its callers verified it
// (the query string, a Bind parameter, a COPY line). Arrays have at most
// MaxArrayDims (6, MAXDIM) dimensions: array_in refuses the brace or
// dimension that opens a 7th, array_recv an ndim above it (54000), so no
// input builds a deeper nest.
//
// Format (format.go) follows text_format's parser step by step; FuzzFormat
// checks that no format string panics.
//
// # COPY performance contract
//
// CopyReader.Next returns fields that alias an internal buffer (valid until
// the next call) and performs no per-row allocation for text, CSV and binary
// input; unescaped text/CSV fields are sub-slices of bufio's buffer, and so
// are binary fields when the whole tuple is buffered (the common case).
// CopyWriter.AppendRow appends into the caller's buffer. Benchmarks:
// go test -run XXX -bench Copy ./pgtypes
//
// # Known gaps (design debt)
//
//   - Date/time input is a practical subset of DecodeDateTime: ISO, the
//     DateStyle orders, month names, 8-digit dates, zones by offset,
//     abbreviation (a subset of the "Default" set) or IANA name, BC, AM/PM,
//     special words. Julian dates ("J2451187"), "yesterday 12:00" style
//     combinations and ISO week dates are rejected.
//   - Arrays have text output and binary send/receive (array.go) but no
//     text input (array_in); int2vector/oidvector pass through as strings.
//     bit, inet, money, geometric types have metadata only: their values
//     pass through AppendText/ParseText as strings.
//   - Interval typmods with a field restriction (interval day to second) are
//     parsed and formatted, but ParseText applies only their precision, not
//     the field truncation.
//   - COPY text input handles \n and \r\n line ends; a file with bare \r line
//     ends is rejected ("literal carriage return found in data").
package pgtypes
