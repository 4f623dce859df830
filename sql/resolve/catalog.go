package resolve

// OIDs of the types the rules name (pg_type.dat).
const (
	Bool                    uint32 = 16
	Name                    uint32 = 19
	Int8                    uint32 = 20
	Int2                    uint32 = 21
	Int2Vector              uint32 = 22
	Int4                    uint32 = 23
	Text                    uint32 = 25
	OID                     uint32 = 26
	OIDVector               uint32 = 30
	Float4                  uint32 = 700
	Float8                  uint32 = 701
	Unknown                 uint32 = 705
	TextArray               uint32 = 1009
	Bpchar                  uint32 = 1042
	Varchar                 uint32 = 1043
	Numeric                 uint32 = 1700
	Record                  uint32 = 2249
	RecordArray             uint32 = 2287
	Any                     uint32 = 2276
	AnyArray                uint32 = 2277
	AnyElement              uint32 = 2283
	AnyNonArray             uint32 = 2776
	AnyEnum                 uint32 = 3500
	AnyRange                uint32 = 3831
	AnyMultirange           uint32 = 4537
	AnyCompatibleMultirange uint32 = 4538
	AnyCompatible           uint32 = 5077
	AnyCompatibleArray      uint32 = 5078
	AnyCompatibleNonArray   uint32 = 5079
	AnyCompatibleRange      uint32 = 5080
)

// Type categories (pg_type.typcategory).
const (
	CategoryArray     byte = 'A'
	CategoryBoolean   byte = 'B'
	CategoryComposite byte = 'C'
	CategoryDatetime  byte = 'D'
	CategoryEnum      byte = 'E'
	CategoryNumeric   byte = 'N'
	CategoryPseudo    byte = 'P'
	CategoryRange     byte = 'R'
	CategoryString    byte = 'S'
	CategoryTimespan  byte = 'T'
	CategoryUser      byte = 'U'
	CategoryBitstring byte = 'V'
	CategoryUnknown   byte = 'X'
	categoryInvalid   byte = 0
)

// Type is what the rules read of a pg_type row.
type Type struct {
	OID       uint32
	Name      string // typname
	Category  byte   // typcategory
	Preferred bool   // typispreferred
	TypType   byte   // 'b' base, 'd' domain, 'p' pseudo, 'c' composite, 'e' enum, 'r' range, 'm' multirange
	Len       int32  // typlen
	Elem      uint32 // typelem
	Array     uint32 // typarray
	BaseType  uint32 // typbasetype (domains)
	RelID     uint32 // typrelid (composite types)
}

// Proc is what the rules read of a pg_proc row.
type Proc struct {
	OID          uint32
	Name         string
	Args         []uint32 // proargtypes
	ArgNames     []string // proargnames of the input arguments, "" where unnamed; nil if none
	Variadic     uint32   // provariadic: the element type of a VARIADIC argument, 0 if none
	NArgDefaults int      // pronargdefaults
	Ret          uint32   // prorettype
	RetSet       bool     // proretset
	Kind         byte     // prokind: 'f' function, 'a' aggregate, 'w' window, 'p' procedure
}

// Oper is what the rules read of a pg_operator row.
type Oper struct {
	OID    uint32
	Name   string
	Kind   byte // oprkind: 'b' binary (infix), 'l' prefix
	Left   uint32
	Right  uint32
	Result uint32
	Proc   uint32 // oprcode
}

// Cast is a pg_cast row.
type Cast struct {
	Source, Target uint32
	Func           uint32
	Context        byte // 'i' implicit, 'a' assignment, 'e' explicit
	Method         byte // 'f' function, 'i' I/O, 'b' binary
}

