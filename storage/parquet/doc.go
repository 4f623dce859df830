// Package parquet writes the immutable data files of a table (and reads
// them back for tests and tools). Queries read Parquet through the query
// engine, not through this package.
//
// # File layout
//
// WriteFile writes one Parquet file from Arrow record batches with arrow-go;
// Writer does the same batch by batch (NewWriter, Write, EndRowGroup, Close)
// for a bulk load that writes while its rows still arrive, holding only the
// open row group in memory. Writer drives arrow-go's file writer column by
// column (pqarrow.WriteArrowToColumn into buffered row groups), as
// pqarrow.FileWriter.WriteBuffered does:
//
//   - an explicit row-group length (WriteOptions.RowGroupRows, default
//     122880): many small batches make few row groups;
//   - zstd compression (default level; WriteOptions.CompressionLevel, e.g.
//     1 for bulk loads, where encoding is the bottleneck), column statistics
//     enabled;
//   - dictionary encoding off for mostly-distinct kinds (int64, float64,
//     decimal, time, timestamp(tz), uuid, interval), on for the others;
//     string, json and binary columns get their dictionary built here, per
//     row group, and handed to arrow-go once at the row group's end (dict.go:
//     why, and how the pages differ from arrow-go's own); a column chunk
//     whose dictionary would pass the 1 MiB page limit goes PLAIN;
//   - integer and temporal columns DELTA_BINARY_PACKED when a sample of
//     the file's first rows shows them (nearly) in order, PLAIN otherwise
//     (encoding.go: chosen per file, from the first batch given to Writer
//     or the batches given to WriteFile);
//   - the Arrow schema stored in the file metadata (ARROW:schema), so
//     readers get back the exact Arrow types and field metadata;
//   - every column carries its Iceberg field id (PARQUET:field_id from
//     schema.Schema.Arrow()), so Iceberg readers resolve columns by id.
//
// How each kind lands in Parquet (physical type / logical type):
//
//	bool          BOOLEAN
//	int16         INT32 / INT(16, signed)        (Iceberg: int)
//	int32         INT32
//	int64         INT64
//	float32       FLOAT
//	float64       DOUBLE
//	decimal(p,s)  FIXED_LEN_BYTE_ARRAY or INT32/INT64 / DECIMAL(p,s), as pqarrow chooses
//	string, json  BYTE_ARRAY / STRING
//	binary        BYTE_ARRAY
//	date          INT32 / DATE
//	time          INT64 / TIME(MICROS, adjusted to UTC)
//	timestamp     INT64 / TIMESTAMP(MICROS, isAdjustedToUTC=false)
//	timestamptz   INT64 / TIMESTAMP(MICROS, isAdjustedToUTC=true)
//	uuid          FIXED_LEN_BYTE_ARRAY(16) / UUID (Arrow uuid extension type)
//	interval      FIXED_LEN_BYTE_ARRAY(16), no logical type (see below)
//
// Intervals: Parquet's INTERVAL logical type holds milliseconds and pqarrow
// does not write Arrow month_day_nano, so an interval is stored as 16 bytes:
// months int32 LE, days int32 LE, nanoseconds int64 LE (EncodeInterval;
// DecodeInterval is the inverse; ReadFile converts back using the column's
// bsdb:kind=interval field metadata). In Iceberg metadata the column is
// fixed[16]. Part of the on-disk format.
//
// # Statistics
//
// WriteFile returns a manifest.DataFile with Rows, Bytes (the exact file
// size) and one manifest.ColumnStats per column (null count, min, max),
// computed from the Arrow data in the same pass; the JSON encoding of min
// and max per kind is documented in package manifest. The caller sets Path
// and AddedVersion. The Parquet column chunks carry their own statistics
// (null count, min, max), computed by arrow-go; for a dictionary-encoded
// string column from its dictionary's values (dict.go), which are exactly
// the chunk's distinct values (TestStringDictionaries checks them).
//
// # Position delete files
//
// WritePositionDeletes writes an Iceberg v2 position delete file: required
// columns file_path (string, field id 2147483546) and pos (int64, field id
// 2147483545), rows sorted by (file_path, pos) without duplicates, zstd,
// column statistics on (Iceberg readers prune by file_path's bounds).
// ReadPositionDeletes reads such a file from any writer, by column name.
//
// Input batches must have exactly the schema's column count and Arrow types
// (schema.Column.ArrowType); a NULL in a NOT NULL column is rejected.
package parquet
