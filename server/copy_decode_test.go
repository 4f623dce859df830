package server

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"strings"
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
			if pgerr.Code(err) == pgerr.NotNullViolation {
				// PostgreSQL's message names the relation and shows the row.
				for i, v := range row {
					if v == nil && sch.Columns[i].NotNull {
						e := notNullErr(&sch.Columns[i], info.Name)
						e.Detail = "Failing row contains " + failingRowText(info.Columns, row, set) + "."
						err = e
						break
					}
				}
			}
			return nil, withWhere(err, rowWhere(rd))
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

// BenchmarkCopyDecode: COPY rows of the events table into Arrow batches:
// the boxed path (before) against the typed decoder (after) on 20,000 rows,
// and the typed decoder on several full batches (planner.BatchRows rows
// each), the steady state of a large COPY, where each batch's builders are
// sized from the previous one and the binary format takes the fused path.
//
//	go test ./server -run '^$' -bench CopyDecode -count 6
func BenchmarkCopyDecode(b *testing.B) {
	type impl struct {
		name string
		fn   func(*pgtypes.CopyReader, *schema.Schema, *arrow.Schema, *bsql.TableInfo, *pgtypes.Settings) ([]arrow.RecordBatch, error)
	}
	for _, size := range []struct {
		name  string
		rows  int
		impls []impl
	}{
		{"20000", 20000, []impl{{"boxed", boxedDecode}, {"typed", typedDecode}}},
		{"batches", 3 * copyBatchRows, []impl{{"typed", typedDecode}}},
	} {
		for _, format := range []pgtypes.CopyFormat{pgtypes.CopyText, pgtypes.CopyCSV, pgtypes.CopyBinary} {
			data, sch, as, info := eventsCopyData(b, format, size.rows)
			set := pgtypes.DefaultSettings()
			for _, im := range size.impls {
				b.Run(size.name+"/"+format.String()+"/"+im.name, func(b *testing.B) {
					b.SetBytes(int64(len(data)))
					b.ReportAllocs()
					for i := 0; i < b.N; i++ {
						rd, err := pgtypes.NewCopyReader(bytes.NewReader(data), pgtypes.CopyOptions{Format: format, Table: "events"}, len(info.Columns))
						if err != nil {
							b.Fatal(err)
						}
						recs, err := im.fn(rd, sch, as, info, set)
						if err != nil {
							b.Fatal(err)
						}
						releaseAll(recs)
					}
					b.ReportMetric(float64(size.rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
				})
			}
		}
	}
}

// chunkReader returns its data in pieces of 1..max bytes (seeded), so that
// tuples are cut at every possible place of the COPY reader's buffer.
type chunkReader struct {
	data []byte
	rng  *rand.Rand
	max  int
}

func (r *chunkReader) Read(p []byte) (int, error) {
	if len(r.data) == 0 {
		return 0, io.EOF
	}
	n := min(len(p), len(r.data), 1+r.rng.IntN(r.max))
	copy(p, r.data[:n])
	r.data = r.data[n:]
	return n, nil
}

// TestCopyFusedBinaryMatchesRowPath: the binary format's fused path
// (appendBuffered: whole tuples decoded from the read buffer, not one Next
// per row) gives the batches of the row-by-row reference (boxedDecode)
// whatever the cuts of the input, with NULLs, empty strings and batch
// boundaries; and where a tuple needs the general path (a NULL in a NOT NULL
// column, a value of the wrong length, a wrong field count, a truncated
// stream) the same error with the same row number.
func TestCopyFusedBinaryMatchesRowPath(t *testing.T) {
	cols := []testCol{
		{"id", pgtypes.OIDInt8, -1, true}, {"i2", pgtypes.OIDInt2, -1, false}, {"i4", pgtypes.OIDInt4, -1, false},
		{"f4", pgtypes.OIDFloat4, -1, false}, {"f8", pgtypes.OIDFloat8, -1, false}, {"b", pgtypes.OIDBool, -1, false},
		{"s", pgtypes.OIDText, -1, false}, {"by", pgtypes.OIDBytea, -1, false}, {"d", pgtypes.OIDDate, -1, false},
		{"ts", pgtypes.OIDTimestamp, -1, false}, {"tz", pgtypes.OIDTimestampTZ, -1, false},
	}
	sch, as, info := testTable(t, cols...)
	set := pgtypes.DefaultSettings()
	names := make([]string, len(cols))
	for i, c := range cols {
		names[i] = c.name
	}
	opts := pgtypes.CopyOptions{Format: pgtypes.CopyBinary, Table: "t", Columns: names}
	be := binary.BigEndian
	row := func(rng *rand.Rand, id int) [][]byte {
		f := make([][]byte, len(cols))
		f[0] = be.AppendUint64(nil, uint64(id))
		for i := 1; i < len(cols); i++ {
			if rng.IntN(10) == 0 {
				continue // NULL
			}
			switch cols[i].oid {
			case pgtypes.OIDInt2:
				f[i] = be.AppendUint16(nil, uint16(rng.Uint32()))
			case pgtypes.OIDInt4, pgtypes.OIDDate:
				f[i] = be.AppendUint32(nil, uint32(rng.IntN(200000)-100000))
			case pgtypes.OIDFloat4:
				f[i] = be.AppendUint32(nil, math.Float32bits(rng.Float32()*1000-500))
			case pgtypes.OIDFloat8:
				f[i] = be.AppendUint64(nil, math.Float64bits(rng.NormFloat64()*1e6))
			case pgtypes.OIDBool:
				f[i] = []byte{byte(rng.IntN(2))}
			case pgtypes.OIDText, pgtypes.OIDBytea:
				f[i] = []byte(strings.Repeat("xyz", 30)[:rng.IntN(91)]) // "" included
			default: // timestamps
				f[i] = be.AppendUint64(nil, uint64(rng.Int64N(1<<50)-1<<49))
			}
		}
		return f
	}
	decode := func(data []byte, seed uint64, max int) ([]arrow.RecordBatch, error, []arrow.RecordBatch, error) {
		rd1, err := pgtypes.NewCopyReader(bytes.NewReader(data), opts, len(cols))
		if err != nil {
			t.Fatal(err)
		}
		want, werr := boxedDecode(rd1, sch, as, info, set)
		rd2, _ := pgtypes.NewCopyReader(&chunkReader{data: data, rng: rand.New(rand.NewPCG(seed, 7)), max: max}, opts, len(cols))
		got, gerr := typedDecode(rd2, sch, as, info, set)
		return want, werr, got, gerr
	}
	check := func(t *testing.T, what string, data []byte, seed uint64, max int) {
		t.Helper()
		want, werr, got, gerr := decode(data, seed, max)
		defer releaseAll(want)
		defer releaseAll(got)
		if errText(werr) != errText(gerr) {
			t.Fatalf("%s: error\n fused: %s\n  rows: %s", what, errText(gerr), errText(werr))
		}
		if len(want) != len(got) {
			t.Fatalf("%s: %d batches, row path %d", what, len(got), len(want))
		}
		for i := range want {
			if !array.RecordApproxEqual(want[i], got[i], array.WithNaNsEqual(true), array.WithAbsTolerance(0)) {
				t.Fatalf("%s: batch %d differs", what, i)
			}
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	cw, _ := pgtypes.NewCopyWriter(nil, opts)
	const n = 2*copyBatchRows + 1000 // three batches
	valid := cw.AppendHeader(nil, nil)
	for i := range n {
		valid = cw.AppendRow(valid, row(rng, i))
	}
	valid = cw.AppendTrailer(valid)
	for _, max := range []int{1 << 20, 4096, 97} {
		check(t, fmt.Sprintf("valid, reads of up to %d bytes", max), valid, uint64(max), max)
	}
	check(t, "valid, no trailer", valid[:len(valid)-2], 3, 1<<20)
	check(t, "truncated in a tuple", valid[:len(valid)/2+5], 3, 1<<20)

	// One tuple that needs the general path, after many that do not.
	small := func(bad [][]byte, at int) []byte {
		out := cw.AppendHeader(nil, nil)
		for i := range 3000 {
			if i == at {
				out = cw.AppendRow(out, bad)
				continue
			}
			out = cw.AppendRow(out, row(rng, i))
		}
		return cw.AppendTrailer(out)
	}
	good := row(rng, 1)
	with := func(i int, v []byte) [][]byte {
		f := append([][]byte(nil), good...)
		f[i] = v
		return f
	}
	// Invalid text, then another error a few rows later: the text's error
	// comes first in the input, and is the one reported.
	two := cw.AppendHeader(nil, nil)
	for i := range 3000 {
		switch i {
		case 1500:
			two = cw.AppendRow(two, with(6, []byte("\xc3\x28")))
		case 1510:
			two = cw.AppendRow(two, with(0, nil))
		default:
			two = cw.AppendRow(two, row(rng, i))
		}
	}
	check(t, "invalid text before a NOT NULL violation", cw.AppendTrailer(two), 5, 1<<20)
	for name, bad := range map[string][][]byte{
		"NULL in a NOT NULL column": with(0, nil),
		"int8 of 4 bytes":           with(0, []byte{0, 0, 0, 1}),
		"int4 of 8 bytes":           with(2, make([]byte, 8)),
		"bool of 2 bytes":           with(5, []byte{0, 1}),
		"date of 3 bytes":           with(8, []byte{0, 0, 1}),
		"too few fields":            good[:len(good)-1],
		// Text the fused path verifies after the fact (checkText).
		"text not UTF-8":              with(6, []byte("a\xffb")),
		"text with a NUL":             with(6, []byte("a\x00")),
		"text starting mid-character": with(6, []byte("\xa9x")),
		"too many fields":             append(append([][]byte(nil), good...), []byte("x")),
	} {
		for _, at := range []int{1, 1777, 2999} {
			check(t, fmt.Sprintf("%s at row %d", name, at+1), small(bad, at), uint64(at), 1<<20)
			check(t, fmt.Sprintf("%s at row %d, small reads", name, at+1), small(bad, at), uint64(at), 61)
		}
	}
}

// FuzzCopyBinaryDecode: on any bytes after a valid header, the typed
// decoder (with its fused path over the read buffer) and the row-by-row
// reference end alike: the same batches or the same error, and no panic.
// The seeds are valid rows of every fused type; the fuzzer cuts and
// corrupts them.
//
//	go test ./server -run '^$' -fuzz FuzzCopyBinaryDecode -fuzztime 60s
func FuzzCopyBinaryDecode(f *testing.F) {
	cols := []testCol{
		{"id", pgtypes.OIDInt8, -1, true}, {"i2", pgtypes.OIDInt2, -1, false}, {"f8", pgtypes.OIDFloat8, -1, false},
		{"b", pgtypes.OIDBool, -1, false}, {"s", pgtypes.OIDText, -1, false}, {"d", pgtypes.OIDDate, -1, false},
		{"tz", pgtypes.OIDTimestampTZ, -1, false},
	}
	sch, as, info := testTable(f, cols...)
	set := pgtypes.DefaultSettings()
	opts := pgtypes.CopyOptions{Format: pgtypes.CopyBinary, Table: "t", Columns: []string{"id", "i2", "f8", "b", "s", "d", "tz"}}
	cw, _ := pgtypes.NewCopyWriter(nil, opts)
	header := cw.AppendHeader(nil, nil)
	be := binary.BigEndian
	var rows []byte
	for i := range 4 {
		rows = cw.AppendRow(rows, [][]byte{
			be.AppendUint64(nil, uint64(i)), be.AppendUint16(nil, uint16(i)), be.AppendUint64(nil, math.Float64bits(float64(i)/3)),
			{byte(i % 2)}, []byte(strings.Repeat("ab", i)), be.AppendUint32(nil, uint32(i*1000)), be.AppendUint64(nil, uint64(i)<<40),
		})
	}
	f.Add(rows)
	f.Add(cw.AppendTrailer(rows))
	f.Add(cw.AppendRow(rows, [][]byte{nil, nil, nil, nil, nil, nil, nil}))
	f.Add(cw.AppendRow(rows, [][]byte{be.AppendUint64(nil, 9), nil, nil, nil, []byte("é\xff\x00"), nil, nil}))
	f.Fuzz(func(t *testing.T, body []byte) {
		data := append(append([]byte(nil), header...), body...)
		rd1, err := pgtypes.NewCopyReader(bytes.NewReader(data), opts, len(cols))
		if err != nil {
			t.Fatal(err)
		}
		want, werr := boxedDecode(rd1, sch, as, info, set)
		defer releaseAll(want)
		rd2, _ := pgtypes.NewCopyReader(&chunkReader{data: data, rng: rand.New(rand.NewPCG(uint64(len(body)), 1)), max: 64}, opts, len(cols))
		got, gerr := typedDecode(rd2, sch, as, info, set)
		defer releaseAll(got)
		if errText(werr) != errText(gerr) {
			t.Fatalf("error\n fused: %s\n  rows: %s", errText(gerr), errText(werr))
		}
		if len(want) != len(got) {
			t.Fatalf("%d batches, row path %d", len(got), len(want))
		}
		for i := range want {
			if !array.RecordApproxEqual(want[i], got[i], array.WithNaNsEqual(true), array.WithAbsTolerance(0)) {
				t.Fatalf("batch %d differs:\n fused: %v\n  rows: %v", i, got[i], want[i])
			}
		}
	})
}
