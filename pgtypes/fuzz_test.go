package pgtypes

import (
	"bytes"
	"io"
	"testing"
)

var fuzzOIDs = []uint32{OIDBool, OIDInt2, OIDInt4, OIDInt8, OIDFloat4, OIDFloat8, OIDNumeric, OIDBytea, OIDUUID,
	OIDJSONB, OIDDate, OIDTime, OIDTimeTZ, OIDTimestamp, OIDTimestampTZ, OIDInterval, OIDVarchar, OIDBPChar}

// FuzzParseText: no input panics, and every accepted value prints to text
// that parses back to the same text (output is a fixed point).
func FuzzParseText(f *testing.F) {
	for _, s := range []string{"1", "-1.5e3", "2024-01-02 03:04:05+02", "1 day 02:03:04", "P1Y", `\x00ff`, `{"a":[1]}`, "epoch", "Jan 8 1999", "nan", "12:00 PM", "@ 1 hour ago"} {
		for i := range fuzzOIDs {
			f.Add(uint8(i), s)
		}
	}
	s := DefaultSettings()
	f.Fuzz(func(t *testing.T, which uint8, in string) {
		oid := fuzzOIDs[int(which)%len(fuzzOIDs)]
		typmod := int32(-1)
		if oid == OIDVarchar || oid == OIDBPChar {
			typmod = VarcharTypmod(8)
		}
		v, err := ParseText(oid, typmod, []byte(in), s)
		if err != nil {
			return
		}
		out, err := AppendText(nil, oid, typmod, v, s)
		if err != nil {
			t.Fatalf("AppendText(%q -> %#v): %v", in, v, err)
		}
		v2, err := ParseText(oid, typmod, out, s)
		if err != nil {
			t.Fatalf("output %q of input %q does not parse: %v", out, in, err)
		}
		out2, _ := AppendText(nil, oid, typmod, v2, s)
		if !bytes.Equal(out, out2) {
			t.Fatalf("%q -> %q -> %q", in, out, out2)
		}
		bin, err := AppendBinary(nil, oid, typmod, v)
		if err != nil {
			t.Fatalf("AppendBinary(%#v): %v", v, err)
		}
		if _, err := ParseBinary(oid, typmod, bin); err != nil {
			t.Fatalf("ParseBinary(AppendBinary(%#v)): %v", v, err)
		}
	})
}

// FuzzCopyReader: arbitrary input never panics, and rows re-encoded by the
// writer read back identically.
func FuzzCopyReader(f *testing.F) {
	for _, s := range []string{"a\tb\n\\N\t\\x41\n", "1,\"a\nb\",\n\\.\n", "PGCOPY\n\377\r\n\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x01a\xff\xff"} {
		for fm := 0; fm < 3; fm++ {
			f.Add(uint8(fm), s)
		}
	}
	f.Fuzz(func(t *testing.T, fm uint8, in string) {
		o := CopyOptions{Format: CopyFormat(fm % 3)}
		cr, err := NewCopyReader(bytes.NewReader([]byte(in)), o, 0)
		if err != nil {
			t.Fatal(err)
		}
		cw, _ := NewCopyWriter(nil, o)
		var rows [][][]byte
		out := cw.AppendHeader(nil, nil)
		for {
			r, err := cr.Next()
			if err != nil {
				if err != io.EOF {
					return
				}
				break
			}
			cp := make([][]byte, len(r))
			for i, v := range r {
				if v != nil {
					cp[i] = append([]byte{}, v...)
				}
			}
			rows = append(rows, cp)
			out = cw.AppendRow(out, r)
		}
		out = cw.AppendTrailer(out)
		cr2, _ := NewCopyReader(bytes.NewReader(out), o, 0)
		for i := 0; ; i++ {
			r, err := cr2.Next()
			if err == io.EOF {
				if i != len(rows) {
					t.Fatalf("re-read %d rows, want %d", i, len(rows))
				}
				return
			}
			if err != nil {
				t.Fatalf("re-read row %d of %q: %v", i, out, err)
			}
			if i >= len(rows) || !sameRows([][][]byte{r}, [][][]byte{rows[i]}) {
				t.Fatalf("row %d differs: %q", i, r)
			}
		}
	})
}
