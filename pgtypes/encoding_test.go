package pgtypes

import (
	"bytes"
	"encoding/binary"
	"io"
	"math/rand/v2"
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

// chunks returns data in reads of 1 to max bytes.
type chunks struct {
	data []byte
	rng  *rand.Rand
	max  int
}

func (c *chunks) Read(p []byte) (int, error) {
	if len(c.data) == 0 {
		return 0, io.EOF
	}
	n := min(1+c.rng.IntN(c.max), len(p), len(c.data))
	copy(p, c.data[:n])
	c.data = c.data[n:]
	return n, nil
}

// TestTextVerifierChunks: whatever the reads cut (a multi-byte character
// included), textVerifier hands on exactly the bytes before the first
// invalid one, then fails with the bytes from there; valid input passes
// whole.
func TestTextVerifierChunks(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	pieces := []string{"a", "\t", "\n", "é", "✓", "𝄞", "\\", "xyz"}
	bads := []string{"\xff", "\x00", "\xc3\x28", "\xe2\x82", "\xed\xa0\x80", "\xf0\x9d", "\x80"}
	for iter := 0; iter < 3000; iter++ {
		var in []byte
		for range rng.IntN(40) {
			in = append(in, pieces[rng.IntN(len(pieces))]...)
		}
		if iter%3 != 0 {
			in = append(in, bads[rng.IntN(len(bads))]...)
			for range rng.IntN(5) {
				in = append(in, pieces[rng.IntN(len(pieces))]...)
			}
		}
		want := pgerr.InvalidText(in)
		v := &textVerifier{r: &chunks{data: in, rng: rng, max: 1 + rng.IntN(6)}}
		var got []byte
		var err error
		for err == nil {
			p := make([]byte, 1+rng.IntN(8))
			var n int
			n, err = v.Read(p)
			got = append(got, p[:n]...)
		}
		if want < 0 {
			if err != io.EOF || !bytes.Equal(got, in) {
				t.Fatalf("%q: got %q, %v", in, got, err)
			}
			continue
		}
		// A sequence the reads cut is handed on before its end is seen:
		// what was handed on is the input up to the invalid sequence, and
		// at most the part of it before the byte that shows it invalid
		// (never a newline after it: the parser meets the error on the
		// line that holds it).
		if err != errInvalidText || !bytes.HasPrefix(in, got) || len(got) < want || len(got) > want+3 {
			t.Fatalf("%q (invalid at %d): handed on %q, %v", in, want, got, err)
		}
		if !bytes.Equal(v.bad[:min(len(v.bad), len(in)-want)], in[want:want+min(len(v.bad), len(in)-want)]) {
			t.Fatalf("%q: bad %q, want from %d", in, v.bad, want)
		}
	}
}
