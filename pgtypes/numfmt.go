package pgtypes

import (
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/bsdb/bsdb-pg/pgerr"
)

// to_char of numbers and to_number: a port of the NUM_* part of
// PostgreSQL's formatting.c (C locale: '.' and ',' for D and G, '-'/'+'
// for S, a blank for L).

const (
	numComma = iota
	numDec
	num0
	num9
	numB
	numC
	numD
	numE
	numFM
	numG
	numL
	numMI
	numPL
	numPR
	numRN
	numSG
	numSP
	numS
	numTH
	numV
	numrn
	numth
)

// numKeywords in formatting.c's order: the first whose name prefixes the
// format wins.
var numKeywords = []struct {
	name string
	id   int
}{
	{",", numComma}, {".", numDec}, {"0", num0}, {"9", num9}, {"B", numB}, {"C", numC},
	{"D", numD}, {"EEEE", numE}, {"FM", numFM}, {"G", numG}, {"L", numL}, {"MI", numMI},
	{"PL", numPL}, {"PR", numPR}, {"RN", numRN}, {"SG", numSG}, {"SP", numSP}, {"S", numS},
	{"TH", numTH}, {"V", numV}, {"b", numB}, {"c", numC}, {"d", numD}, {"eeee", numE},
	{"fm", numFM}, {"g", numG}, {"l", numL}, {"mi", numMI}, {"pl", numPL}, {"pr", numPR},
	{"rn", numrn}, {"sg", numSG}, {"sp", numSP}, {"s", numS}, {"th", numth}, {"v", numV},
}

const (
	fDecimal = 1 << (iota + 1)
	fLDecimal
	fZero
	fBlank
	fFillMode
	fLSign
	fBracket
	fMinus
	fPlus
	fRoman
	fMulti
	fPlusPost
	fMinusPost
	fEEEE
)

const (
	lsignPre  = -1
	lsignPost = 1
)

type numDesc struct {
	pre, post, lsign, flag, preLsignNum, multi, zeroStart, zeroEnd int
}

func (n *numDesc) is(f int) bool { return n.flag&f != 0 }

type numNode struct {
	action bool
	id     int
	char   string
}

func numSyntaxErr(msg string) error { return pgerr.New("42601", "%s", msg) }

// parseNumFormat is parse_format with NUMDesc_prepare.
func parseNumFormat(f string) ([]numNode, numDesc, error) {
	var nodes []numNode
	var num numDesc
	for len(f) > 0 {
		matched := false
		for _, k := range numKeywords {
			if strings.HasPrefix(f, k.name) {
				nodes = append(nodes, numNode{action: true, id: k.id})
				if err := num.prepare(k.id); err != nil {
					return nil, num, err
				}
				f = f[len(k.name):]
				matched = true
				break
			}
		}
		if matched {
			continue
		}
		if f[0] == '"' {
			f = f[1:]
			for len(f) > 0 {
				if f[0] == '"' {
					f = f[1:]
					break
				}
				if f[0] == '\\' && len(f) > 1 {
					f = f[1:]
				}
				_, l := utf8.DecodeRuneInString(f)
				nodes = append(nodes, numNode{char: f[:l]})
				f = f[l:]
			}
			continue
		}
		if f[0] == '\\' && len(f) > 1 && f[1] == '"' {
			f = f[1:]
		}
		_, l := utf8.DecodeRuneInString(f)
		nodes = append(nodes, numNode{char: f[:l]})
		f = f[l:]
	}
	return nodes, num, nil
}

