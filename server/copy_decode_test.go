package server

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/bsdb/bsdb-pg/pgerr"
	"github.com/bsdb/bsdb-pg/pgtypes"
	bsql "github.com/bsdb/bsdb-pg/sql"
	"github.com/bsdb/bsdb-pg/storage/schema"
)

type testCol struct {
	name    string
	oid     uint32
	typmod  int32
	notNull bool
}

// testTable builds the schema, Arrow schema and TableInfo of columns.
func testTable(t testing.TB, cols ...testCol) (*schema.Schema, *arrow.Schema, *bsql.TableInfo) {
	t.Helper()
	sch := &schema.Schema{}
	info := &bsql.TableInfo{Name: "t"}
	for _, c := range cols {
		sc, err := pgtypes.ColumnType(c.oid, c.typmod)
		if err != nil {
			t.Fatal(err)
		}
		sc.Name, sc.NotNull = c.name, c.notNull
		sch.Columns = append(sch.Columns, sc)
		info.Columns = append(info.Columns, bsql.ColumnInfo{Name: c.name, TypeOID: c.oid, TypeMod: c.typmod, NotNull: c.notNull})
	}
	sch.AssignIDs()
	return sch, sch.Arrow(), info
}

// boxedDecode is the COPY decoding this package did before the typed
// decoder (every value through ParseText/ParseBinary into an []any row and
// batchBuilder.appendRow): the reference the typed decoder must equal,
// value for value and error for error, and the benchmark's baseline.
func boxedDecode(rd *pgtypes.CopyReader, sch *schema.Schema, as *arrow.Schema, info *bsql.TableInfo, set *pgtypes.Settings) ([]arrow.RecordBatch, error) {
	opts := rd.Options()
	bb := newBatchBuilder(sch, as, 0)
	row := make([]any, len(info.Columns))
	for {
		fields, err := rd.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			bb.abort()
			return nil, err
		}
		for i, f := range fields {
			c := info.Columns[i]
			if f == nil {
				row[i] = nil
				continue
			}
			var v any
			if opts.Format == pgtypes.CopyBinary {
				v, err = pgtypes.ParseBinary(c.TypeOID, c.TypeMod, f)
			} else {
				v, err = pgtypes.ParseText(c.TypeOID, c.TypeMod, f, set)
			}
			if err != nil {
				bb.abort()
				return nil, withWhere(err, rd.Where(i, f))
			}
			row[i] = v
		}
		if err := bb.appendRow(row); err != nil {
			bb.abort()
			return nil, withWhere(err, opts.Where(rd.Line(), -1, nil))
		}
	}
	return bb.finish(), nil
}

func typedDecode(rd *pgtypes.CopyReader, sch *schema.Schema, as *arrow.Schema, info *bsql.TableInfo, set *pgtypes.Settings) ([]arrow.RecordBatch, error) {
	pos := make([]int, len(info.Columns))
	for i := range pos {
		pos[i] = i
	}
	dec := newCopyDecoder(sch, as, info, pos, make([]any, len(pos)), rd.Options().Format == pgtypes.CopyBinary, set)
	defer dec.release()
	var out []arrow.RecordBatch
	_, err := decodeCopy(context.Background(), rd, dec, func(r arrow.RecordBatch) error { out = append(out, r); return nil })
	if err != nil {
		releaseAll(out)
		return nil, err
	}
	return out, nil
}

func errText(err error) string {
	if err == nil {
		return "<nil>"
	}
	if pe, ok := pgerr.As(err); ok {
		return fmt.Sprintf("%s %s | %s | %s", pe.Code, pe.Message, pe.Detail, pe.Where)
	}
	return err.Error()
}

