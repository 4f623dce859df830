package sql

import (
	pg_query "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// walkNodes calls fn for root and every *pg_query.Node below it, in
// pre-order. fn may replace n.Node; the walk then descends into the new
// content. Returning false skips n's children.
func walkNodes(root *pg_query.Node, fn func(n *pg_query.Node) bool) {
	if root == nil {
		return
	}
	if fn(root) {
		walkChildren(root, fn)
	}
}

// walkChildren calls walkNodes for every *pg_query.Node directly below m
// (looking through non-Node messages such as TypeName or WindowDef).
func walkChildren(m proto.Message, fn func(n *pg_query.Node) bool) {
	walkMsg(m.ProtoReflect(), fn)
}

func walkMsg(m protoreflect.Message, fn func(n *pg_query.Node) bool) {
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		if fd.Message() == nil || fd.IsMap() {
			return true
		}
		if fd.IsList() {
			l := v.List()
			for i := 0; i < l.Len(); i++ {
				visitMsg(l.Get(i).Message(), fn)
			}
			return true
		}
		visitMsg(v.Message(), fn)
		return true
	})
}

func visitMsg(pm protoreflect.Message, fn func(n *pg_query.Node) bool) {
	if n, ok := pm.Interface().(*pg_query.Node); ok {
		walkNodes(n, fn)
		return
	}
	walkMsg(pm, fn)
}