// prepare is NUMDesc_prepare for one keyword.
func (num *numDesc) prepare(id int) error {
	if num.is(fEEEE) && id != numE {
		return numSyntaxErr(`"EEEE" must be the last pattern used`)
	}
	switch id {
	case num9:
		if num.is(fBracket) {
			return numSyntaxErr(`"9" must be ahead of "PR"`)
		}
		if num.is(fMulti) {
			num.multi++
			break
		}
		if num.is(fDecimal) {
			num.post++
		} else {
			num.pre++
		}
	case num0:
		if num.is(fBracket) {
			return numSyntaxErr(`"0" must be ahead of "PR"`)
		}
		if !num.is(fZero) && !num.is(fDecimal) {
			num.flag |= fZero
			num.zeroStart = num.pre + 1
		}
		if !num.is(fDecimal) {
			num.pre++
		} else {
			num.post++
		}
		num.zeroEnd = num.pre + num.post
	case numB:
		if num.pre == 0 && num.post == 0 && !num.is(fZero) {
			num.flag |= fBlank
		}
	case numD, numDec:
		if id == numD {
			num.flag |= fLDecimal
		}
		if num.is(fDecimal) {
			return numSyntaxErr("multiple decimal points")
		}
		if num.is(fMulti) {
			return numSyntaxErr(`cannot use "V" and decimal point together`)
		}
		num.flag |= fDecimal
	case numFM:
		num.flag |= fFillMode
	case numS:
		if num.is(fLSign) {
			return numSyntaxErr(`cannot use "S" twice`)
		}
		if num.is(fPlus) || num.is(fMinus) || num.is(fBracket) {
			return numSyntaxErr(`cannot use "S" and "PL"/"MI"/"SG"/"PR" together`)
		}
		if !num.is(fDecimal) {
			num.lsign = lsignPre
			num.preLsignNum = num.pre
			num.flag |= fLSign
		} else if num.lsign == 0 {
			num.lsign = lsignPost
			num.flag |= fLSign
		}
	case numMI:
		if num.is(fLSign) {
			return numSyntaxErr(`cannot use "S" and "MI" together`)
		}
		num.flag |= fMinus
		if num.is(fDecimal) {
			num.flag |= fMinusPost
		}
	case numPL:
		if num.is(fLSign) {
			return numSyntaxErr(`cannot use "S" and "PL" together`)
		}
		num.flag |= fPlus
		if num.is(fDecimal) {
			num.flag |= fPlusPost
		}
	case numSG:
		if num.is(fLSign) {
			return numSyntaxErr(`cannot use "S" and "SG" together`)
		}
		num.flag |= fMinus | fPlus
	case numPR:
		if num.is(fLSign) || num.is(fPlus) || num.is(fMinus) {
			return numSyntaxErr(`cannot use "PR" and "S"/"PL"/"MI"/"SG" together`)
		}
		num.flag |= fBracket
	case numRN, numrn:
		num.flag |= fRoman
	case numV:
		if num.is(fDecimal) {
			return numSyntaxErr(`cannot use "V" and decimal point together`)
		}
		num.flag |= fMulti
	case numE:
		if num.is(fEEEE) {
			return numSyntaxErr(`cannot use "EEEE" twice`)
		}
		if num.is(fBlank) || num.is(fFillMode) || num.is(fLSign) || num.is(fBracket) ||
			num.is(fMinus) || num.is(fPlus) || num.is(fRoman) || num.is(fMulti) {
			return pgerr.New("42601", `"EEEE" is incompatible with other formats`).WithDetail(
				`"EEEE" may only be used together with digit and decimal point patterns.`)
		}
		num.flag |= fEEEE
	}
	return nil
}

// intToRoman is int_to_roman: 15 '#' outside 1..3999.
func intToRoman(n int64) string {
	if n > 3999 || n < 1 {
		return strings.Repeat("#", 15)
	}
	rm1 := []string{"I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX"}
	rm10 := []string{"X", "XX", "XXX", "XL", "L", "LX", "LXX", "LXXX", "XC"}
	rm100 := []string{"C", "CC", "CCC", "CD", "D", "DC", "DCC", "DCCC", "CM"}
	s := strconv.FormatInt(n, 10)
	var b strings.Builder
	for i, l := 0, len(s); i < len(s); i, l = i+1, l-1 {
		d := int(s[i]-'0') - 1
		if d < 0 {
			continue
		}
		switch {
		case l > 3:
			b.WriteString(strings.Repeat("M", d+1))
		case l == 3:
			b.WriteString(rm100[d])
		case l == 2:
			b.WriteString(rm10[d])
		default:
			b.WriteString(rm1[d])
		}
	}
	return b.String()
}

