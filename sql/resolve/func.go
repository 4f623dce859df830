package resolve

import (
	"strings"

	"github.com/bsdb/bsdb-pg/pgerr"
)

// candidate is one entry of FuncnameGetCandidates' list: a function
// whose arguments, expanded for VARIADIC and defaults and reordered for
// named arguments, line up with the call's.
type candidate struct {
	proc       *Proc
	args       []uint32 // one per call argument, in call order
	nvargs     int      // call arguments collected into the VARIADIC array
	ndargs     int      // defaults the call relies on
	argnumbers []int    // named notation: the function's position of each call argument
}

// candidates is FuncnameGetCandidates for the built-in functions (one
// namespace, no search path): the functions of this name that accept nargs
// arguments, positionally or (argnames non-empty) in named notation, with
// VARIADIC expanded and defaults used when allowed. Where several
// functions end up with the same argument types (one by its defaults, one
// by expansion) the one PostgreSQL prefers is kept: a non-variadic one
// over a variadic one; two equally good ones make the entry ambiguous
// (proc nil).
func (r *Resolver) candidates(name string, nargs int, argnames []string, expandVariadic, expandDefaults bool) []*candidate {
	var out []*candidate
	anySpecial := false
	for _, p := range r.cat.Procs(name) {
		pronargs := len(p.Args)
		var variadic, useDefaults bool
		var argnumbers []int
		var vaElem uint32
		if len(argnames) > 0 {
			if p.Variadic != 0 && expandVariadic {
				continue
			}
			if pronargs > nargs && expandDefaults {
				if nargs+p.NArgDefaults < pronargs {
					continue
				}
				useDefaults = true
			}
			if pronargs != nargs && !useDefaults {
				continue
			}
			var ok bool
			if argnumbers, ok = matchNamedCall(p, nargs, argnames); !ok {
				continue
			}
			anySpecial = true
		} else {
			if pronargs <= nargs && expandVariadic && p.Variadic != 0 {
				vaElem, variadic = p.Variadic, true
				anySpecial = true
			}
			if pronargs > nargs && expandDefaults {
				if nargs+p.NArgDefaults < pronargs {
					continue
				}
				useDefaults, anySpecial = true, true
			}
			if pronargs != nargs && !variadic && !useDefaults {
				continue
			}
		}
		eff := max(pronargs, nargs)
		c := &candidate{proc: p, args: make([]uint32, eff), argnumbers: argnumbers}
		if argnumbers != nil {
			for i := 0; i < pronargs; i++ {
				c.args[i] = p.Args[argnumbers[i]]
			}
		} else {
			copy(c.args, p.Args)
		}
		if variadic {
			c.nvargs = eff - pronargs + 1
			for i := pronargs - 1; i < eff; i++ {
				c.args[i] = vaElem
			}
		}
		if useDefaults {
			c.ndargs = pronargs - nargs
		}
		if anySpecial && len(out) > 0 {
			cmp := len(c.args) - c.ndargs
			var prev *candidate
			for _, o := range out {
				if cmp == len(o.args)-o.ndargs && equalOIDs(c.args[:cmp], o.args[:cmp]) {
					prev = o
					break
				}
			}
			if prev != nil {
				switch {
				case variadic && prev.nvargs == 0:
					continue // keep the non-variadic one
				case !variadic && prev.nvargs > 0:
					*prev = *c // replace the variadic one
					continue
				default:
					prev.proc = nil // ambiguous
					continue
				}
			}
		}
		out = append(out, c)
	}
	return out
}