// Catalog gives the rules PostgreSQL's catalogs. The slices it returns
// are not modified.
type Catalog interface {
	// Type returns the pg_type row of oid, or nil.
	Type(oid uint32) *Type
	// Procs returns the functions of this name (FuncnameGetCandidates'
	// PROCNAMEARGSNSP lookup), in OID order.
	Procs(name string) []*Proc
	// Opers returns the operators of this name and kind ('b' or 'l'), in
	// OID order.
	Opers(name string, kind byte) []*Oper
	// Cast returns the pg_cast row for (source, target), or nil.
	Cast(source, target uint32) *Cast
	// TypeByName returns the type of this pg_type name, or nil
	// (FuncNameAsType: a function call named like a type may be a cast).
	TypeByName(name string) *Type
	// FormatType is format_type_be: the type's name in messages
	// ("integer", "character varying").
	FormatType(oid uint32) string
}

// Resolver applies the rules over one Catalog.
type Resolver struct {
	cat Catalog
}

// New returns a Resolver over cat.
func New(cat Catalog) *Resolver { return &Resolver{cat: cat} }

// Catalog returns the catalog r reads.
func (r *Resolver) Catalog() Catalog { return r.cat }

// baseType is getBaseType: a domain's base type (domains of domains
// followed), else the type itself.
func (r *Resolver) baseType(oid uint32) uint32 {
	for i := 0; i < 16; i++ {
		t := r.cat.Type(oid)
		if t == nil || t.TypType != 'd' || t.BaseType == 0 {
			return oid
		}
		oid = t.BaseType
	}
	return oid
}

// categoryPreferred is get_type_category_preferred.
func (r *Resolver) categoryPreferred(oid uint32) (byte, bool) {
	t := r.cat.Type(oid)
	if t == nil {
		return categoryInvalid, false
	}
	return t.Category, t.Preferred
}

// TypeCategory is TypeCategory.
func (r *Resolver) TypeCategory(oid uint32) byte {
	c, _ := r.categoryPreferred(oid)
	return c
}

// IsPreferredType is IsPreferredType: whether oid is a preferred type of
// category (any category when category is invalid).
func (r *Resolver) IsPreferredType(category byte, oid uint32) bool {
	c, p := r.categoryPreferred(oid)
	if category == c || category == categoryInvalid {
		return p
	}
	return false
}

// ElementType is get_element_type: the element type of a true array type
// (a varlena type with a typelem), else 0.
func (r *Resolver) ElementType(oid uint32) uint32 {
	t := r.cat.Type(oid)
	if t == nil || t.Elem == 0 || t.Len != -1 {
		return 0
	}
	return t.Elem
}

// ArrayType is get_array_type: the array type of oid, else 0.
func (r *Resolver) ArrayType(oid uint32) uint32 {
	t := r.cat.Type(oid)
	if t == nil {
		return 0
	}
	return t.Array
}

// isArrayDomain is type_is_array_domain.
func (r *Resolver) isArrayDomain(oid uint32) bool {
	return r.ElementType(r.baseType(oid)) != 0
}

// isComplex is ISCOMPLEX: a composite type.
func (r *Resolver) isComplex(oid uint32) bool {
	t := r.cat.Type(oid)
	return t != nil && t.TypType == 'c'
}

// isEnum is type_is_enum.
func (r *Resolver) isEnum(oid uint32) bool {
	t := r.cat.Type(oid)
	return t != nil && t.TypType == 'e'
}

// IsPolymorphic is IsPolymorphicType.
func IsPolymorphic(oid uint32) bool {
	switch oid {
	case AnyElement, AnyArray, AnyNonArray, AnyEnum, AnyRange, AnyMultirange,
		AnyCompatible, AnyCompatibleArray, AnyCompatibleNonArray, AnyCompatibleRange, AnyCompatibleMultirange:
		return true
	}
	return false
}

// isPolymorphicFamily1 is IsPolymorphicTypeFamily1.
func isPolymorphicFamily1(oid uint32) bool {
	switch oid {
	case AnyElement, AnyArray, AnyNonArray, AnyEnum, AnyRange, AnyMultirange:
		return true
	}
	return false
}

func (r *Resolver) formatType(oid uint32) string { return r.cat.FormatType(oid) }