// getTh is get_th: the ordinal suffix of a number's digits.
func getTh(num string, upper bool) (string, error) {
	if num == "" || num[len(num)-1] < '0' || num[len(num)-1] > '9' {
		return "", pgerr.New("22P02", "\"%s\" is not a number", num)
	}
	last := num[len(num)-1]
	if len(num) > 1 && num[len(num)-2] == '1' {
		last = 0
	}
	i := 3
	switch last {
	case '1':
		i = 0
	case '2':
		i = 1
	case '3':
		i = 2
	}
	s := []string{"st", "nd", "rd", "th"}[i]
	if upper {
		s = strings.ToUpper(s)
	}
	return s, nil
}

// hashes is the overflow picture: pre + post + 1 '#' with a '.' at pre.
func hashes(pre, post int) string {
	b := []byte(strings.Repeat("#", pre+post+1))
	b[pre] = '.'
	return string(b)
}

// eeeeHashes is the picture of NaN/Infinity under EEEE.
func eeeeHashes(pre, post int) string {
	b := []byte(strings.Repeat("#", pre+post+6))
	b[0] = ' '
	b[pre+1] = '.'
	return string(b)
}

// maxFormatLen bounds a picture (the output is at most a few bytes per
// format byte; PostgreSQL's limit is INT_MAX / NUM_MAX_ITEM_SIZ).
const maxFormatLen = 1 << 20

// ToCharNumeric is to_char(numeric, text); value is the numeric's text.
func ToCharNumeric(value, format string) (string, error) {
	if format == "" || len(format) > maxFormatLen {
		return "", nil
	}
	nodes, num, err := parseNumFormat(format)
	if err != nil {
		return "", err
	}
	d, err := decimalFromText(value)
	if err != nil {
		return "", err
	}
	var numstr string
	sign := byte(0)
	outPreSpaces := 0
	switch {
	case num.is(fRoman):
		if d.nan {
			return "", pgerr.New("0A000", "cannot convert NaN to integer")
		}
		if d.inf {
			return "", pgerr.New("0A000", "cannot convert infinity to integer")
		}
		r := d.round(0)
		if r.intDigits() > 10 {
			return "", pgerr.New("22003", "integer out of range")
		}
		v, _ := strconv.ParseInt(r.text(0), 10, 64)
		if v > math.MaxInt32 || v < math.MinInt32 {
			return "", pgerr.New("22003", "integer out of range")
		}
		numstr = intToRoman(v)
	case num.is(fEEEE):
		if d.nan || d.inf {
			numstr = eeeeHashes(num.pre, num.post)
		} else if orgnum := d.sci(num.post); orgnum[0] != '-' {
			numstr = " " + orgnum
		} else {
			numstr = orgnum
		}
	default:
		val := d
		if num.is(fMulti) && !d.nan && !d.inf && d.digits != "" {
			val.exp += num.multi
		}
		if num.is(fMulti) {
			num.pre += num.multi
		}
		orgnum := val.round(num.post).text(num.post)
		if d.nan || d.inf {
			orgnum = d.text(0)
		}
		if orgnum[0] == '-' {
			sign, numstr = '-', orgnum[1:]
		} else {
			sign, numstr = '+', orgnum
		}
		preLen := len(numstr)
		if p := strings.IndexByte(numstr, '.'); p >= 0 {
			preLen = p
		}
		if preLen < num.pre {
			outPreSpaces = num.pre - preLen
		} else if preLen > num.pre {
			numstr = hashes(num.pre, num.post)
		}
	}
	return numProcessorToChar(nodes, &num, numstr, outPreSpaces, sign)
}

