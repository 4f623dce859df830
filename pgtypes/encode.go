package pgtypes

import (
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/bsdb/bsdb-pg/pgerr"
)

// EncodeBytes is PostgreSQL's encode(bytea, format): hex (lower case),
// base64 (a line break after every 76 characters) or escape (octal for
// zero bytes and bytes with the high bit set, doubled backslashes).
func EncodeBytes(b []byte, format string) (string, error) {
	switch strings.ToLower(format) {
	case "hex":
		return hex.EncodeToString(b), nil
	case "base64":
		s := base64.StdEncoding.EncodeToString(b)
		var out strings.Builder
		for len(s) > 76 {
			out.WriteString(s[:76])
			out.WriteByte('\n')
			s = s[76:]
		}
		out.WriteString(s)
		return out.String(), nil
	case "escape":
		var out strings.Builder
		for _, c := range b {
			switch {
			case c == '\\':
				out.WriteString(`\\`)
			case c == 0 || c >= 0x80:
				fmt.Fprintf(&out, `\%03o`, c)
			default:
				out.WriteByte(c)
			}
		}
		return out.String(), nil
	}
	return "", pgerr.New(pgerr.InvalidParameterValue, "unrecognized encoding: \"%s\"", format)
}

// DecodeBytes is PostgreSQL's decode(text, format), the inverse of
// EncodeBytes; hex and base64 ignore whitespace.
func DecodeBytes(s, format string) ([]byte, error) {
	switch strings.ToLower(format) {
	case "hex":
		out := make([]byte, 0, len(s)/2)
		for i := 0; i < len(s); {
			if isSpace(s[i]) {
				i++
				continue
			}
			hi, ok := unhex(s[i])
			if !ok {
				return nil, pgerr.New(pgerr.InvalidParameterValue, "invalid hexadecimal digit: \"%s\"", s[i:i+1])
			}
			if i+1 >= len(s) {
				return nil, pgerr.New(pgerr.InvalidParameterValue, "invalid hexadecimal data: odd number of digits")
			}
			lo, ok := unhex(s[i+1])
			if !ok {
				return nil, pgerr.New(pgerr.InvalidParameterValue, "invalid hexadecimal digit: \"%s\"", s[i+1:i+2])
			}
			out = append(out, hi<<4|lo)
			i += 2
		}
		return out, nil
	case "base64":
		clean := strings.Map(func(r rune) rune {
			if r < 128 && isSpace(byte(r)) {
				return -1
			}
			return r
		}, s)
		out, err := base64.StdEncoding.DecodeString(clean)
		if err != nil {
			return nil, pgerr.New(pgerr.InvalidParameterValue, "invalid base64 sequence: %v", err)
		}
		return out, nil
	case "escape":
		out := make([]byte, 0, len(s))
		for i := 0; i < len(s); i++ {
			c := s[i]
			if c != '\\' {
				out = append(out, c)
				continue
			}
			switch {
			case i+1 < len(s) && s[i+1] == '\\':
				out = append(out, '\\')
				i++
			case i+3 < len(s) && isOctal(s[i+1]) && isOctal(s[i+2]) && isOctal(s[i+3]) && s[i+1] <= '3':
				out = append(out, (s[i+1]-'0')<<6|(s[i+2]-'0')<<3|(s[i+3]-'0'))
				i += 3
			default:
				return nil, pgerr.New(pgerr.InvalidTextRepresentation, "invalid input syntax for type bytea")
			}
		}
		return out, nil
	}
	return nil, pgerr.New(pgerr.InvalidParameterValue, "unrecognized encoding: \"%s\"", format)
}
