package pgtypes

import (
	"errors"
	"io"

	"github.com/bsdb/bsdb-pg/pgerr"
)

// textVerifier verifies a text or CSV COPY's input as PostgreSQL's
// CopyConvertBuf does: as it is read, a whole read at a time (one
// utf8.Valid and one IndexByte over ~256 KB, not two calls per line),
// every byte, whatever the column types, the header too. It hands on the
// bytes before the first invalid one; the read after that fails with
// errInvalidText, so the parser reaches the error at the line that holds
// the bytes, after every line before it, as in PostgreSQL.
type textVerifier struct {
	r io.Reader
	// carry is a multi-byte sequence cut by the end of the last read, to
	// be verified with the bytes that complete it.
	carry []byte
	// bad holds the input from the first invalid byte on, once found.
	bad []byte
}

// errInvalidText is the read error after the valid bytes: CopyReader turns
// it into the 22021 error (encodingError).
var errInvalidText = errors.New("pgtypes: COPY input is not valid UTF-8")

func (v *textVerifier) Read(p []byte) (int, error) {
	if v.bad != nil {
		return 0, errInvalidText
	}
	n, err := v.r.Read(p)
	data := p[:n]
	start := 0
	// First the sequence the last read cut: its continuation bytes.
	for len(v.carry) > 0 && start < n {
		if data[start]&0xc0 != 0x80 {
			return 0, v.fail(append(v.carry, data[start:]...))
		}
		v.carry = append(v.carry, data[start])
		start++
		if len(v.carry) == utf8Len(v.carry[0]) {
			if !pgerr.ValidText(v.carry) {
				return 0, v.fail(append(v.carry, data[start:]...))
			}
			v.carry = v.carry[:0]
		}
	}
	if len(v.carry) > 0 {
		// Still inside the sequence: this read was all of it so far.
		if err != nil {
			return 0, v.fail(v.carry) // the input ends inside it
		}
		return n, nil
	}
	end := n
	if err == nil {
		end -= cutSequence(data[start:])
	}
	if i := pgerr.InvalidText(data[start:end]); i >= 0 {
		v.bad = append([]byte(nil), data[start+i:]...)
		return start + i, nil
	}
	v.carry = append(v.carry[:0], data[end:]...)
	return n, err
}

// fail records the invalid input from b on.
func (v *textVerifier) fail(b []byte) error {
	v.bad = append([]byte(nil), b...)
	return errInvalidText
}

// utf8Len is the length a sequence announces by its first byte
// (pg_utf_mblen).
func utf8Len(c byte) int {
	switch {
	case c&0xe0 == 0xc0:
		return 2
	case c&0xf0 == 0xe0:
		return 3
	case c&0xf8 == 0xf0:
		return 4
	}
	return 1
}

// cutSequence is how many bytes at the end of b are a multi-byte sequence
// that the end of b cuts short (0 when b ends with a whole character).
func cutSequence(b []byte) int {
	for k := 1; k <= 3 && k <= len(b); k++ {
		c := b[len(b)-k]
		if c&0xc0 == 0x80 {
			continue // a continuation byte: its lead is further back
		}
		if utf8Len(c) > k {
			return k
		}
		return 0
	}
	return 0
}