// ToCharInt is to_char(integer, text) (int4: the value's own C rules,
// EEEE through float8) and to_char(bigint, text).
func ToCharInt(value int64, int4 bool, format string) (string, error) {
	if format == "" || len(format) > maxFormatLen {
		return "", nil
	}
	nodes, num, err := parseNumFormat(format)
	if err != nil {
		return "", err
	}
	var numstr string
	sign := byte(0)
	outPreSpaces := 0
	switch {
	case num.is(fRoman):
		if !int4 && (value > math.MaxInt32 || value < math.MinInt32) {
			return "", pgerr.New("22003", "integer out of range")
		}
		numstr = intToRoman(value)
	case num.is(fEEEE):
		var orgnum string
		if int4 {
			orgnum = cFormatE(float64(value), num.post)
		} else {
			d, _ := parseDecimal(strconv.FormatInt(value, 10))
			orgnum = d.sci(num.post)
			if orgnum[0] != '-' {
				orgnum = "+" + orgnum
			}
		}
		if orgnum[0] == '+' {
			orgnum = " " + orgnum[1:]
		}
		numstr = orgnum
	default:
		if num.is(fMulti) {
			if int4 {
				value = int64(int32(value) * int32(math.Pow(10, float64(num.multi))))
			} else {
				m := math.Pow(10, float64(num.multi))
				if m >= 9223372036854775807 || math.IsNaN(m) {
					return "", pgerr.New("22003", "bigint out of range")
				}
				p := value * int64(m)
				if value != 0 && (p/value != int64(m) || (value == -1 && int64(m) == math.MinInt64)) {
					return "", pgerr.New("22003", "bigint out of range")
				}
				value = p
			}
			num.pre += num.multi
		}
		orgnum := strconv.FormatInt(value, 10)
		if orgnum[0] == '-' {
			sign, orgnum = '-', orgnum[1:]
		} else {
			sign = '+'
		}
		preLen := len(orgnum)
		numstr = orgnum
		if num.post > 0 {
			numstr = orgnum + "." + strings.Repeat("0", num.post)
		}
		if preLen < num.pre {
			outPreSpaces = num.pre - preLen
		} else if preLen > num.pre {
			numstr = hashes(num.pre, num.post)
		}
	}
	return numProcessorToChar(nodes, &num, numstr, outPreSpaces, sign)
}

// cFormatE is C's "%+.*e".
func cFormatE(v float64, prec int) string {
	s := strconv.FormatFloat(v, 'e', prec, 64)
	if s[0] != '-' {
		s = "+" + s
	}
	return s
}

// cFormatF is PostgreSQL's snprintf "%.*f" (NaN, Infinity spelled out).
func cFormatF(v float64, prec int) string {
	switch {
	case math.IsNaN(v):
		return "NaN"
	case math.IsInf(v, 1):
		return "Infinity"
	case math.IsInf(v, -1):
		return "-Infinity"
	}
	return strconv.FormatFloat(v, 'f', prec, 64)
}

// ToCharFloat is to_char(real, text) (float4: FLT_DIG digits, float
// arithmetic for V) and to_char(double precision, text) (DBL_DIG).
func ToCharFloat(value float64, float4 bool, format string) (string, error) {
	if format == "" || len(format) > maxFormatLen {
		return "", nil
	}
	nodes, num, err := parseNumFormat(format)
	if err != nil {
		return "", err
	}
	var numstr string
	sign := byte(0)
	outPreSpaces := 0
	switch {
	case num.is(fRoman):
		r := math.RoundToEven(value)
		// (int) rint(value): C's conversion of an out-of-range value is
		// INT_MIN on common platforms, which is no roman number.
		if math.IsNaN(r) || r > math.MaxInt32 || r < math.MinInt32 {
			r = math.MinInt32
		}
		numstr = intToRoman(int64(r))
	case num.is(fEEEE):
		if math.IsNaN(value) || math.IsInf(value, 0) {
			numstr = eeeeHashes(num.pre, num.post)
		} else {
			numstr = cFormatE(value, num.post)
			if numstr[0] == '+' {
				numstr = " " + numstr[1:]
			}
		}
	default:
		val := value
		if num.is(fMulti) {
			if float4 {
				val = float64(float32(value) * float32(math.Pow(10, float64(num.multi))))
			} else {
				val = value * math.Pow(10, float64(num.multi))
			}
			num.pre += num.multi
		}
		digits := 15
		if float4 {
			digits = 6
		}
		preLen := len(cFormatF(math.Abs(val), 0))
		if preLen >= digits {
			num.post = 0
		} else if preLen+num.post > digits {
			num.post = digits - preLen
		}
		orgnum := cFormatF(val, num.post)
		if orgnum[0] == '-' {
			sign, numstr = '-', orgnum[1:]
		} else {
			sign, numstr = '+', orgnum
		}
		preLen = len(numstr)
		if p := strings.IndexByte(numstr, '.'); p >= 0 {
			preLen = p
		}
		if preLen < num.pre {
			outPreSpaces = num.pre - preLen
		} else if preLen > num.pre {
			numstr = hashes(num.pre, num.post)
		}
	}
	return numProcessorToChar(nodes, &num, numstr, outPreSpaces, sign)
}