// TestCopyTypedDecoderMatchesBoxed: for every type with a typed path (and a
// few without), in text, csv and binary, valid and invalid input, NULLs in
// nullable and NOT NULL columns, the typed decoder produces exactly the
// batches and exactly the errors (SQLSTATE, message, CONTEXT) of the boxed
// path PostgreSQL's behaviour was verified on.
func TestCopyTypedDecoderMatchesBoxed(t *testing.T) {
	types := []testCol{
		{"v", pgtypes.OIDInt2, -1, false}, {"v", pgtypes.OIDInt4, -1, false}, {"v", pgtypes.OIDInt8, -1, false},
		{"v", pgtypes.OIDFloat4, -1, false}, {"v", pgtypes.OIDFloat8, -1, false}, {"v", pgtypes.OIDBool, -1, false},
		{"v", pgtypes.OIDText, -1, false}, {"v", pgtypes.OIDVarchar, -1, false}, {"v", pgtypes.OIDBPChar, -1, false},
		{"v", pgtypes.OIDVarchar, 5 + 4, false}, {"v", pgtypes.OIDBPChar, 3 + 4, false},
		{"v", pgtypes.OIDBytea, -1, false}, {"v", pgtypes.OIDDate, -1, false}, {"v", pgtypes.OIDTimestamp, -1, false},
		{"v", pgtypes.OIDTimestampTZ, -1, false}, {"v", pgtypes.OIDTimestamp, 0, false}, {"v", pgtypes.OIDUUID, -1, false},
		{"v", pgtypes.OIDNumeric, (10<<16 | 2) + 4, false}, {"v", pgtypes.OIDNumeric, -1, false}, {"v", pgtypes.OIDInterval, -1, false},
		{"v", pgtypes.OIDJSONB, -1, false}, {"v", pgtypes.OIDInt4, -1, true}, {"v", pgtypes.OIDText, -1, true},
	}
	inputs := []string{
		"0", "1", "-1", " 42 ", "+7", "32767", "32768", "-32768", "-32769", "2147483647", "2147483648",
		"9223372036854775807", "9223372036854775808", "-9223372036854775808", "abc", "", "1.5", "-0", "1e10",
		"-1.5e-3", ".5", "5.", "1e", "NaN", "inf", "-Infinity", "1e400", "1e-400", "3.4e39", "1e-50", "0x1p3",
		"t", "f", "yes", "no", "on", "off", "TRUE", "False", "o", "2024-01-02", "2024-01-02 03:04:05",
		"2024-01-02T03:04:05.1234567Z", "2024-01-02 03:04:05.123456+02", "2024-02-30", "epoch", "infinity",
		"-infinity", "Jan 2 2024", "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11", "{A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11}",
		"a0eebc999c0b4ef8bb6d6bb9bd380a1", "\\x0102ff", "\\x012", "a\\\\b", "12345.678", "99999999.995",
		"héllo", "toolong  ", "toolongvalue", "ab ", "  ", "1 day 02:00", "{\"b\":1,\"a\":[1,2]}", "\\N", "x\ty",
	}
	ctx := context.Background()
	_ = ctx
	set := pgtypes.DefaultSettings()
	compare := func(t *testing.T, what string, data []byte, opts pgtypes.CopyOptions, tc testCol) {
		t.Helper()
		sch, as, info := testTable(t, testCol{"id", pgtypes.OIDInt8, -1, true}, tc)
		opts.Table, opts.Columns = "t", []string{"id", "v"}
		rd1, err := pgtypes.NewCopyReader(bytes.NewReader(data), opts, 2)
		if err != nil {
			t.Fatal(err)
		}
		rd2, _ := pgtypes.NewCopyReader(bytes.NewReader(data), opts, 2)
		want, werr := boxedDecode(rd1, sch, as, info, set)
		got, gerr := typedDecode(rd2, sch, as, info, set)
		defer releaseAll(want)
		defer releaseAll(got)
		if errText(werr) != errText(gerr) {
			t.Errorf("%s: error\n typed: %s\n boxed: %s", what, errText(gerr), errText(werr))
			return
		}
		if len(want) != len(got) {
			t.Errorf("%s: %d batches, boxed %d", what, len(got), len(want))
			return
		}
		for i := range want {
			if !array.RecordApproxEqual(want[i], got[i], array.WithNaNsEqual(true), array.WithAbsTolerance(0)) {
				t.Errorf("%s: batch differs\n typed: %v\n boxed: %v", what, got[i], want[i])
			}
		}
	}
	for _, tc := range types {
		name := pgtypes.FormatType(tc.oid, tc.typmod)
		if tc.notNull {
			name += " not null"
		}
		t.Run(name, func(t *testing.T) {
			for _, format := range []pgtypes.CopyFormat{pgtypes.CopyText, pgtypes.CopyCSV} {
				opts := pgtypes.CopyOptions{Format: format}
				cw, err := pgtypes.NewCopyWriter(nil, opts)
				if err != nil {
					t.Fatal(err)
				}
				var all []byte
				for i, in := range inputs {
					var v []byte
					if in != "\\N" {
						v = []byte(in)
					}
					row := cw.AppendRow(nil, [][]byte{[]byte(fmt.Sprint(i)), v})
					compare(t, fmt.Sprintf("%s %q", format, in), row, opts, tc)
					if _, err := pgtypes.ParseText(tc.oid, tc.typmod, v, set); err == nil && (v != nil || !tc.notNull) {
						all = cw.AppendRow(all, [][]byte{[]byte(fmt.Sprint(i)), v})
					}
				}
				compare(t, fmt.Sprintf("%s all valid", format), all, opts, tc)
			}
			// Binary: the send form of every valid input, plus bad lengths.
			opts := pgtypes.CopyOptions{Format: pgtypes.CopyBinary}
			cw, _ := pgtypes.NewCopyWriter(nil, opts)
			all := cw.AppendHeader(nil, nil)
			for i, in := range inputs {
				v, err := pgtypes.ParseText(tc.oid, tc.typmod, []byte(in), set)
				if err != nil {
					continue
				}
				bin, err := pgtypes.AppendBinary(nil, tc.oid, tc.typmod, v)
				if err != nil {
					continue
				}
				row := cw.AppendRow(cw.AppendHeader(nil, nil), [][]byte{{0, 0, 0, 0, 0, 0, 0, byte(i)}, bin})
				compare(t, fmt.Sprintf("binary %q", in), cw.AppendTrailer(row), opts, tc)
				all = cw.AppendRow(all, [][]byte{{0, 0, 0, 0, 0, 0, 0, byte(i)}, bin})
			}
			compare(t, "binary all valid", cw.AppendTrailer(all), opts, tc)
			for _, bad := range [][]byte{{1}, {1, 2, 3}, make([]byte, 17), nil} {
				row := cw.AppendRow(cw.AppendHeader(nil, nil), [][]byte{{0, 0, 0, 0, 0, 0, 0, 1}, bad})
				compare(t, fmt.Sprintf("binary %d bytes", len(bad)), cw.AppendTrailer(row), opts, tc)
			}
		})
	}
}

