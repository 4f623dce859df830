package resolve

import (
	"github.com/bsdb/bsdb-pg/pgerr"
)

// RangeCatalog is optionally implemented by a Catalog that knows range
// types (pg_range). Without it no type is a range.
type RangeCatalog interface {
	RangeSubtype(rangeType uint32) uint32         // get_range_subtype
	RangeMultirange(rangeType uint32) uint32      // get_range_multirange
	MultirangeRange(multirangeType uint32) uint32 // get_multirange_range
}

func (r *Resolver) rangeSubtype(t uint32) uint32 {
	if rc, ok := r.cat.(RangeCatalog); ok {
		return rc.RangeSubtype(t)
	}
	return 0
}

func (r *Resolver) rangeMultirange(t uint32) uint32 {
	if rc, ok := r.cat.(RangeCatalog); ok {
		return rc.RangeMultirange(t)
	}
	return 0
}

func (r *Resolver) multirangeRange(t uint32) uint32 {
	if rc, ok := r.cat.(RangeCatalog); ok {
		return rc.MultirangeRange(t)
	}
	return 0
}

// checkGenericConsistency is check_generic_type_consistency: whether the
// actual types can stand for the polymorphic declared ones consistently
// (every anyelement the same type, anyarray an array of it, the
// anycompatible family a common type).
func (r *Resolver) checkGenericConsistency(actual, declared []uint32) bool {
	var elem, array, rng, multirange uint32
	var acRange, acRangeElem, acMultirange, acMultirangeElem uint32
	var rangeElem uint32
	var anynonarray, anyenum, acNonarray bool
	var acActual []uint32
	for j, decl := range declared {
		act := actual[j]
		switch decl {
		case AnyElement, AnyNonArray, AnyEnum:
			if decl == AnyNonArray {
				anynonarray = true
			} else if decl == AnyEnum {
				anyenum = true
			}
			if act == Unknown {
				continue
			}
			if elem != 0 && act != elem {
				return false
			}
			elem = act
		case AnyArray:
			if act == Unknown {
				continue
			}
			act = r.baseType(act)
			if array != 0 && act != array {
				return false
			}
			array = act
		case AnyRange:
			if act == Unknown {
				continue
			}
			act = r.baseType(act)
			if rng != 0 && act != rng {
				return false
			}
			rng = act
		case AnyMultirange:
			if act == Unknown {
				continue
			}
			act = r.baseType(act)
			if multirange != 0 && act != multirange {
				return false
			}
			multirange = act
		case AnyCompatible, AnyCompatibleNonArray:
			if decl == AnyCompatibleNonArray {
				acNonarray = true
			}
			if act == Unknown {
				continue
			}
			acActual = append(acActual, act)
		case AnyCompatibleArray:
			if act == Unknown {
				continue
			}
			e := r.ElementType(r.baseType(act))
			if e == 0 {
				return false
			}
			acActual = append(acActual, e)
		case AnyCompatibleRange:
			if act == Unknown {
				continue
			}
			act = r.baseType(act)
			if acRange != 0 {
				if acRange != act {
					return false
				}
			} else {
				acRange = act
				acRangeElem = r.rangeSubtype(act)
				if acRangeElem == 0 {
					return false
				}
				acActual = append(acActual, acRangeElem)
			}
		case AnyCompatibleMultirange:
			if act == Unknown {
				continue
			}
			act = r.baseType(act)
			if acMultirange != 0 {
				if acMultirange != act {
					return false
				}
			} else {
				acMultirange = act
				acMultirangeElem = r.multirangeRange(act)
				if acMultirangeElem == 0 {
					return false
				}
			}
		}
	}
	if array != 0 && array != AnyArray {
		e := r.ElementType(array)
		if e == 0 {
			return false
		}
		if elem == 0 {
			elem = e
		} else if e != elem {
			return false
		}
	}
	if multirange != 0 {
		mr := r.multirangeRange(multirange)
		if mr == 0 {
			return false
		}
		if rng == 0 {
			rng = mr
			if rangeElem = r.rangeSubtype(mr); rangeElem == 0 {
				return false
			}
		} else if mr != rng {
			return false
		}
	}
	if rng != 0 {
		if rangeElem = r.rangeSubtype(rng); rangeElem == 0 {
			return false
		}
		if elem == 0 {
			elem = rangeElem
		} else if rangeElem != elem {
			return false
		}
	}
	if anynonarray && r.isArrayDomain(elem) {
		return false
	}
	if anyenum && !r.isEnum(elem) {
		return false
	}
	if acMultirange != 0 {
		if acRange != 0 {
			if acMultirangeElem != acRange {
				return false
			}
		} else {
			acRange = acMultirangeElem
			if acRangeElem = r.rangeSubtype(acRange); acRangeElem == 0 {
				return false
			}
			acActual = append(acActual, acRangeElem)
		}
	}
	if len(acActual) > 0 {
		common, ok := r.commonTypeFromOIDs(acActual)
		if !ok || !r.verifyCommonType(common, acActual) {
			return false
		}
		if acNonarray && r.isArrayDomain(common) {
			return false
		}
		if acRangeElem != 0 && acRangeElem != common {
			return false
		}
	}
	return true
}

