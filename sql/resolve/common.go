package resolve

import "github.com/bsdb/bsdb-pg/pgerr"

// CommonTypeError is select_common_type's error: the input at Index (a
// position in the types given) has a type of another category than the
// ones before it. Context names the construct ("CASE", "UNION", "COALESCE",
// "VALUES", "ARRAY"); the caller adds the position of that input.
type CommonTypeError struct {
	Context     string
	Index       int
	Have, Other uint32
	Err         *pgerr.Error
}

func (e *CommonTypeError) Error() string { return e.Err.Error() }

// Unwrap gives the *pgerr.Error.
func (e *CommonTypeError) Unwrap() error { return e.Err }

// SelectCommonType is select_common_type: the type that the values of a
// UNION column, a CASE, COALESCE, VALUES column or ARRAY[] take. Identical
// types are kept (a domain too); otherwise domains count as their base
// types, unknowns take the type of the others (text if all are unknown),
// and of two types of one category the later wins if the earlier coerces
// to it implicitly but not the other way, unless the earlier is the
// category's preferred type. Types of two categories are an error (42804
// "%s types %s and %s cannot be matched").
func (r *Resolver) SelectCommonType(types []uint32, context string) (uint32, error) {
	if len(types) == 0 {
		return Text, nil
	}
	p := types[0]
	i := 1
	if p != Unknown {
		for i < len(types) && types[i] == p {
			i++
		}
		if i == len(types) {
			return p, nil
		}
	}
	p = r.baseType(p)
	pcat, ppref := r.categoryPreferred(p)
	for ; i < len(types); i++ {
		n := r.baseType(types[i])
		if n == Unknown || n == p {
			continue
		}
		ncat, npref := r.categoryPreferred(n)
		switch {
		case p == Unknown:
			p, pcat, ppref = n, ncat, npref
		case ncat != pcat:
			return 0, &CommonTypeError{Context: context, Index: i, Have: p, Other: n,
				Err: mismatch("%s types %s and %s cannot be matched", context, r.formatType(p), r.formatType(n))}
		case !ppref && r.canCoerce1(p, n, CoerceImplicit) && !r.canCoerce1(n, p, CoerceImplicit):
			p, pcat, ppref = n, ncat, npref
		}
	}
	if p == Unknown {
		p = Text
	}
	return p, nil
}

// commonTypeFromOIDs is select_common_type_from_oids with noerror.
func (r *Resolver) commonTypeFromOIDs(types []uint32) (uint32, bool) {
	t, err := r.selectCommonTypeFromOIDs(types)
	return t, err == nil
}

// selectCommonTypeFromOIDs is select_common_type_from_oids (its message
// says "argument types").
func (r *Resolver) selectCommonTypeFromOIDs(types []uint32) (uint32, error) {
	t, err := r.SelectCommonType(types, "")
	if ce, ok := err.(*CommonTypeError); ok {
		return 0, mismatch("argument types %s and %s cannot be matched", r.formatType(ce.Have), r.formatType(ce.Other))
	}
	return t, err
}

// verifyCommonType is verify_common_type_from_oids: every type coerces
// implicitly to common.
func (r *Resolver) verifyCommonType(common uint32, types []uint32) bool {
	for _, t := range types {
		if !r.canCoerce1(t, common, CoerceImplicit) {
			return false
		}
	}
	return true
}

// CoerceToCommonError is coerce_to_common_type's error: 42846 "%s could
// not convert type %s to %s" (the caller adds the position).
func (r *Resolver) CoerceToCommonError(context string, from, to uint32) *pgerr.Error {
	return pgerr.New(pgerr.CannotCoerce, "%s could not convert type %s to %s", context, r.formatType(from), r.formatType(to))
}
