package pgtypes

import (
	"encoding/binary"
	"testing"

	"github.com/bsdb/bsdb-pg/pgerr"
)

// TestParseBinaryVerifiesText: the binary input of every text-like type
// (textrecv, json_recv, jsonb_recv, and text elements of array_recv)
// refuses invalid UTF-8 and NUL with PostgreSQL's 22021, as a binary Bind
// parameter or binary COPY field of PostgreSQL 15 does.
func TestParseBinaryVerifiesText(t *testing.T) {
	for _, c := range []struct {
		bad, msg string
	}{{"bad\xff", "0xff"}, {"nul\x00x", "0x00"}, {"x\xc3\x28", "0xc3 0x28"}} {
		want := `invalid byte sequence for encoding "UTF8": ` + c.msg
		for _, oid := range []uint32{OIDText, OIDVarchar, OIDBPChar, OIDName, OIDJSON, OIDXML, OIDUnknown} {
			if _, err := ParseBinary(oid, -1, []byte(c.bad)); !isPgErr(err, pgerr.CharacterNotInRepertoire, want) {
				t.Errorf("%s %q: %v, want 22021 %s", FormatType(oid, -1), c.bad, err, want)
			}
		}
		jb := append([]byte{1}, `"`+c.bad+`"`...)
		if _, err := ParseBinary(OIDJSONB, -1, jb); !isPgErr(err, pgerr.CharacterNotInRepertoire, want) {
			t.Errorf("jsonb %q: %v, want 22021 %s", c.bad, err, want)
		}
		// A one-dimensional text[] of one element.
		arr := binary.BigEndian.AppendUint32(nil, 1)
		arr = binary.BigEndian.AppendUint32(arr, 0)
		arr = binary.BigEndian.AppendUint32(arr, OIDText)
		arr = binary.BigEndian.AppendUint32(arr, 1)
		arr = binary.BigEndian.AppendUint32(arr, 1)
		arr = binary.BigEndian.AppendUint32(arr, uint32(len(c.bad)))
		arr = append(arr, c.bad...)
		if _, err := ParseBinary(OIDTextArray, -1, arr); !isPgErr(err, pgerr.CharacterNotInRepertoire, want) {
			t.Errorf("text[] %q: %v, want 22021 %s", c.bad, err, want)
		}
	}
	if v, err := ParseBinary(OIDText, -1, []byte("héllo")); err != nil || v != "héllo" {
		t.Errorf("valid text: %v, %v", v, err)
	}
	// bytea is bytes, not text.
	if _, err := ParseBinary(OIDBytea, -1, []byte("\x00\xff")); err != nil {
		t.Errorf("bytea: %v", err)
	}
}