func mismatch(format string, args ...any) *pgerr.Error {
	return pgerr.New(pgerr.DatatypeMismatch, format, args...)
}

// EnforceGenericConsistency is enforce_generic_type_consistency with
// allow_poly false: it replaces the polymorphic types in declared (which it
// modifies) by the actual types they stand for, and returns the actual
// return type. An unknown literal in a polymorphic position takes the type
// of the others; with none, anyelement cannot be determined (42804) and
// the anycompatible family becomes text.
func (r *Resolver) EnforceGenericConsistency(actual, declared []uint32, ret uint32) (uint32, error) {
	var elem, array, rng, multirange uint32
	var acType, acArray, acRange, acRangeElem, acMultirange, acMultirangeElem uint32
	anynonarray := ret == AnyNonArray
	anyenum := ret == AnyEnum
	anymultirange := ret == AnyMultirange
	acNonarray := ret == AnyCompatibleNonArray
	acHaveArray := ret == AnyCompatibleArray
	acHaveRange := ret == AnyCompatibleRange
	acHaveMultirange := ret == AnyCompatibleMultirange
	var polyArgs int
	var polyAC, polyUnknowns bool
	var acActual []uint32
	alike := func(what string, a, b uint32) error {
		return mismatch("arguments declared \"%s\" are not all alike", what).
			WithDetail("%s versus %s", r.formatType(a), r.formatType(b))
	}
	for j, decl := range declared {
		act := actual[j]
		switch decl {
		case AnyElement, AnyNonArray, AnyEnum:
			polyArgs++
			if decl == AnyNonArray {
				anynonarray = true
			} else if decl == AnyEnum {
				anyenum = true
			}
			if act == Unknown {
				polyUnknowns = true
				continue
			}
			if elem != 0 && act != elem {
				return 0, alike("anyelement", elem, act)
			}
			elem = act
		case AnyArray:
			polyArgs++
			if act == Unknown {
				polyUnknowns = true
				continue
			}
			act = r.baseType(act)
			if array != 0 && act != array {
				return 0, alike("anyarray", array, act)
			}
			array = act
		case AnyRange:
			polyArgs++
			if act == Unknown {
				polyUnknowns = true
				continue
			}
			act = r.baseType(act)
			if rng != 0 && act != rng {
				return 0, alike("anyrange", rng, act)
			}
			rng = act
		case AnyMultirange:
			polyArgs++
			anymultirange = true
			if act == Unknown {
				polyUnknowns = true
				continue
			}
			act = r.baseType(act)
			if multirange != 0 && act != multirange {
				return 0, alike("anymultirange", multirange, act)
			}
			multirange = act
		case AnyCompatible, AnyCompatibleNonArray:
			polyAC = true
			if decl == AnyCompatibleNonArray {
				acNonarray = true
			}
			if act == Unknown {
				continue
			}
			acActual = append(acActual, act)
		case AnyCompatibleArray:
			polyAC = true
			acHaveArray = true
			if act == Unknown {
				continue
			}
			act = r.baseType(act)
			e := r.ElementType(act)
			if e == 0 {
				return 0, mismatch("argument declared %s is not an array but type %s", "anycompatiblearray", r.formatType(act))
			}
			acActual = append(acActual, e)
		case AnyCompatibleRange:
			polyAC = true
			acHaveRange = true
			if act == Unknown {
				continue
			}
			act = r.baseType(act)
			if acRange != 0 {
				if acRange != act {
					return 0, alike("anycompatiblerange", acRange, act)
				}
			} else {
				acRange = act
				if acRangeElem = r.rangeSubtype(act); acRangeElem == 0 {
					return 0, mismatch("argument declared %s is not a range type but type %s", "anycompatiblerange", r.formatType(act))
				}
				acActual = append(acActual, acRangeElem)
			}
		case AnyCompatibleMultirange:
			polyAC = true
			acHaveMultirange = true
			if act == Unknown {
				continue
			}
			act = r.baseType(act)
			if acMultirange != 0 {
				if acMultirange != act {
					return 0, alike("anycompatiblemultirange", acMultirange, act)
				}
			} else {
				acMultirange = act
				if acMultirangeElem = r.multirangeRange(act); acMultirangeElem == 0 {
					return 0, mismatch("argument declared %s is not a multirange type but type %s", "anycompatiblemultirange", r.formatType(act))
				}
			}
		}
	}
	if polyArgs == 0 && !polyAC {
		return ret, nil
	}
	if polyArgs > 0 {
		if array != 0 {
			var ae uint32
			if array == AnyArray {
				if polyArgs != 1 || ret != AnyArray && isPolymorphicFamily1(ret) {
					return 0, mismatch("cannot determine element type of \"anyarray\" argument")
				}
				ae = AnyElement
			} else if ae = r.ElementType(array); ae == 0 {
				return 0, mismatch("argument declared %s is not an array but type %s", "anyarray", r.formatType(array))
			}
			if elem == 0 {
				elem = ae
			} else if ae != elem {
				return 0, mismatch("argument declared %s is not consistent with argument declared %s", "anyarray", "anyelement").
					WithDetail("%s versus %s", r.formatType(array), r.formatType(elem))
			}
		}
		if multirange != 0 {
			mr := r.multirangeRange(multirange)
			if mr == 0 {
				return 0, mismatch("argument declared %s is not a multirange type but type %s", "anymultirange", r.formatType(multirange))
			}
			if rng == 0 {
				rng = mr
			} else if mr != rng {
				return 0, mismatch("argument declared %s is not consistent with argument declared %s", "anymultirange", "anyrange").
					WithDetail("%s versus %s", r.formatType(multirange), r.formatType(rng))
			}
		} else if anymultirange && rng != 0 {
			multirange = r.rangeMultirange(rng)
		}
		if rng != 0 {
			re := r.rangeSubtype(rng)
			if re == 0 {
				return 0, mismatch("argument declared %s is not a range type but type %s", "anyrange", r.formatType(rng))
			}
			if elem == 0 {
				elem = re
			} else if re != elem {
				return 0, mismatch("argument declared %s is not consistent with argument declared %s", "anyrange", "anyelement").
					WithDetail("%s versus %s", r.formatType(rng), r.formatType(elem))
			}
		}
		if elem == 0 {
			return 0, mismatch("could not determine polymorphic type because input has type %s", "unknown")
		}
		if anynonarray && r.isArrayDomain(elem) {
			return 0, mismatch("type matched to anynonarray is an array type: %s", r.formatType(elem))
		}
		if anyenum && !r.isEnum(elem) {
			return 0, mismatch("type matched to anyenum is not an enum type: %s", r.formatType(elem))
		}
	}
	if polyAC {
		if acMultirange != 0 {
			if acRange != 0 {
				if acMultirangeElem != acRange {
					return 0, mismatch("argument declared %s is not consistent with argument declared %s", "anycompatiblemultirange", "anycompatiblerange")
				}
			} else {
				acRange = acMultirangeElem
				if acRangeElem = r.rangeSubtype(acRange); acRangeElem == 0 {
					return 0, mismatch("argument declared %s is not a multirange type but type %s", "anycompatiblemultirange", r.formatType(acMultirange))
				}
				acHaveRange = true
				acActual = append(acActual, acRangeElem)
			}
		} else if acHaveMultirange && acRange != 0 {
			acMultirange = r.rangeMultirange(acRange)
		}
		if len(acActual) > 0 {
			common, err := r.selectCommonTypeFromOIDs(acActual)
			if err != nil {
				return 0, err
			}
			acType = common
			if !r.verifyCommonType(acType, acActual) {
				return 0, mismatch("arguments of anycompatible family cannot be cast to a common type")
			}
			if acHaveArray {
				if acArray = r.ArrayType(acType); acArray == 0 {
					return 0, pgerr.New(pgerr.UndefinedObject, "could not find array type for data type %s", r.formatType(acType))
				}
			}
			if acHaveRange {
				if acRange == 0 {
					return 0, mismatch("could not determine polymorphic type %s because input has type %s", "anycompatiblerange", "unknown")
				}
				if acRangeElem != acType {
					return 0, mismatch("anycompatiblerange type %s does not match anycompatible type %s", r.formatType(acRange), r.formatType(acType))
				}
			}
			if acHaveMultirange && acMultirange == 0 {
				return 0, mismatch("could not determine polymorphic type %s because input has type %s", "anycompatiblemultirange", "unknown")
			}
			if acNonarray && r.isArrayDomain(acType) {
				return 0, mismatch("type matched to anycompatiblenonarray is an array type: %s", r.formatType(acType))
			}
		} else {
			acType, acArray = Text, TextArray
			if acHaveRange {
				return 0, mismatch("could not determine polymorphic type %s because input has type %s", "anycompatiblerange", "unknown")
			}
			if acHaveMultirange {
				return 0, mismatch("could not determine polymorphic type %s because input has type %s", "anycompatiblemultirange", "unknown")
			}
		}
		for j, decl := range declared {
			switch decl {
			case AnyCompatible, AnyCompatibleNonArray:
				declared[j] = acType
			case AnyCompatibleArray:
				declared[j] = acArray
			case AnyCompatibleRange:
				declared[j] = acRange
			case AnyCompatibleMultirange:
				declared[j] = acMultirange
			}
		}
	}
	if polyUnknowns {
		for j, decl := range declared {
			if actual[j] != Unknown {
				continue
			}
			switch decl {
			case AnyElement, AnyNonArray, AnyEnum:
				declared[j] = elem
			case AnyArray:
				if array == 0 {
					if array = r.ArrayType(elem); array == 0 {
						return 0, pgerr.New(pgerr.UndefinedObject, "could not find array type for data type %s", r.formatType(elem))
					}
				}
				declared[j] = array
			case AnyRange:
				if rng == 0 {
					return 0, mismatch("could not determine polymorphic type %s because input has type %s", "anyrange", "unknown")
				}
				declared[j] = rng
			case AnyMultirange:
				if multirange == 0 {
					return 0, mismatch("could not determine polymorphic type %s because input has type %s", "anymultirange", "unknown")
				}
				declared[j] = multirange
			}
		}
	}
	// Resolved polymorphic arguments take their actual types too (the
	// caller coerces every argument to its declared type).
	for j, decl := range declared {
		switch decl {
		case AnyElement, AnyNonArray, AnyEnum:
			declared[j] = elem
		case AnyArray:
			if array == 0 {
				array = r.ArrayType(elem)
			}
			declared[j] = array
		case AnyRange:
			declared[j] = rng
		case AnyMultirange:
			declared[j] = multirange
		}
	}
	switch ret {
	case AnyElement, AnyNonArray, AnyEnum:
		return elem, nil
	case AnyArray:
		if array == 0 {
			if array = r.ArrayType(elem); array == 0 {
				return 0, pgerr.New(pgerr.UndefinedObject, "could not find array type for data type %s", r.formatType(elem))
			}
		}
		return array, nil
	case AnyRange:
		if rng == 0 {
			return 0, mismatch("could not determine polymorphic type %s because input has type %s", "anyrange", "unknown")
		}
		return rng, nil
	case AnyMultirange:
		if multirange == 0 {
			return 0, mismatch("could not determine polymorphic type %s because input has type %s", "anymultirange", "unknown")
		}
		return multirange, nil
	case AnyCompatible, AnyCompatibleNonArray:
		return acType, nil
	case AnyCompatibleArray:
		return acArray, nil
	case AnyCompatibleRange:
		return acRange, nil
	case AnyCompatibleMultirange:
		return acMultirange, nil
	}
	return ret, nil
}