// eventsCopyData is n rows of the benchmark's events table in a format.
func eventsCopyData(tb testing.TB, format pgtypes.CopyFormat, n int) ([]byte, *schema.Schema, *arrow.Schema, *bsql.TableInfo) {
	sch, as, info := testTable(tb,
		testCol{"id", pgtypes.OIDInt8, -1, false}, testCol{"ts", pgtypes.OIDTimestampTZ, -1, false},
		testCol{"user_id", pgtypes.OIDInt4, -1, false}, testCol{"kind", pgtypes.OIDText, -1, false},
		testCol{"value", pgtypes.OIDFloat8, -1, false}, testCol{"payload", pgtypes.OIDText, -1, false})
	opts := pgtypes.CopyOptions{Format: format}
	cw, err := pgtypes.NewCopyWriter(nil, opts)
	if err != nil {
		tb.Fatal(err)
	}
	const alphabet = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
	out := cw.AppendHeader(nil, nil)
	set := pgtypes.DefaultSettings()
	for i := 0; i < n; i++ {
		payload := make([]byte, 40)
		for j := range payload {
			payload[j] = alphabet[(i*7+j*13)%len(alphabet)]
		}
		ts := pgtypes.TimestampTZ(int64(788918400000000) + int64(i)*10000)
		vals := []any{int64(i + 1), ts, int32(i*7919%100000 + 1), fmt.Sprintf("kind_%02d", i%20), float64(i%1000000) / 100, string(payload)}
		fields := make([][]byte, len(vals))
		for k, v := range vals {
			c := info.Columns[k]
			if format == pgtypes.CopyBinary {
				fields[k], err = pgtypes.AppendBinary(nil, c.TypeOID, c.TypeMod, v)
			} else {
				fields[k], err = pgtypes.AppendText(nil, c.TypeOID, c.TypeMod, v, set)
			}
			if err != nil {
				tb.Fatal(err)
			}
		}
		out = cw.AppendRow(out, fields)
	}
	return cw.AppendTrailer(out), sch, as, info
}

// BenchmarkCopyDecode: COPY rows of the events table into Arrow batches,
// the boxed path (before) against the typed decoder (after).
func BenchmarkCopyDecode(b *testing.B) {
	const rows = 20000
	for _, format := range []pgtypes.CopyFormat{pgtypes.CopyText, pgtypes.CopyBinary} {
		data, sch, as, info := eventsCopyData(b, format, rows)
		set := pgtypes.DefaultSettings()
		for _, impl := range []struct {
			name string
			fn   func(*pgtypes.CopyReader, *schema.Schema, *arrow.Schema, *bsql.TableInfo, *pgtypes.Settings) ([]arrow.RecordBatch, error)
		}{{"boxed", boxedDecode}, {"typed", typedDecode}} {
			b.Run(format.String()+"/"+impl.name, func(b *testing.B) {
				b.SetBytes(int64(len(data)))
				b.ReportAllocs()
				for i := 0; i < b.N; i++ {
					rd, err := pgtypes.NewCopyReader(bytes.NewReader(data), pgtypes.CopyOptions{Format: format, Table: "events"}, len(info.Columns))
					if err != nil {
						b.Fatal(err)
					}
					recs, err := impl.fn(rd, sch, as, info, set)
					if err != nil {
						b.Fatal(err)
					}
					releaseAll(recs)
				}
				b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
			})
		}
	}
}
