package pgtypes

import (
	"math/big"
	"strings"

	"github.com/bsdb/bsdb-pg/pgerr"
)

// decimal is an exact decimal number as the number functions of this
// package compute with: digits (no leading zeros; "" is zero) times
// 10^exp, with a sign; or one of numeric's special values.
type decimal struct {
	neg    bool
	digits string
	exp    int
	nan    bool
	inf    bool // ±Infinity (neg gives the sign)
}

// parseDecimal reads a number as numeric_in accepts it (and DuckDB's
// DECIMAL/DOUBLE text: "nan", "inf"): blanks around, a sign, digits with
// one decimal point, an exponent.
func parseDecimal(s string) (decimal, bool) {
	s = strings.TrimSpace(s)
	var d decimal
	switch strings.ToLower(s) {
	case "nan", "-nan", "+nan":
		return decimal{nan: true}, true
	case "infinity", "+infinity", "inf", "+inf":
		return decimal{inf: true}, true
	case "-infinity", "-inf":
		return decimal{inf: true, neg: true}, true
	}
	if s != "" && (s[0] == '-' || s[0] == '+') {
		d.neg = s[0] == '-'
		s = s[1:]
	}
	var digits []byte
	seenDot, any := false, false
	i := 0
	for ; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			digits = append(digits, c)
			any = true
			if seenDot {
				d.exp--
			}
		case c == '.' && !seenDot:
			seenDot = true
		default:
			goto rest
		}
	}
rest:
	if !any {
		return d, false
	}
	if i < len(s) {
		if s[i] != 'e' && s[i] != 'E' {
			return d, false
		}
		i++
		eneg := false
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			eneg = s[i] == '-'
			i++
		}
		if i >= len(s) {
			return d, false
		}
		e := 0
		for ; i < len(s); i++ {
			if s[i] < '0' || s[i] > '9' {
				return d, false
			}
			if e < 1000000 {
				e = e*10 + int(s[i]-'0')
			}
		}
		if eneg {
			e = -e
		}
		d.exp += e
	}
	d.digits = strings.TrimLeft(string(digits), "0")
	if d.digits == "" {
		d.neg = false
	}
	return d, true
}

func (d decimal) isZero() bool { return !d.nan && !d.inf && d.digits == "" }

// scale is the number of digits after the decimal point needed to show d
// exactly with its representation's digits.
func (d decimal) scale() int {
	if d.exp >= 0 {
		return 0
	}
	return -d.exp
}

// round rounds d to s digits after the decimal point, half away from
// zero (numeric's round).
func (d decimal) round(s int) decimal {
	if d.nan || d.inf || -d.exp <= s {
		return d
	}
	cut := -d.exp - s // digits to drop
	if cut > len(d.digits) {
		return decimal{exp: -s}
	}
	keep := d.digits[:len(d.digits)-cut]
	up := d.digits[len(d.digits)-cut] >= '5'
	r := decimal{neg: d.neg, exp: -s}
	if up {
		keep = incDigits(keep)
	}
	r.digits = strings.TrimLeft(keep, "0")
	if r.digits == "" {
		r.neg = false
	}
	return r
}

// trunc drops the digits after s decimal places (toward zero).
func (d decimal) trunc(s int) decimal {
	if d.nan || d.inf || -d.exp <= s {
		return d
	}
	cut := -d.exp - s
	r := decimal{neg: d.neg, exp: -s}
	if cut < len(d.digits) {
		r.digits = strings.TrimLeft(d.digits[:len(d.digits)-cut], "0")
	}
	if r.digits == "" {
		r.neg = false
	}
	return r
}

func incDigits(s string) string {
	b := []byte(s)
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] == '9' {
			b[i] = '0'
			continue
		}
		b[i]++
		return string(b)
	}
	return "1" + string(b)
}

// text is d as numeric_out prints it with dscale digits after the point
// (at least the digits d has; NaN, Infinity, -Infinity).
func (d decimal) text(dscale int) string {
	switch {
	case d.nan:
		return "NaN"
	case d.inf && d.neg:
		return "-Infinity"
	case d.inf:
		return "Infinity"
	}
	if dscale < d.scale() {
		dscale = d.scale()
	}
	digits := d.digits
	if d.exp > 0 && digits != "" {
		digits += strings.Repeat("0", d.exp)
	}
	// digits now has -min(exp,0) fractional digits
	frac := 0
	if d.exp < 0 {
		frac = -d.exp
	}
	if len(digits) <= frac {
		digits = strings.Repeat("0", frac-len(digits)+1) + digits
	}
	intPart, fracPart := digits[:len(digits)-frac], digits[len(digits)-frac:]
	fracPart += strings.Repeat("0", dscale-frac)
	var b strings.Builder
	if d.neg {
		b.WriteByte('-')
	}
	b.WriteString(intPart)
	if dscale > 0 {
		b.WriteByte('.')
		b.WriteString(fracPart)
	}
	return b.String()
}

// intDigits is the number of digits before the decimal point (0 for
// |d| < 1).
func (d decimal) intDigits() int {
	n := len(d.digits) + d.exp
	if n < 0 || d.digits == "" {
		return 0
	}
	return n
}

