package pgtypes

// fastISO parses the form COPY and drivers send nearly always,
// "YYYY-MM-DD[ T]HH:MM:SS[.ffffff][Z|±HH[:MM[:SS]]]" or "YYYY-MM-DD",
// without allocating. It returns ok=false for anything else, including
// out-of-range fields, so that the general decoder produces the exact error.
func fastISO(b []byte) (f dtFields, ok bool) {
	num := func(p []byte) (int, bool) {
		v := 0
		for _, c := range p {
			if c < '0' || c > '9' {
				return 0, false
			}
			v = v*10 + int(c-'0')
		}
		return v, true
	}
	if len(b) < 10 || b[4] != '-' || b[7] != '-' {
		return f, false
	}
	var ok1, ok2, ok3 bool
	f.year, ok1 = num(b[0:4])
	f.mon, ok2 = num(b[5:7])
	f.mday, ok3 = num(b[8:10])
	if !ok1 || !ok2 || !ok3 || f.year == 0 || f.mon < 1 || f.mon > 12 || f.mday < 1 || f.mday > daysIn(f.year, f.mon) {
		return f, false
	}
	f.haveDate = true
	b = b[10:]
	if len(b) == 0 {
		return f, true
	}
	if len(b) < 9 || (b[0] != ' ' && b[0] != 'T') || b[3] != ':' || b[6] != ':' {
		return f, false
	}
	f.hour, ok1 = num(b[1:3])
	f.min, ok2 = num(b[4:6])
	f.sec, ok3 = num(b[7:9])
	if !ok1 || !ok2 || !ok3 || f.hour > 23 || f.min > 59 || f.sec > 59 {
		return f, false
	}
	f.haveTime = true
	b = b[9:]
	if len(b) > 0 && b[0] == '.' {
		i := 1
		scale := int64(100000)
		for ; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
			if i > 6 {
				return f, false // needs rounding: general path
			}
			f.fsec += int64(b[i]-'0') * scale
			scale /= 10
		}
		if i == 1 {
			return f, false
		}
		b = b[i:]
	}
	if len(b) == 0 {
		return f, true
	}
	if len(b) == 1 && (b[0] == 'Z' || b[0] == 'z') {
		f.haveTZ = true
		return f, true
	}
	if b[0] != '+' && b[0] != '-' || len(b) < 3 {
		return f, false
	}
	h, okh := num(b[1:3])
	if !okh {
		return f, false
	}
	off := h * 3600
	rest := b[3:]
	for _, mul := range []int{60, 1} {
		if len(rest) == 0 {
			break
		}
		if len(rest) < 3 || rest[0] != ':' {
			return f, false
		}
		v, okv := num(rest[1:3])
		if !okv || v > 59 {
			return f, false
		}
		off += v * mul
		rest = rest[3:]
	}
	if len(rest) != 0 || h > 15 {
		return f, false
	}
	if b[0] == '-' {
		off = -off
	}
	f.tzOff, f.haveTZ = off, true
	return f, true
}