// numProc is NUMProc.
type numProc struct {
	num                                   *numDesc
	sign                                  byte
	signWrote, numIn                      bool
	numCount, numCurr, outPreSpaces       int
	readDec                               bool
	readPost, readPre                     int
	number                                []byte // NUL-terminated
	np                                    int    // number_p
	lastRelevant                          int    // -1: none
	out                                   []byte
	decimal                               string
	negSign, posSign, thousands, currency string
}

func (p *numProc) numAt(i int) byte {
	if i < 0 || i >= len(p.number) {
		return 0
	}
	return p.number[i]
}

func (p *numProc) isPredecSpace() bool {
	return !p.num.is(fZero) && p.np == 0 && p.numAt(0) == '0' && p.num.post != 0
}

func (p *numProc) lastRelevantIsDot() bool {
	return p.lastRelevant >= 0 && p.numAt(p.lastRelevant) == '.'
}

func (p *numProc) prepareLocale() {
	p.negSign, p.posSign, p.decimal, p.thousands, p.currency = "-", "+", ".", ",", " "
}

// numpartToChar is NUM_numpart_to_char.
func (p *numProc) numpartToChar(id int) {
	if p.num.is(fRoman) {
		return
	}
	p.numIn = false
	if !p.signWrote &&
		(p.numCurr >= p.outPreSpaces || (p.num.is(fZero) && p.num.zeroStart == p.numCurr)) &&
		(!p.isPredecSpace() || p.lastRelevantIsDot()) {
		switch {
		case p.num.is(fLSign):
			if p.num.lsign == lsignPre {
				if p.sign == '-' {
					p.out = append(p.out, p.negSign...)
				} else {
					p.out = append(p.out, p.posSign...)
				}
				p.signWrote = true
			}
		case p.num.is(fBracket):
			if p.sign == '+' {
				p.out = append(p.out, ' ')
			} else {
				p.out = append(p.out, '<')
			}
			p.signWrote = true
		case p.sign == '+':
			if !p.num.is(fFillMode) {
				p.out = append(p.out, ' ')
			}
			p.signWrote = true
		case p.sign == '-':
			p.out = append(p.out, '-')
			p.signWrote = true
		}
	}
	if id == num9 || id == num0 || id == numD || id == numDec {
		switch {
		case p.numCurr < p.outPreSpaces && (p.num.zeroStart > p.numCurr || !p.num.is(fZero)):
			if !p.num.is(fFillMode) {
				p.out = append(p.out, ' ')
			}
		case p.num.is(fZero) && p.numCurr < p.outPreSpaces && p.num.zeroStart <= p.numCurr:
			p.out = append(p.out, '0')
			p.numIn = true
		default:
			if p.numAt(p.np) == '.' {
				if !p.lastRelevantIsDot() {
					p.out = append(p.out, p.decimal...)
				} else if p.num.is(fFillMode) && p.lastRelevantIsDot() {
					p.out = append(p.out, p.decimal...)
				}
			} else {
				switch {
				case p.lastRelevant >= 0 && p.np > p.lastRelevant && id != num0:
				case p.isPredecSpace():
					if !p.num.is(fFillMode) {
						p.out = append(p.out, ' ')
					} else if p.lastRelevantIsDot() {
						p.out = append(p.out, '0')
					}
				default:
					// (a NUL past the number's end ends the C string)
					p.out = append(p.out, p.numAt(p.np))
					p.numIn = true
				}
			}
			if p.numAt(p.np) != 0 {
				p.np++
			}
		}
		end := p.numCount
		if p.outPreSpaces != 0 {
			end++
		}
		if p.num.is(fDecimal) {
			end++
		}
		if p.lastRelevant >= 0 && p.lastRelevant == p.np {
			end = p.numCurr
		}
		if p.numCurr+1 == end {
			if p.signWrote && p.num.is(fBracket) {
				if p.sign == '+' {
					p.out = append(p.out, ' ')
				} else {
					p.out = append(p.out, '>')
				}
			} else if p.num.is(fLSign) && p.num.lsign == lsignPost {
				if p.sign == '-' {
					p.out = append(p.out, p.negSign...)
				} else {
					p.out = append(p.out, p.posSign...)
				}
			}
		}
	}
	p.numCurr++
}

