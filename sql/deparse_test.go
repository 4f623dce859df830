package sql

import (
	"bufio"
	"encoding/base64"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	pg_query "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// The deparser is C code: a tree it cannot print kills the process.
// checkDeparsable must refuse every such tree. These tests hand the real
// deparser, in a child process, every tree the checker accepts among:
//
//   - an empty node of every kind pg_query knows, as a select-list item;
//   - mutations of the trees of the project's regress scripts: a node
//     field cleared, a list element replaced by a nil or empty node (what
//     a rewrite bug produces: `SELECT ~5` once crashed this way);
//
// and fail if the child dies.

const deparseChildEnv = "BSDB_DEPARSE_CHILD_CASES"

// TestDeparseChild is the child: it deparses each case of the file named
// by deparseChildEnv, from the index in BSDB_DEPARSE_CHILD_FROM, and prints
// "ok <i>" after each. It does nothing in a normal run.
func TestDeparseChild(t *testing.T) {
	path := os.Getenv(deparseChildEnv)
	if path == "" {
		t.Skip("child process of TestDeparserSurvivesCheckedTrees")
	}
	from, _ := strconv.Atoi(os.Getenv("BSDB_DEPARSE_CHILD_FROM"))
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out := bufio.NewWriter(os.Stdout)
	for i, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		if i < from {
			continue
		}
		b, err := base64.StdEncoding.DecodeString(line)
		if err != nil {
			t.Fatal(err)
		}
		var n pg_query.Node
		if err := proto.Unmarshal(b, &n); err != nil {
			t.Fatal(err)
		}
		_, _ = pg_query.Deparse(&pg_query.ParseResult{Version: treeVersion, Stmts: []*pg_query.RawStmt{{Stmt: &n}}})
		fmt.Fprintf(out, "ok %d\n", i)
		out.Flush()
	}
}

// deparseInChild deparses every tree in a child process and returns the
// indexes of the trees the child died on.
func deparseInChild(t *testing.T, trees []*pg_query.Node) []int {
	t.Helper()
	var b strings.Builder
	for _, n := range trees {
		raw, err := proto.Marshal(n)
		if err != nil {
			t.Fatal(err)
		}
		b.WriteString(base64.StdEncoding.EncodeToString(raw))
		b.WriteByte('\n')
	}
	path := filepath.Join(t.TempDir(), "cases")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	var crashed []int
	for from := 0; from < len(trees); {
		cmd := exec.Command(os.Args[0], "-test.run=^TestDeparseChild$", "-test.count=1")
		cmd.Env = append(os.Environ(), deparseChildEnv+"="+path, "BSDB_DEPARSE_CHILD_FROM="+strconv.Itoa(from))
		out, err := cmd.Output()
		last := from - 1
		for _, l := range strings.Split(string(out), "\n") {
			if v, ok := strings.CutPrefix(l, "ok "); ok {
				if i, e := strconv.Atoi(v); e == nil && i > last {
					last = i
				}
			}
		}
		if err == nil && last == len(trees)-1 {
			break
		}
		if last+1 >= len(trees) {
			break
		}
		crashed = append(crashed, last+1)
		from = last + 2
	}
	return crashed
}

func TestDeparserSurvivesEveryNodeKind(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the deparser in child processes")
	}
	od := nodeDescriptor.Oneofs().ByName("node")
	var accepted []*pg_query.Node
	var names []string
	for i := 0; i < od.Fields().Len(); i++ {
		f := od.Fields().Get(i)
		n := &pg_query.Node{}
		m := n.ProtoReflect()
		m.Set(f, protoreflect.ValueOfMessage(m.NewField(f).Message()))
		sel := &pg_query.SelectStmt{TargetList: []*pg_query.Node{pg_query.MakeResTargetNodeWithVal(n, -1)}}
		tree := &pg_query.Node{Node: &pg_query.Node_SelectStmt{SelectStmt: sel}}
		if checkDeparsable(tree) == nil {
			accepted = append(accepted, tree)
			names = append(names, string(f.Name()))
		}
	}
	if len(accepted) < od.Fields().Len()/2 {
		t.Fatalf("the checker accepted only %d of %d empty node kinds: it refuses too much to be useful", len(accepted), od.Fields().Len())
	}
	for _, i := range deparseInChild(t, accepted) {
		t.Errorf("checkDeparsable accepted an empty %s node, and the deparser crashed on it", names[i])
	}
}

