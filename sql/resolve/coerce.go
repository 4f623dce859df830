package resolve

// CoercionContext is where a coercion happens, from the most to the least
// permissive (CoercionContext in primnodes.h; the order matters).
type CoercionContext int

// Contexts.
const (
	CoerceImplicit   CoercionContext = iota // in an expression: function and operator arguments
	CoerceAssignment                        // a value assigned to a column (INSERT, UPDATE)
	CoerceExplicit                          // CAST(x AS t), x::t
)

// Pathway is how a coercion is done (CoercionPathType).
type Pathway int

// Pathways.
const (
	PathNone        Pathway = iota // no coercion
	PathFunc                       // the cast function Coercion.Func
	PathRelabel                    // binary compatible: the same bits
	PathArrayCoerce                // element by element
	PathCoerceViaIO                // the target's input function of the source's output text
)

// Coercion is the pathway find_coercion_pathway chose.
type Coercion struct {
	Path Pathway
	Func uint32 // for PathFunc
}

// FindCoercionPathway is find_coercion_pathway: how source coerces to
// target in ccontext (domains by their base types; pg_cast; arrays by
// their elements; I/O casts to string types for assignment and from string
// types when explicit).
func (r *Resolver) FindCoercionPathway(target, source uint32, ccontext CoercionContext) Coercion {
	if source != 0 {
		source = r.baseType(source)
	}
	if target != 0 {
		target = r.baseType(target)
	}
	if source == target {
		return Coercion{Path: PathRelabel}
	}
	if c := r.cat.Cast(source, target); c != nil {
		var castctx CoercionContext
		switch c.Context {
		case 'i':
			castctx = CoerceImplicit
		case 'a':
			castctx = CoerceAssignment
		default:
			castctx = CoerceExplicit
		}
		if ccontext >= castctx {
			switch c.Method {
			case 'f':
				return Coercion{Path: PathFunc, Func: c.Func}
			case 'i':
				return Coercion{Path: PathCoerceViaIO}
			case 'b':
				return Coercion{Path: PathRelabel}
			}
		}
		return Coercion{}
	}
	// No pg_cast row: a pair of array types whose elements coerce (not to
	// oidvector or int2vector, which would capture coercions meant for
	// real arrays).
	if target != OIDVector && target != Int2Vector {
		if te, se := r.ElementType(target), r.ElementType(source); te != 0 && se != 0 {
			if r.FindCoercionPathway(te, se, ccontext).Path != PathNone {
				return Coercion{Path: PathArrayCoerce}
			}
		}
	}
	if ccontext >= CoerceAssignment && r.TypeCategory(target) == CategoryString {
		return Coercion{Path: PathCoerceViaIO}
	}
	if ccontext >= CoerceExplicit && r.TypeCategory(source) == CategoryString {
		return Coercion{Path: PathCoerceViaIO}
	}
	return Coercion{}
}

// CanCoerce is can_coerce_type: whether every input type coerces to its
// target in ccontext (an unknown literal to anything; polymorphic targets
// when the inputs agree on them).
func (r *Resolver) CanCoerce(inputs, targets []uint32, ccontext CoercionContext) bool {
	generics := false
	for i, in := range inputs {
		target := targets[i]
		switch {
		case in == target, target == Any:
			continue
		case IsPolymorphic(target):
			generics = true
			continue
		case in == Unknown:
			continue
		}
		if r.FindCoercionPathway(target, in, ccontext).Path != PathNone {
			continue
		}
		if in == Record && r.isComplex(target) || target == Record && r.isComplex(in) {
			continue
		}
		if target == RecordArray && r.isComplex(r.ElementType(in)) {
			continue
		}
		return false
	}
	if generics {
		return r.checkGenericConsistency(inputs, targets)
	}
	return true
}

// canCoerce1 is can_coerce_type of one type.
func (r *Resolver) canCoerce1(in, target uint32, ccontext CoercionContext) bool {
	return r.CanCoerce([]uint32{in}, []uint32{target}, ccontext)
}

// IsBinaryCoercible is IsBinaryCoercible: whether source's bits are a
// target value (no function runs).
func (r *Resolver) IsBinaryCoercible(source, target uint32) bool {
	if source == target || target == Any || target == AnyElement || target == AnyCompatible {
		return true
	}
	if source != 0 {
		source = r.baseType(source)
	}
	if source == target {
		return true
	}
	if (target == AnyArray || target == AnyCompatibleArray) && r.ElementType(source) != 0 {
		return true
	}
	if (target == AnyNonArray || target == AnyCompatibleNonArray) && r.ElementType(source) == 0 {
		return true
	}
	if target == AnyEnum && r.isEnum(source) {
		return true
	}
	if target == Record && r.isComplex(source) {
		return true
	}
	if target == RecordArray && r.isComplex(r.ElementType(source)) {
		return true
	}
	c := r.cat.Cast(source, target)
	return c != nil && c.Method == 'b' && c.Context == 'i'
}
