package resolve

import (
	"strings"

	"github.com/bsdb/bsdb-pg/pgerr"
)

// OperCall is a resolved operator.
type OperCall struct {
	Oper *Oper
	// Left and Right are the types the operands are coerced to
	// (polymorphic types replaced; Left 0 for a prefix operator).
	Left, Right uint32
	Ret         uint32
	RetSet      bool
}

// operByTypes is OpernameGetOprid: the operator of this name taking
// exactly these types (left 0 for a prefix operator).
func (r *Resolver) operByTypes(name string, left, right uint32) *Oper {
	kind := byte('b')
	if left == 0 {
		kind = 'l'
	}
	for _, o := range r.cat.Opers(name, kind) {
		if o.Left == left && o.Right == right {
			return o
		}
	}
	return nil
}

// binaryOperExact is binary_oper_exact: an operator taking exactly the
// operands' types, an unknown operand taking the other's type (or, for a
// domain, its base type).
func (r *Resolver) binaryOperExact(name string, left, right uint32) *Oper {
	unknown := false
	if left == Unknown && right != 0 {
		left, unknown = right, true
	} else if right == Unknown && left != 0 {
		right, unknown = left, true
	}
	if o := r.operByTypes(name, left, right); o != nil {
		return o
	}
	if unknown {
		if b := r.baseType(left); b != left {
			return r.operByTypes(name, b, b)
		}
	}
	return nil
}

// operCandidates turns operators into func_select_candidate's candidates.
func operCandidates(ops []*Oper, prefix bool) []*candidate {
	out := make([]*candidate, 0, len(ops))
	for _, o := range ops {
		c := &candidate{proc: &Proc{OID: o.OID, Name: o.Name, Ret: o.Result}}
		if prefix {
			c.args = []uint32{o.Right}
		} else {
			c.args = []uint32{o.Left, o.Right}
		}
		out = append(out, c)
	}
	return out
}

// ResolveOperator is oper (binary operators) and left_oper (prefix, left
// 0) followed by make_op's polymorphic resolution: the operator an
// expression left op right uses. Errors are PostgreSQL's: 42883
// "operator does not exist: integer + text" (with its hint), 42725
// "operator is not unique: ...".
func (r *Resolver) ResolveOperator(name string, left, right uint32) (*OperCall, error) {
	prefix := left == 0
	var op *Oper
	detail := FuncNotFound
	if prefix {
		op = r.operByTypes(name, 0, right)
	} else {
		op = r.binaryOperExact(name, left, right)
	}
	if op == nil {
		kind := byte('b')
		if prefix {
			kind = 'l'
		}
		if ops := r.cat.Opers(name, kind); len(ops) > 0 {
			var inputs []uint32
			if prefix {
				inputs = []uint32{right}
			} else {
				inputs = []uint32{left, right}
			}
			cands := r.funcMatchArgTypes(inputs, operCandidates(ops, prefix))
			var best *candidate
			switch {
			case len(cands) == 1:
				best = cands[0]
			case len(cands) > 1:
				if best = r.funcSelectCandidate(inputs, cands); best == nil {
					detail = FuncNotUnique
				}
			}
			if best != nil {
				for _, o := range ops {
					if o.OID == best.proc.OID {
						op = o
					}
				}
			}
		}
	}
	if op == nil {
		sig := r.operSignature(name, left, right)
		if detail == FuncNotUnique {
			return nil, pgerr.New(pgerr.AmbiguousFunction, "operator is not unique: %s", sig).
				WithHint("Could not choose a best candidate operator. You might need to add explicit type casts.")
		}
		hint := "No operator matches the given name and argument types. You might need to add explicit type casts."
		if prefix {
			hint = "No operator matches the given name and argument type. You might need to add an explicit type cast."
		}
		return nil, pgerr.New(pgerr.UndefinedFunction, "operator does not exist: %s", sig).WithHint("%s", hint)
	}
	oc := &OperCall{Oper: op, Left: op.Left, Right: op.Right, Ret: op.Result}
	if IsPolymorphic(op.Left) || IsPolymorphic(op.Right) || IsPolymorphic(op.Result) {
		var actual, declared []uint32
		if prefix {
			actual, declared = []uint32{right}, []uint32{op.Right}
		} else {
			actual, declared = []uint32{left, right}, []uint32{op.Left, op.Right}
		}
		ret, err := r.EnforceGenericConsistency(actual, declared, op.Result)
		if err != nil {
			return nil, err
		}
		oc.Ret = ret
		if prefix {
			oc.Right = declared[0]
		} else {
			oc.Left, oc.Right = declared[0], declared[1]
		}
	}
	if p := r.procByOID(op.Proc); p != nil {
		oc.RetSet = p.RetSet
	}
	return oc, nil
}

// procByOID finds a function by OID when the catalog can.
func (r *Resolver) procByOID(oid uint32) *Proc {
	if pc, ok := r.cat.(interface{ Proc(uint32) *Proc }); ok {
		return pc.Proc(oid)
	}
	return nil
}

// operSignature is op_signature_string: "integer + text", "- text".
func (r *Resolver) operSignature(name string, left, right uint32) string {
	var b strings.Builder
	if left != 0 {
		b.WriteString(r.formatType(left))
		b.WriteByte(' ')
	}
	b.WriteString(name)
	b.WriteByte(' ')
	b.WriteString(r.formatType(right))
	return b.String()
}
