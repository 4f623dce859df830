package pgtypes

import (
	"bytes"
	"fmt"
	"io"
	"testing"
)

// benchRows builds n typical rows (id, name, amount, timestamp, flag, note)
// in the given format, with a few escaped/quoted fields.
func benchRows(b *testing.B, o CopyOptions, n int) []byte {
	cw, err := NewCopyWriter(nil, o)
	if err != nil {
		b.Fatal(err)
	}
	out := cw.AppendHeader(nil, nil)
	for i := 0; i < n; i++ {
		note := []byte("plain note")
		if i%10 == 0 {
			note = []byte("tab\there, \"quoted\"\nline")
		}
		var nullable []byte
		if i%7 != 0 {
			nullable = []byte("t")
		}
		out = cw.AppendRow(out, [][]byte{
			[]byte(fmt.Sprint(i)), []byte(fmt.Sprintf("customer-%06d", i)), []byte("12345.67"),
			[]byte("2024-01-02 03:04:05.123456+00"), nullable, note,
		})
	}
	return cw.AppendTrailer(out)
}

func benchmarkCopyRead(b *testing.B, o CopyOptions) {
	data := benchRows(b, o, 20000)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	rows := 0
	for i := 0; i < b.N; i++ {
		cr, err := NewCopyReader(bytes.NewReader(data), o, 6)
		if err != nil {
			b.Fatal(err)
		}
		for {
			_, err := cr.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			rows++
		}
	}
	b.ReportMetric(float64(rows)/b.Elapsed().Seconds(), "rows/s")
}

func BenchmarkCopyReadText(b *testing.B)   { benchmarkCopyRead(b, CopyOptions{}) }
func BenchmarkCopyReadCSV(b *testing.B)    { benchmarkCopyRead(b, CopyOptions{Format: CopyCSV}) }
func BenchmarkCopyReadBinary(b *testing.B) { benchmarkCopyRead(b, CopyOptions{Format: CopyBinary}) }

func benchmarkCopyWrite(b *testing.B, o CopyOptions) {
	row := [][]byte{[]byte("12345"), []byte("customer-000123"), []byte("12345.67"), []byte("2024-01-02 03:04:05.123456+00"), nil, []byte("tab\there, \"quoted\"")}
	cw, _ := NewCopyWriter(nil, o)
	one := cw.AppendRow(nil, row)
	b.SetBytes(int64(len(one)))
	b.ReportAllocs()
	var buf []byte
	for i := 0; i < b.N; i++ {
		buf = cw.AppendRow(buf[:0], row)
	}
}

func BenchmarkCopyWriteText(b *testing.B) { benchmarkCopyWrite(b, CopyOptions{}) }
func BenchmarkCopyWriteCSV(b *testing.B)  { benchmarkCopyWrite(b, CopyOptions{Format: CopyCSV}) }

func BenchmarkAppendTextTimestampTZ(b *testing.B) {
	s := DefaultSettings()
	_ = s.SetTimeZone("America/New_York")
	var buf []byte
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		buf, _ = AppendText(buf[:0], OIDTimestampTZ, -1, TimestampTZ(int64(i)*1000003), s)
	}
}

func BenchmarkAppendTextFloat8(b *testing.B) {
	var buf []byte
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		buf, _ = AppendText(buf[:0], OIDFloat8, -1, float64(i)*0.1, nil)
	}
}

func BenchmarkParseTextTimestamp(b *testing.B) {
	in := []byte("2024-01-02 03:04:05.123456")
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := ParseText(OIDTimestamp, -1, in, nil); err != nil {
			b.Fatal(err)
		}
	}
}