func equalOIDs(a, b []uint32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// matchNamedCall is MatchNamedCall: whether a call whose last
// len(argnames) arguments are named fits p, and the function's position of
// each call argument (positional ones first, then the named ones, then the
// defaulted ones in order).
func matchNamedCall(p *Proc, nargs int, argnames []string) ([]int, bool) {
	pronargs := len(p.Args)
	if len(p.ArgNames) != pronargs {
		return nil, false
	}
	npositional := nargs - len(argnames)
	if npositional < 0 {
		return nil, false
	}
	argnumbers := make([]int, pronargs)
	used := make([]bool, pronargs)
	for i := 0; i < npositional; i++ {
		argnumbers[i] = i
		used[i] = true
	}
	ap := npositional
	for _, an := range argnames {
		found := false
		for pp, pn := range p.ArgNames {
			if pn != "" && pn == an {
				if used[pp] {
					return nil, false
				}
				used[pp] = true
				argnumbers[ap] = pp
				found = true
				break
			}
		}
		if !found {
			return nil, false
		}
		ap++
	}
	if ap < pronargs {
		first := pronargs - p.NArgDefaults
		for pp := 0; pp < pronargs; pp++ {
			if used[pp] {
				continue
			}
			if pp < first {
				return nil, false // a missing argument without a default
			}
			argnumbers[ap] = pp
			ap++
		}
	}
	return argnumbers, true
}

// funcMatchArgTypes is func_match_argtypes: the candidates every input
// coerces to implicitly.
func (r *Resolver) funcMatchArgTypes(inputs []uint32, cands []*candidate) []*candidate {
	var out []*candidate
	for _, c := range cands {
		if r.CanCoerce(inputs, c.args[:len(inputs)], CoerceImplicit) {
			out = append(out, c)
		}
	}
	return out
}

// funcSelectCandidate is func_select_candidate: among several candidates
// that all accept the inputs, the one PostgreSQL's heuristics pick (most
// exact matches; then most matches or preferred types of the input's
// category; then, for unknown inputs, the category every candidate agrees
// on, or string; then, if all known inputs have one type, that type for
// the unknowns), or nil.
func (r *Resolver) funcSelectCandidate(inputs []uint32, cands []*candidate) *candidate {
	nargs := len(inputs)
	base := make([]uint32, nargs)
	nunknowns := 0
	for i, t := range inputs {
		if t == Unknown {
			base[i] = Unknown
			nunknowns++
		} else {
			base[i] = r.baseType(t)
		}
	}
	keepBest := func(score func(c *candidate) int) {
		best := -1
		var kept []*candidate
		for _, c := range cands {
			s := score(c)
			switch {
			case s > best:
				best, kept = s, []*candidate{c}
			case s == best:
				kept = append(kept, c)
			}
		}
		cands = kept
	}
	keepBest(func(c *candidate) int {
		n := 0
		for i := 0; i < nargs; i++ {
			if base[i] != Unknown && c.args[i] == base[i] {
				n++
			}
		}
		return n
	})
	if len(cands) == 1 {
		return cands[0]
	}
	slotCategory := make([]byte, nargs)
	for i := range base {
		slotCategory[i] = r.TypeCategory(base[i])
	}
	keepBest(func(c *candidate) int {
		n := 0
		for i := 0; i < nargs; i++ {
			if base[i] != Unknown && (c.args[i] == base[i] || r.IsPreferredType(slotCategory[i], c.args[i])) {
				n++
			}
		}
		return n
	})
	if len(cands) == 1 {
		return cands[0]
	}
	if nunknowns == 0 {
		return nil
	}
	slotPreferred := make([]bool, nargs)
	resolved := true
	for i := 0; i < nargs && resolved; i++ {
		if base[i] != Unknown {
			continue
		}
		slotCategory[i] = categoryInvalid
		conflict := false
		for _, c := range cands {
			cat, pref := r.categoryPreferred(c.args[i])
			switch {
			case slotCategory[i] == categoryInvalid:
				slotCategory[i], slotPreferred[i] = cat, pref
			case cat == slotCategory[i]:
				slotPreferred[i] = slotPreferred[i] || pref
			case cat == CategoryString:
				slotCategory[i], slotPreferred[i] = cat, pref
			default:
				conflict = true
			}
		}
		if conflict && slotCategory[i] != CategoryString {
			resolved = false
		}
	}
	if resolved {
		var kept []*candidate
		for _, c := range cands {
			keep := true
			for i := 0; i < nargs && keep; i++ {
				if base[i] != Unknown {
					continue
				}
				cat, pref := r.categoryPreferred(c.args[i])
				if cat != slotCategory[i] || slotPreferred[i] && !pref {
					keep = false
				}
			}
			if keep {
				kept = append(kept, c)
			}
		}
		if len(kept) > 0 {
			cands = kept
		}
		if len(cands) == 1 {
			return cands[0]
		}
	}
	if nunknowns < nargs {
		known := Unknown
		for _, t := range base {
			if t == Unknown {
				continue
			}
			if known == Unknown {
				known = t
			} else if known != t {
				known = Unknown
				break
			}
		}
		if known != Unknown {
			all := make([]uint32, nargs)
			for i := range all {
				all[i] = known
			}
			var found *candidate
			n := 0
			for _, c := range cands {
				if r.CanCoerce(all, c.args[:nargs], CoerceImplicit) {
					n++
					found = c
					if n > 1 {
						break
					}
				}
			}
			if n == 1 {
				return found
			}
		}
	}
	return nil
}

// FuncCall is a resolved function call.
type FuncCall struct {
	// Proc is the function; nil when the call is a cast (a function named
	// like a type with one argument: text(x), int4('1')).
	Proc *Proc
	// Args are the types each argument is coerced to, in call order
	// (polymorphic types replaced by the actual ones); for a cast, the
	// argument's own type.
	Args []uint32
	// Ret is the result type (polymorphic types replaced); for a cast, the
	// target type.
	Ret    uint32
	RetSet bool
	// NVArgs: the last NVArgs arguments are collected into one array of
	// the VARIADIC element type (0: none).
	NVArgs int
	// NDefaults: the function's last NDefaults arguments take their
	// defaults.
	NDefaults int
	// ArgNumbers: for a call in named notation, the function's position of
	// each call argument; nil for positional notation.
	ArgNumbers []int
}

// FuncDetail is why FuncGetDetail found nothing.
type FuncDetail int

// FuncGetDetail's outcomes.
const (
	FuncFound FuncDetail = iota
	FuncNotFound
	FuncNotUnique
)

// FuncGetDetail is func_get_detail: the function a call of name with
// arguments of these types (and, for named notation, these names of the
// last arguments) resolves to. argIsLiteral says whether a single argument
// is an untyped literal (typename('literal') is always a cast).
func (r *Resolver) FuncGetDetail(name string, argTypes []uint32, argNames []string, argIsLiteral bool) (*FuncCall, FuncDetail) {
	nargs := len(argTypes)
	raw := r.candidates(name, nargs, argNames, true, true)
	var best *candidate
	for _, c := range raw {
		if equalOIDs(c.args[:nargs], argTypes) {
			best = c
			break
		}
	}
	if best == nil {
		if nargs == 1 && len(argNames) == 0 {
			if t := r.cat.TypeByName(name); t != nil {
				target, source := t.OID, argTypes[0]
				coercion := false
				if source == Unknown && argIsLiteral {
					coercion = true
				} else {
					switch r.FindCoercionPathway(target, source, CoerceExplicit).Path {
					case PathRelabel:
						coercion = true
					case PathCoerceViaIO:
						coercion = !((source == Record || r.isComplex(source)) && r.TypeCategory(target) == CategoryString)
					}
				}
				if coercion {
					return &FuncCall{Args: []uint32{source}, Ret: target}, FuncFound
				}
			}
		}
		if len(raw) > 0 {
			match := r.funcMatchArgTypes(argTypes, raw)
			switch {
			case len(match) == 1:
				best = match[0]
			case len(match) > 1:
				if best = r.funcSelectCandidate(argTypes, match); best == nil {
					return nil, FuncNotUnique
				}
			}
		}
	}
	if best == nil {
		return nil, FuncNotFound
	}
	if best.proc == nil {
		return nil, FuncNotUnique
	}
	fc := &FuncCall{Proc: best.proc, Args: append([]uint32(nil), best.args[:nargs]...), Ret: best.proc.Ret,
		RetSet: best.proc.RetSet, NVArgs: best.nvargs, NDefaults: best.ndargs, ArgNumbers: best.argnumbers}
	return fc, FuncFound
}

// ResolveFunction is the type resolution of ParseFuncOrColumn for a call
// of a built-in function: FuncGetDetail, then the polymorphic types
// (enforce_generic_type_consistency, with the VARIADIC array and the
// defaults counted). Errors are PostgreSQL's: 42883 "function f(types)
// does not exist" (with its hint), 42725 "function f(types) is not
// unique", 42804 for polymorphic mismatches.
func (r *Resolver) ResolveFunction(name string, argTypes []uint32, argNames []string, argIsLiteral bool) (*FuncCall, error) {
	fc, detail := r.FuncGetDetail(name, argTypes, argNames, argIsLiteral)
	switch detail {
	case FuncNotFound:
		return nil, pgerr.New(pgerr.UndefinedFunction, "function %s does not exist", r.FuncSignature(name, argTypes, argNames)).
			WithHint("No function matches the given name and argument types. You might need to add explicit type casts.")
	case FuncNotUnique:
		return nil, pgerr.New(pgerr.AmbiguousFunction, "function %s is not unique", r.FuncSignature(name, argTypes, argNames)).
			WithHint("Could not choose a best candidate function. You might need to add explicit type casts.")
	}
	if fc.Proc == nil {
		return fc, nil
	}
	// Polymorphism: the declared types of the call's arguments, with the
	// VARIADIC ones as the array they become, and the defaulted ones.
	declared := append([]uint32(nil), fc.Args...)
	actual := append([]uint32(nil), argTypes...)
	p := fc.Proc
	if fc.NDefaults > 0 {
		// Defaulted arguments: their declared types take part (an unknown
		// actual type stands for the default's own type).
		for i := len(p.Args) - fc.NDefaults; i < len(p.Args); i++ {
			declared = append(declared, p.Args[i])
			actual = append(actual, p.Args[i])
		}
	}
	if hasPolymorphic(declared) || IsPolymorphic(fc.Ret) {
		ret, err := r.EnforceGenericConsistency(actual, declared, fc.Ret)
		if err != nil {
			return nil, err
		}
		fc.Ret = ret
		copy(fc.Args, declared[:len(fc.Args)])
	}
	return fc, nil
}

func hasPolymorphic(ts []uint32) bool {
	for _, t := range ts {
		if IsPolymorphic(t) {
			return true
		}
	}
	return false
}

// FuncSignature is func_signature_string: name(type, name => type, ...).
func (r *Resolver) FuncSignature(name string, argTypes []uint32, argNames []string) string {
	var b strings.Builder
	b.WriteString(name)
	b.WriteByte('(')
	npositional := len(argTypes) - len(argNames)
	for i, t := range argTypes {
		if i > 0 {
			b.WriteString(", ")
		}
		if i >= npositional {
			b.WriteString(argNames[i-npositional])
			b.WriteString(" => ")
		}
		b.WriteString(r.formatType(t))
	}
	b.WriteByte(')')
	return b.String()
}