// regressTrees parses the statements of the regress scripts.
func regressTrees(t *testing.T) []*pg_query.Node {
	t.Helper()
	files, err := filepath.Glob("../regress/sql/*.sql")
	if err != nil || len(files) == 0 {
		t.Fatalf("no regress scripts: %v", err)
	}
	var trees []*pg_query.Node
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		stmts, err := pg_query.SplitWithScanner(string(data), true)
		if err != nil {
			continue
		}
		for _, s := range stmts {
			r, err := pg_query.Parse(s)
			if err != nil {
				continue
			}
			for _, st := range r.Stmts {
				trees = append(trees, st.Stmt)
			}
		}
	}
	return trees
}

// nodeSlots lists every place in m where a node can be damaged: singular
// node fields and list elements.
type nodeSlot struct {
	m    protoreflect.Message
	fd   protoreflect.FieldDescriptor
	elem int // -1 for a singular field
}

func nodeSlots(m protoreflect.Message, out *[]nodeSlot) {
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		if fd.Message() == nil || fd.IsMap() {
			return true
		}
		if fd.IsList() {
			l := v.List()
			for i := 0; i < l.Len(); i++ {
				if fd.Message() == nodeDescriptor {
					*out = append(*out, nodeSlot{m, fd, i})
				}
				nodeSlots(l.Get(i).Message(), out)
			}
			return true
		}
		if fd.Message() == nodeDescriptor {
			*out = append(*out, nodeSlot{m, fd, -1})
		}
		nodeSlots(v.Message(), out)
		return true
	})
}

func TestDeparserSurvivesCheckedTrees(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the deparser in child processes")
	}
	trees := regressTrees(t)
	rng := rand.New(rand.NewSource(1))
	var accepted []*pg_query.Node
	mutants := 0
	for _, tree := range trees {
		var slots []nodeSlot
		c := proto.Clone(tree).(*pg_query.Node)
		nodeSlots(c.ProtoReflect(), &slots)
		// A few mutants per tree: each damages one slot.
		for k := 0; k < 4 && len(slots) > 0; k++ {
			mut := proto.Clone(tree).(*pg_query.Node)
			var ms []nodeSlot
			nodeSlots(mut.ProtoReflect(), &ms)
			s := ms[rng.Intn(len(ms))]
			switch {
			case s.elem < 0:
				s.m.Clear(s.fd)
			case rng.Intn(2) == 0:
				s.m.Get(s.fd).List().Set(s.elem, protoreflect.ValueOfMessage((&pg_query.Node{}).ProtoReflect()))
			default:
				s.m.Mutable(s.fd).List().Set(s.elem, protoreflect.ValueOfMessage((*pg_query.Node)(nil).ProtoReflect()))
			}
			mutants++
			if checkDeparsable(mut) == nil {
				accepted = append(accepted, mut)
			}
		}
	}
	t.Logf("%d regress statements, %d mutants, %d accepted by the checker", len(trees), mutants, len(accepted))
	if len(accepted) == 0 || mutants < 500 {
		t.Fatalf("too few cases: %d mutants, %d accepted", mutants, len(accepted))
	}
	for _, i := range deparseInChild(t, accepted) {
		text, _ := proto.Marshal(accepted[i])
		t.Errorf("checkDeparsable accepted a tree the deparser crashed on (%d bytes of protobuf): %v", len(text), accepted[i])
	}
}

// The crashing statements of the security issue: each is refused with
// PostgreSQL's error, before or instead of a crash.
func TestDeparseGuardRefusesKnownCrashers(t *testing.T) {
	// SELECT ~5 once became regexp_matches(NULL, 5).
	bad := &pg_query.Node{Node: &pg_query.Node_SelectStmt{SelectStmt: &pg_query.SelectStmt{TargetList: []*pg_query.Node{
		pg_query.MakeResTargetNodeWithVal(makeCall("regexp_matches", -1, nil, pg_query.MakeAConstIntNode(5, -1)), -1)}}}}
	if err := checkDeparsable(bad); err == nil {
		t.Fatal("a call with a nil argument was accepted")
	}
	// A chain deeper than the deparser's stack.
	e := pg_query.MakeAConstIntNode(1, -1)
	for i := 0; i < 5000; i++ {
		e = pg_query.MakeAExprNode(pg_query.A_Expr_Kind_AEXPR_OP, []*pg_query.Node{pg_query.MakeStrNode("+")}, e, pg_query.MakeAConstIntNode(1, -1), -1)
	}
	deep := &pg_query.Node{Node: &pg_query.Node_SelectStmt{SelectStmt: &pg_query.SelectStmt{TargetList: []*pg_query.Node{pg_query.MakeResTargetNodeWithVal(e, -1)}}}}
	if err := checkDeparsable(deep); err == nil || !strings.Contains(err.Error(), "stack depth limit exceeded") {
		t.Fatalf("a 5,000-deep chain: %v, want stack depth limit exceeded", err)
	}
}