// sci is numeric_out_sci(d, rscale): the significand rounded to rscale
// digits and the exponent of the first significant digit (taken before the
// rounding, as PostgreSQL does: 9.99 with one digit is 10.0e+00).
func (d decimal) sci(rscale int) string {
	if d.nan || d.inf {
		return d.text(0)
	}
	if rscale < 0 {
		rscale = 0
	}
	exponent := 0
	if d.digits != "" {
		exponent = len(d.digits) + d.exp - 1
	}
	sig := decimal{neg: d.neg, digits: d.digits, exp: d.exp - exponent}.round(rscale)
	e := exponent
	sign := byte('+')
	if e < 0 {
		sign, e = '-', -e
	}
	es := itoa(e)
	if len(es) < 2 {
		es = "0" + es
	}
	return sig.text(rscale) + "e" + string(sign) + es
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	neg := n < 0
	if neg {
		n = -n
	}
	var b [24]byte
	i := len(b)
	for n > 0 {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
	}
	if neg {
		i--
		b[i] = '-'
	}
	return string(b[i:])
}

// decimalFromText parses a numeric argument's text, with numeric_in's
// error for what it cannot read.
func decimalFromText(s string) (decimal, error) {
	d, ok := parseDecimal(s)
	if !ok {
		return d, pgerr.New("22P02", "invalid input syntax for type numeric: \"%s\"", s)
	}
	if d.exp > 1<<18 || d.exp < -(1<<18) {
		return d, pgerr.New("22003", "value overflows numeric format")
	}
	return d, nil
}

// applyTypmod is numeric's typmod: rounded to scale digits, and
// "numeric field overflow" when more than precision - scale digits remain
// before the point.
func (d decimal) applyTypmod(precision, scale int) (decimal, error) {
	if d.nan {
		return d, nil
	}
	if d.inf {
		return d, pgerr.New("22003", "numeric field overflow").WithDetail(
			"A field with precision %d, scale %d cannot hold an infinite value.", precision, scale)
	}
	r := d.round(scale)
	if r.intDigits() > precision-scale {
		return r, pgerr.New("22003", "numeric field overflow").WithDetail(
			"A field with precision %d, scale %d must round to an absolute value less than %s%d.",
			precision, scale, tenPow(precision-scale), map[bool]int{true: precision - scale, false: 1}[precision-scale != 0])
	}
	return r, nil
}

func tenPow(maxdigits int) string {
	if maxdigits != 0 {
		return "10^"
	}
	return "" // 10^0 is shown as 1
}

// NumericScaleOf is scale(numeric): the display scale of the value's text
// (ok=false for NaN and infinities: NULL).
func NumericScaleOf(s string) (int32, bool, error) {
	d, err := decimalFromText(s)
	if err != nil || d.nan || d.inf {
		return 0, false, err
	}
	return int32(d.scale()), true, nil
}

// NumericMinScaleOf is min_scale(numeric): the fewest fractional digits that
// show the value exactly.
func NumericMinScaleOf(s string) (int32, bool, error) {
	d, err := decimalFromText(s)
	if err != nil || d.nan || d.inf {
		return 0, false, err
	}
	return int32(d.trimmed().scale()), true, nil
}

// trimmed is d without trailing fractional zeros.
func (d decimal) trimmed() decimal {
	for d.exp < 0 && strings.HasSuffix(d.digits, "0") {
		d.digits = d.digits[:len(d.digits)-1]
		d.exp++
	}
	if d.digits == "" && d.exp < 0 {
		d.exp = 0
	}
	return d
}

// NumericTrimScale is trim_scale(numeric).
func NumericTrimScale(s string) (string, error) {
	d, err := decimalFromText(s)
	if err != nil {
		return "", err
	}
	return d.trimmed().text(0), nil
}

// NumericDiv is div(numeric, numeric): the quotient truncated toward zero
// (numeric_div_trunc, with its rules for NaN and infinities).
func NumericDiv(xs, ys string) (string, error) {
	x, err := decimalFromText(xs)
	if err != nil {
		return "", err
	}
	y, err := decimalFromText(ys)
	if err != nil {
		return "", err
	}
	switch {
	case x.nan || y.nan:
		return "NaN", nil
	case x.inf:
		if y.inf {
			return "NaN", nil
		}
		if y.isZero() {
			return "", pgerr.New("22012", "division by zero")
		}
		return decimal{inf: true, neg: x.neg != y.neg}.text(0), nil
	case y.inf:
		return "0", nil
	case y.isZero():
		return "", pgerr.New("22012", "division by zero")
	}
	// Both as integers at the same exponent.
	e := x.exp
	if y.exp < e {
		e = y.exp
	}
	xi, yi := new(big.Int), new(big.Int)
	xi.SetString(x.digits+strings.Repeat("0", x.exp-e)+"0", 10)
	yi.SetString(y.digits+strings.Repeat("0", y.exp-e)+"0", 10)
	q := new(big.Int).Quo(xi, yi)
	if x.neg != y.neg {
		q.Neg(q)
	}
	return q.String(), nil
}