// lastRelevantDecnum is get_last_relevant_decnum: the index of the last
// non-zero digit after the point (the point itself if none), -1 without
// a point.
func lastRelevantDecnum(num []byte) int {
	dot := -1
	for i, c := range num {
		if c == 0 {
			break
		}
		if c == '.' {
			dot = i
			break
		}
	}
	if dot < 0 {
		return -1
	}
	r := dot
	for i := dot + 1; i < len(num) && num[i] != 0; i++ {
		if num[i] != '0' {
			r = i
		}
	}
	return r
}

// numProcessorToChar is NUM_processor for to_char.
func numProcessorToChar(nodes []numNode, num *numDesc, numstr string, outPreSpaces int, sign byte) (string, error) {
	p := &numProc{num: num, lastRelevant: -1, number: append([]byte(numstr), 0)}
	if num.zeroStart != 0 {
		num.zeroStart--
	}
	if num.is(fEEEE) {
		return numstr, nil
	}
	if num.is(fRoman) {
		num.lsign, num.preLsignNum, num.post, num.pre = 0, 0, 0, 0
		outPreSpaces, sign = 0, 0
		if num.is(fFillMode) {
			num.flag = fFillMode
		} else {
			num.flag = 0
		}
		num.flag |= fRoman
	}
	p.sign = sign
	if num.is(fPlus) || num.is(fMinus) {
		p.signWrote = !(num.is(fPlus) && !num.is(fMinus))
	} else {
		if p.sign != '-' {
			if num.is(fBracket) && num.is(fFillMode) {
				num.flag &^= fBracket
			}
			if num.is(fMinus) {
				num.flag &^= fMinus
			}
		} else if p.sign != '+' && num.is(fPlus) {
			num.flag &^= fPlus
		}
		p.signWrote = p.sign == '+' && num.is(fFillMode) && !num.is(fLSign)
		if num.lsign == lsignPre && num.pre == num.preLsignNum {
			num.lsign = lsignPost
		}
	}
	p.numCount = num.post + num.pre - 1
	p.outPreSpaces = outPreSpaces
	if num.is(fFillMode) && num.is(fDecimal) {
		p.lastRelevant = lastRelevantDecnum(p.number)
		if p.lastRelevant >= 0 && num.zeroEnd > p.outPreSpaces {
			lastZero := len(numstr) - 1
			if z := num.zeroEnd - p.outPreSpaces; z < lastZero {
				lastZero = z
			}
			if p.lastRelevant < lastZero {
				p.lastRelevant = lastZero
			}
		}
	}
	if !p.signWrote && p.outPreSpaces == 0 {
		p.numCount++
	}
	p.prepareLocale()
	if !num.is(fLDecimal) {
		p.decimal = "."
	}
	for _, n := range nodes {
		if !n.action {
			p.out = append(p.out, n.char...)
			continue
		}
		switch n.id {
		case num9, num0, numDec, numD:
			p.numpartToChar(n.id)
		case numComma:
			if !p.numIn {
				if !num.is(fFillMode) {
					p.out = append(p.out, ' ')
				}
			} else {
				p.out = append(p.out, ',')
			}
		case numG:
			if !p.numIn {
				if !num.is(fFillMode) {
					p.out = append(p.out, strings.Repeat(" ", utf8.RuneCountInString(p.thousands))...)
				}
			} else {
				p.out = append(p.out, p.thousands...)
			}
		case numL:
			p.out = append(p.out, p.currency...)
		case numRN, numrn:
			s := string(p.number[p.np : len(p.number)-1])
			if n.id == numrn {
				s = strings.ToLower(s)
			}
			if !num.is(fFillMode) && len(s) < 15 {
				s = strings.Repeat(" ", 15-len(s)) + s
			}
			p.out = append(p.out, s...)
		case numth, numTH:
			if num.is(fRoman) || p.numAt(0) == '#' || p.sign == '-' || num.is(fDecimal) {
				continue
			}
			th, err := getTh(string(p.number[:len(p.number)-1]), n.id == numTH)
			if err != nil {
				return "", err
			}
			p.out = append(p.out, th...)
		case numMI:
			if p.sign == '-' {
				p.out = append(p.out, '-')
			} else if !num.is(fFillMode) {
				p.out = append(p.out, ' ')
			}
		case numPL:
			if p.sign == '+' {
				p.out = append(p.out, '+')
			} else if !num.is(fFillMode) {
				p.out = append(p.out, ' ')
			}
		case numSG:
			p.out = append(p.out, p.sign) // (0 ends the C string)
		}
	}
	if i := strings.IndexByte(string(p.out), 0); i >= 0 {
		p.out = p.out[:i]
	}
	return string(p.out), nil
}

// ToNumber is to_number(text, text): the numeric's text ("" and ok=false
// for NULL: an empty format).
func ToNumber(value, format string) (string, bool, error) {
	if format == "" || len(format) > maxFormatLen {
		return "", false, nil
	}
	nodes, num, err := parseNumFormat(format)
	if err != nil {
		return "", false, err
	}
	p := &numProc{num: &num, lastRelevant: -1}
	if num.zeroStart != 0 {
		num.zeroStart--
	}
	if num.is(fEEEE) {
		return "", false, pgerr.New("0A000", `"EEEE" not supported for input`)
	}
	if num.is(fRoman) {
		return "", false, pgerr.New("0A000", `"RN" not supported for input`)
	}
	p.numCount = num.post + num.pre - 1
	p.number = []byte{' '}
	p.prepareLocale()
	if !num.is(fLDecimal) {
		p.decimal = "."
	}
	in := value
	pos := 0
	overload := func() bool { return pos >= len(in) }
	amount := func(s int) bool { return pos <= len(in)-s }
	eatNonData := func(n int) {
		for ; n > 0; n-- {
			if overload() || strings.IndexByte("0123456789.,+-", in[pos]) >= 0 {
				break
			}
			_, l := utf8.DecodeRuneInString(in[pos:])
			pos += l
		}
	}
	numpart := func(id int) {
		isread := false
		if overload() {
			return
		}
		if in[pos] == ' ' {
			pos++
		}
		if overload() {
			return
		}
		if p.number[0] == ' ' && (id == num0 || id == num9) && p.readPre+p.readPost == 0 {
			if num.is(fLSign) && num.lsign == lsignPre {
				if x := len(p.negSign); amount(x) && strings.HasPrefix(in[pos:], p.negSign) {
					pos += x
					p.number[0] = '-'
				} else if x := len(p.posSign); amount(x) && strings.HasPrefix(in[pos:], p.posSign) {
					pos += x
					p.number[0] = '+'
				}
			} else if in[pos] == '-' || (num.is(fBracket) && in[pos] == '<') {
				p.number[0] = '-'
				pos++
			} else if in[pos] == '+' {
				p.number[0] = '+'
				pos++
			}
		}
		if overload() {
			return
		}
		if c := in[pos]; c >= '0' && c <= '9' {
			if p.readDec && p.readPost == num.post {
				return
			}
			p.number = append(p.number, c)
			if p.readDec {
				p.readPost++
			} else {
				p.readPre++
			}
			isread = true
		} else if num.is(fDecimal) && !p.readDec {
			if x := len(p.decimal); amount(x) && strings.HasPrefix(in[pos:], p.decimal) {
				pos += x - 1
				p.number = append(p.number, '.')
				p.readDec = true
				isread = true
			}
		}
		if overload() {
			return
		}
		if p.number[0] == ' ' && p.readPre+p.readPost > 0 {
			if num.is(fLSign) && isread && pos+1 < len(in) && !(in[pos+1] >= '0' && in[pos+1] <= '9') {
				tmp := pos
				pos++
				if x := len(p.negSign); amount(x) && strings.HasPrefix(in[pos:], p.negSign) {
					pos += x - 1
					p.number[0] = '-'
				} else if x := len(p.posSign); amount(x) && strings.HasPrefix(in[pos:], p.posSign) {
					pos += x - 1
					p.number[0] = '+'
				}
				if p.number[0] == ' ' {
					pos = tmp
				}
			} else if !isread && !num.is(fLSign) && (num.is(fPlus) || num.is(fMinus)) {
				if in[pos] == '-' || in[pos] == '+' {
					p.number[0] = in[pos]
				}
			}
		}
	}
	for _, n := range nodes {
		if overload() {
			break
		}
		if !n.action {
			_, l := utf8.DecodeRuneInString(in[pos:])
			pos += l
			continue
		}
		switch n.id {
		case num9, num0, numDec, numD:
			numpart(n.id)
		case numComma:
			if !p.numIn && num.is(fFillMode) {
				continue
			}
			if in[pos] != ',' {
				continue
			}
		case numG:
			if !p.numIn && num.is(fFillMode) {
				continue
			}
			if x := len(p.thousands); amount(x) && strings.HasPrefix(in[pos:], p.thousands) {
				pos += x - 1
			} else {
				continue
			}
		case numL:
			eatNonData(utf8.RuneCountInString(p.currency))
			continue
		case numth, numTH:
			if num.is(fDecimal) {
				continue
			}
			eatNonData(2)
			continue
		case numMI:
			if in[pos] == '-' {
				p.number[0] = '-'
			} else {
				eatNonData(1)
				continue
			}
		case numPL:
			if in[pos] == '+' {
				p.number[0] = '+'
			} else {
				eatNonData(1)
				continue
			}
		case numSG:
			switch in[pos] {
			case '-':
				p.number[0] = '-'
			case '+':
				p.number[0] = '+'
			default:
				eatNonData(1)
				continue
			}
		default:
			continue
		}
		pos++
	}
	numstr := p.number
	if numstr[len(numstr)-1] == '.' {
		numstr = numstr[:len(numstr)-1]
	}
	scale := p.readPost
	precision := num.pre + num.multi + scale
	d, ok := parseDecimal(string(numstr))
	if !ok {
		return "", false, pgerr.New("22P02", "invalid input syntax for type numeric: \"%s\"", string(numstr))
	}
	if precision < 1 || precision > 1000 {
		// numeric_in refuses such a typmod? It is applied as given:
		// precision 0 holds only values that round to 0.
		if precision > 1000 {
			precision = 1000
		}
	}
	d, err = d.applyTypmod(precision, scale)
	if err != nil {
		return "", false, err
	}
	dscale := scale
	if num.is(fMulti) {
		if !d.isZero() {
			d.exp -= num.multi
		}
		// numeric_power(10, -multi) carries at least 16 digits (its rscale)
		ps := num.multi
		if ps < 16 {
			ps = 16
		}
		dscale += ps
	}
	return d.text(dscale), true, nil
}
