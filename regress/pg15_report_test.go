package regress

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// Measuring a file's output against its expected outputs, the report, and
// the gate files (passing.txt, floor.txt).

// pg15Measure is how close one file's output is to PostgreSQL's.
type pg15Measure struct {
	Name     string
	Setup    bool
	Exact    bool   // byte-identical to one of the expected files
	Expected string // that file, or the closest one (most matched lines)
	// Lines of the expected file, and how many of them the output produces:
	// the length of the longest common subsequence of the two, in lines
	// (what a line diff keeps).
	Lines, Matched int
	// The same over the expected lines that are not psql's echo of the
	// input (psql -a prints every line it reads, whatever the server
	// answers): results, errors, notices.
	ResultLines, ResultMatched int
	Failure                    string
	FirstDiff                  string   // the first hunk of the diff, shortened
	AddedErrors                []string // ERROR lines of the output that the diff adds
}

// splitLines splits text into lines without their "\n"; a final newline
// does not make an empty last line.
func splitLines(b []byte) []string {
	if len(b) == 0 {
		return nil
	}
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
}

// lineTokens maps lines to small integers shared through dict, so the LCS
// compares ints.
func lineTokens(lines []string, dict map[string]int32) []int32 {
	t := make([]int32, len(lines))
	for i, l := range lines {
		id, ok := dict[l]
		if !ok {
			id = int32(len(dict))
			dict[l] = id
		}
		t[i] = id
	}
	return t
}

// lcsRow returns L where L[j] is the length of the LCS of a and b[:j].
func lcsRow(a, b []int32) []int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for _, x := range a {
		for j, y := range b {
			switch {
			case x == y:
				cur[j+1] = prev[j] + 1
			case prev[j+1] >= cur[j]:
				cur[j+1] = prev[j+1]
			default:
				cur[j+1] = cur[j]
			}
		}
		prev, cur = cur, prev
	}
	return prev
}

// lcsLen is the length of the longest common subsequence of a and b.
func lcsLen(a, b []int32) int {
	n := 0
	for len(a) > 0 && len(b) > 0 && a[0] == b[0] {
		a, b, n = a[1:], b[1:], n+1
	}
	for len(a) > 0 && len(b) > 0 && a[len(a)-1] == b[len(b)-1] {
		a, b, n = a[:len(a)-1], b[:len(b)-1], n+1
	}
	if len(a) == 0 || len(b) == 0 {
		return n
	}
	row := lcsRow(a, b)
	return n + row[len(b)]
}

// lcsMatchB returns, for each element of b, whether a longest common
// subsequence of a and b uses it (Hirschberg's algorithm: linear space).
func lcsMatchB(a, b []int32) []bool {
	used := make([]bool, len(b))
	var rec func(a []int32, b0, b1 int)
	rec = func(a []int32, b0, b1 int) {
		for len(a) > 0 && b0 < b1 && a[0] == b[b0] {
			used[b0] = true
			a, b0 = a[1:], b0+1
		}
		for len(a) > 0 && b0 < b1 && a[len(a)-1] == b[b1-1] {
			used[b1-1] = true
			a, b1 = a[:len(a)-1], b1-1
		}
		if len(a) == 0 || b0 == b1 {
			return
		}
		if len(a) == 1 {
			for j := b0; j < b1; j++ {
				if b[j] == a[0] {
					used[j] = true
					return
				}
			}
			return
		}
		mid := len(a) / 2
		fwd := lcsRow(a[:mid], b[b0:b1])
		ra := reversed(a[mid:])
		rb := reversed(b[b0:b1])
		bwd := lcsRow(ra, rb)
		n := b1 - b0
		best, k := -1, 0
		for j := 0; j <= n; j++ {
			if v := fwd[j] + bwd[n-j]; v > best {
				best, k = v, j
			}
		}
		rec(a[:mid], b0, b0+k)
		rec(a[mid:], b0+k, b1)
	}
	rec(a, 0, len(b))
	return used
}

func reversed(s []int32) []int32 {
	r := make([]int32, len(s))
	for i, x := range s {
		r[len(s)-1-i] = x
	}
	return r
}

// withoutEcho returns the lines of out that are not psql's echo of input:
// the echo is the longest common subsequence of the input lines and the
// output lines (psql -a echoes every line it reads, in order, except empty
// lines and COPY data; where an echoed line equals a result line, which one
// counts as the echo does not change the counts). empty is the token of the
// empty line.
func withoutEcho(input, out []int32, empty int32) []int32 {
	var echoed []int32
	for _, t := range input {
		if t != empty {
			echoed = append(echoed, t)
		}
	}
	echo := lcsMatchB(echoed, out)
	var r []int32
	for i, t := range out {
		if !echo[i] {
			r = append(r, t)
		}
	}
	return r
}

// measurePG15 compares a file's output with each of its expected files.
func measurePG15(f *pg15File) pg15Measure {
	m := pg15Measure{Name: f.Name, Setup: f.Setup, Failure: f.Failure, Matched: -1}
	names := make([]string, 0, len(f.Expected))
	for n := range f.Expected {
		names = append(names, n)
	}
	sort.Strings(names) // NAME.out before NAME_1.out: it wins ties
	dict := map[string]int32{"": 0}
	in := lineTokens(splitLines(f.Input), dict)
	act := lineTokens(splitLines(f.Output), dict)
	actResults := withoutEcho(in, act, dict[""])
	for _, n := range names {
		exp := f.Expected[n]
		if bytes.Equal(exp, f.Output) {
			lines := len(splitLines(exp))
			res := len(withoutEcho(in, lineTokens(splitLines(exp), dict), dict[""]))
			return pg15Measure{Name: f.Name, Setup: f.Setup, Exact: true, Expected: n,
				Lines: lines, Matched: lines, ResultLines: res, ResultMatched: res, Failure: f.Failure}
		}
		e := lineTokens(splitLines(exp), dict)
		matched := lcsLen(e, act)
		if matched > m.Matched {
			eres := withoutEcho(in, e, dict[""])
			m.Expected, m.Lines, m.Matched = n, len(e), matched
			m.ResultLines, m.ResultMatched = len(eres), lcsLen(eres, actResults)
		}
	}
	return m
}

// firstHunk returns the first hunk of a unified diff, at most max lines.
func firstHunk(diff string, max int) string {
	lines := strings.Split(diff, "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "@@") {
			end := min(len(lines), i+1+max)
			j := i + 1
			for ; j < end; j++ {
				if strings.HasPrefix(lines[j], "@@") {
					break
				}
			}
			return strings.TrimRight(strings.Join(lines[i:j], "\n"), "\n")
		}
	}
	return ""
}

// firstChange summarises a hunk from firstHunk as its first changed line:
// "line N: -expected" or "line N: +actual", N in the expected file.
func firstChange(hunk string, width int) string {
	lines := strings.Split(hunk, "\n")
	if len(lines) == 0 || !strings.HasPrefix(lines[0], "@@ -") {
		return ""
	}
	start, _, _ := strings.Cut(strings.TrimPrefix(lines[0], "@@ -"), " ")
	start, _, _ = strings.Cut(start, ",")
	n, err := strconv.Atoi(start)
	if err != nil {
		return ""
	}
	for _, l := range lines[1:] {
		if strings.HasPrefix(l, "-") || strings.HasPrefix(l, "+") {
			if len(l) > width {
				l = l[:width] + "..."
			}
			return fmt.Sprintf("line %d: %s", n, l)
		}
		n++
	}
	return ""
}

// addedErrors returns the ERROR lines a unified diff adds.
func addedErrors(diff string) []string {
	var r []string
	for _, l := range strings.Split(diff, "\n") {
		if strings.HasPrefix(l, "+ERROR:") {
			r = append(r, strings.TrimPrefix(l, "+"))
		}
	}
	return r
}

var quoted = regexp.MustCompile(`"[^"]*"`)

// frequentErrors groups the added ERROR lines of all files by message
// (quoted names replaced by "..."), most frequent first.
func frequentErrors(ms []pg15Measure, n int) []string {
	count := map[string]int{}
	files := map[string]map[string]bool{}
	for _, m := range ms {
		for _, e := range m.AddedErrors {
			k := quoted.ReplaceAllString(e, `"..."`)
			count[k]++
			if files[k] == nil {
				files[k] = map[string]bool{}
			}
			files[k][m.Name] = true
		}
	}
	keys := make([]string, 0, len(count))
	for k := range count {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if count[keys[i]] != count[keys[j]] {
			return count[keys[i]] > count[keys[j]]
		}
		return keys[i] < keys[j]
	})
	var r []string
	for _, k := range keys[:min(n, len(keys))] {
		names := make([]string, 0, len(files[k]))
		for f := range files[k] {
			names = append(names, f)
		}
		sort.Strings(names)
		r = append(r, fmt.Sprintf("| %d | %s | `%s` |", count[k], strings.Join(names, " "), mdCode(k)))
	}
	return r
}

// pg15Totals sums the core files.
type pg15Totals struct {
	Files, Exact, Lines, Matched, ResultLines, ResultMatched int
}

func totalsPG15(ms []pg15Measure) pg15Totals {
	var t pg15Totals
	for _, m := range ms {
		if m.Setup {
			continue
		}
		t.Files++
		if m.Exact {
			t.Exact++
		}
		t.Lines += m.Lines
		t.Matched += m.Matched
		t.ResultLines += m.ResultLines
		t.ResultMatched += m.ResultMatched
	}
	return t
}

func pct(n, d int) string {
	if d == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f%%", 100*float64(n)/float64(d))
}

// tablePG15 is the plain-text table of the test log.
func tablePG15(ms []pg15Measure) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%-26s %-5s %13s %7s %17s %7s  %s\n", "file", "exact", "matched/lines", "", "results matched", "", "first difference")
	row := func(name, exact string, matched, lines, rm, rl int, note string) {
		fmt.Fprintf(&b, "%-26s %-5s %13s %7s %17s %7s  %s\n", name, exact,
			fmt.Sprintf("%d/%d", matched, lines), pct(matched, lines),
			fmt.Sprintf("%d/%d", rm, rl), pct(rm, rl), note)
	}
	for _, m := range ms {
		name := m.Name
		if m.Setup {
			name += " (setup)"
		}
		exact := "no"
		if m.Exact {
			exact = "yes"
		}
		note := firstChange(m.FirstDiff, 70)
		if m.Failure != "" {
			note = m.Failure + "; " + note
		}
		row(name, exact, m.Matched, m.Lines, m.ResultMatched, m.ResultLines, note)
	}
	t := totalsPG15(ms)
	row(fmt.Sprintf("%d core files", t.Files), fmt.Sprintf("%d", t.Exact), t.Matched, t.Lines, t.ResultMatched, t.ResultLines, "")
	return b.String()
}

// reportPG15 renders regress/pg15/REPORT.md.
func reportPG15(target string, ms []pg15Measure, db pg15DB) string {
	var b strings.Builder
	t := totalsPG15(ms)
	fmt.Fprintf(&b, "# PostgreSQL 15 regression suite: %s\n\n", target)
	b.WriteString("Written by `make pgregress` (`go test ./regress -run 'TestPG15Regress$' -args -report`); do not edit.\n")
	b.WriteString("The files are PostgreSQL 15.18's own (`sql/`, `expected/`, see `README.md`), run as pg_regress runs them.\n\n")
	fmt.Fprintf(&b, "**%d of %d core files match exactly. %s's output produces %d of their %d expected lines (%s); "+
		"of the %d expected lines that are not psql's echo of the input, %d (%s).**\n\n",
		t.Exact, t.Files, target, t.Matched, t.Lines, pct(t.Matched, t.Lines),
		t.ResultLines, t.ResultMatched, pct(t.ResultMatched, t.ResultLines))
	b.WriteString("Matched lines: the longest common subsequence of the expected and the actual output, in lines ")
	b.WriteString("(the lines a diff leaves unchanged), against the closest of the expected files. ")
	b.WriteString("Result lines: the expected lines that are not psql's echo of the file's input (`psql -a` echoes every line it reads, whatever the server answers), ")
	b.WriteString("i.e. results, errors and notices.\n\n")

	b.WriteString("| file | exact | expected lines | matched | % | result lines | matched | % | note |\n")
	b.WriteString("|---|---|---:|---:|---:|---:|---:|---:|---|\n")
	row := func(name, exact string, m pg15Measure) {
		fmt.Fprintf(&b, "| %s | %s | %d | %d | %s | %d | %d | %s | %s |\n", name, exact,
			m.Lines, m.Matched, pct(m.Matched, m.Lines), m.ResultLines, m.ResultMatched, pct(m.ResultMatched, m.ResultLines),
			strings.ReplaceAll(m.Failure, "|", `\|`))
	}
	exact := func(m pg15Measure) string {
		if m.Exact {
			if m.Expected != m.Name+".out" {
				return "yes (" + m.Expected + ")"
			}
			return "yes"
		}
		return "no"
	}
	for _, m := range ms {
		if !m.Setup {
			row(m.Name, exact(m), m)
		}
	}
	row(fmt.Sprintf("**%d core files**", t.Files), fmt.Sprintf("**%d**", t.Exact), pg15Measure{
		Lines: t.Lines, Matched: t.Matched, ResultLines: t.ResultLines, ResultMatched: t.ResultMatched})
	for _, m := range ms {
		if m.Setup {
			row(m.Name+" (setup)", exact(m), m)
		}
	}

	b.WriteString("\n## How it runs\n\n")
	b.WriteString("Files run one after the other in `parallel_schedule` order, the setup files where the schedule has them:\n\n")
	names := make([]string, 0, len(pg15Setup))
	for n := range pg15Setup {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(&b, "- `%s`: %s\n", n, pg15Setup[n])
	}
	b.WriteString("\n`psql -X -a -q -d regression -v HIDE_TABLEAM=on -v HIDE_TOAST_COMPRESSION=on < sql/NAME.sql`, with ")
	b.WriteString("`PGTZ=America/Los_Angeles`, `PGDATESTYLE='Postgres, MDY'`, `PGOPTIONS='-c intervalstyle=postgres_verbose'`, ")
	b.WriteString("`LC_MESSAGES=C`, `PGAPPNAME=pg_regress`, `LANG=C.UTF-8`, no `PGCLIENTENCODING`, `LANGUAGE`, `LC_ALL`, `PSQLRC`, ")
	b.WriteString("and `PG_ABS_SRCDIR`, `PG_ABS_BUILDDIR`, `PG_LIBDIR`, `PG_DLSUFFIX` for the psql variables. ")
	b.WriteString("The same runner reproduces every expected file exactly on PostgreSQL 15 (`TestPG15RegressAgainstPostgres`).\n\n")
	b.WriteString("Database `regression`: `DROP DATABASE IF EXISTS`, `CREATE DATABASE \"regression\" TEMPLATE=template0`, ")
	b.WriteString("`ALTER DATABASE ... SET` lc_messages, lc_monetary, lc_numeric, lc_time = 'C', bytea_output = 'hex', timezone_abbreviations = 'Default'. ")
	if len(db.Refused) == 0 {
		fmt.Fprintf(&b, "%s runs all of them.", target)
	} else {
		fmt.Fprintf(&b, "%s refuses:\n\n", target)
		for _, n := range db.Refused {
			fmt.Fprintf(&b, "- %s\n", n)
		}
	}
	if len(db.Settings) == 0 {
		b.WriteString("\nA session of the database gets pg_regress's value of every one of these settings, and of the TimeZone, DateStyle and IntervalStyle of the environment (checked with SHOW).\n")
	} else {
		b.WriteString("\nSettings of a session of the database that differ from pg_regress's (checked with SHOW):\n\n")
		for _, n := range db.Settings {
			fmt.Fprintf(&b, "- %s\n", n)
		}
	}
	b.WriteString("\nAdaptations (setup files only, applied to the input and to the echo in the expected output, on every server):\n\n")
	b.WriteString("| file | why | original | run as |\n|---|---|---|---|\n")
	for _, a := range pg15Adaptations {
		fmt.Fprintf(&b, "| %s | %s | `%s` | `%s` |\n", a.File, a.Why, mdCode(a.From), mdCode(a.To))
	}

	if errs := frequentErrors(ms, 30); len(errs) > 0 {
		b.WriteString("\n## The errors bsdb-pg prints where PostgreSQL does not\n\n")
		b.WriteString("The most frequent ERROR lines the diffs add (all files, setup files included; quoted names as `\"...\"`). ")
		b.WriteString("An error in a setup file leaves out what later files read: it is paid again in every file that reads it.\n\n")
		b.WriteString("| times | files | error |\n|---:|---|---|\n")
		for _, e := range errs {
			b.WriteString(e + "\n")
		}
	}

	b.WriteString("\n## First differences\n\n")
	b.WriteString("The first hunk of each file's diff (all of it: `regress/results/pg15/" + target + "/regression.diffs`).\n")
	for _, m := range ms {
		if m.Exact {
			continue
		}
		fmt.Fprintf(&b, "\n### %s\n\n", m.Name)
		if m.Failure != "" {
			fmt.Fprintf(&b, "%s\n\n", m.Failure)
		}
		fmt.Fprintf(&b, "```diff\n%s\n```\n", strings.ReplaceAll(m.FirstDiff, "```", "` ` `"))
	}
	return b.String()
}

// mdCode makes a (possibly multi-line) statement fit a table cell.
func mdCode(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	return strings.ReplaceAll(s, "|", `\|`)
}

// The gate: passing.txt lists the files that match exactly, floor.txt the
// matched lines of every file. A run fails if a listed file stops matching
// or a file falls below its floor.
//
// pg15Slack: -update records a file's floor pg15Slack lines below what the
// run matched. Many expected outputs print rows in the order of
// PostgreSQL's plan, with no ORDER BY; bsdb-pg's order of some of them
// varies between runs even on one engine thread (join: the lateral UNION
// ALL query, ±1 matched line in 7 runs), and a gate that fails on that
// would fail at random. A change is reported as an improvement once it
// passes the run the floor was taken from.
const pg15Slack = 2

var (
	pg15PassingFile = filepath.Join(pg15Dir, "passing.txt")
	pg15FloorFile   = filepath.Join(pg15Dir, "floor.txt")
)

type pg15Gate struct {
	Passing map[string]bool
	Floor   map[string]int
}

func readPG15Gate(passingPath, floorPath string) (pg15Gate, error) {
	g := pg15Gate{Passing: map[string]bool{}, Floor: map[string]int{}}
	for _, p := range []string{passingPath, floorPath} {
		data, err := os.ReadFile(p)
		if err != nil {
			return g, err
		}
		for i, line := range strings.Split(string(data), "\n") {
			line, _, _ = strings.Cut(line, "#")
			fields := strings.Fields(line)
			if len(fields) == 0 {
				continue
			}
			if p == passingPath {
				g.Passing[fields[0]] = true
				continue
			}
			n := -1
			if len(fields) >= 2 {
				n, err = strconv.Atoi(fields[1])
			}
			if n < 0 || err != nil {
				return g, fmt.Errorf("%s:%d: want \"NAME MATCHED\", got %q", p, i+1, line)
			}
			g.Floor[fields[0]] = n
		}
	}
	return g, nil
}

// check returns the regressions (the test fails on them) and the
// improvements (the files can be raised with -update).
func (g pg15Gate) check(ms []pg15Measure) (regressions, improvements []string) {
	seen := map[string]bool{}
	for _, m := range ms {
		seen[m.Name] = true
		if g.Passing[m.Name] && !m.Exact {
			regressions = append(regressions, fmt.Sprintf("%s no longer matches expected/%s.out (listed in passing.txt)", m.Name, m.Name))
		}
		if !g.Passing[m.Name] && m.Exact {
			improvements = append(improvements, fmt.Sprintf("%s now matches exactly (%s)", m.Name, m.Expected))
		}
		floor, ok := g.Floor[m.Name]
		switch {
		case !ok:
			improvements = append(improvements, fmt.Sprintf("%s has no floor yet (%d matched lines)", m.Name, m.Matched))
		case m.Matched < floor:
			regressions = append(regressions, fmt.Sprintf("%s: %d matched lines, below its floor of %d", m.Name, m.Matched, floor))
		case m.Matched > floor+pg15Slack:
			improvements = append(improvements, fmt.Sprintf("%s: %d matched lines, above its floor of %d", m.Name, m.Matched, floor))
		}
	}
	for name := range g.Passing {
		if !seen[name] {
			regressions = append(regressions, fmt.Sprintf("%s is in passing.txt but was not run", name))
		}
	}
	sort.Strings(regressions)
	sort.Strings(improvements)
	return regressions, improvements
}

// writePG15Gate records this run as the new gate.
func writePG15Gate(passingPath, floorPath string, ms []pg15Measure) error {
	var p, f strings.Builder
	p.WriteString("# Files of PostgreSQL 15's regression suite whose output bsdb-pg reproduces exactly.\n")
	p.WriteString("# TestPG15Regress fails if one of them stops matching. Rewritten by -update.\n")
	f.WriteString("# Floor of matched lines per file (longest common subsequence with the expected output):\n")
	fmt.Fprintf(&f, "# the lines the -update run matched minus %d, for the order of rows no ORDER BY fixes,\n", pg15Slack)
	f.WriteString("# which bsdb-pg varies between runs. TestPG15Regress fails if a file falls below its floor.\n")
	for _, m := range ms {
		if m.Exact {
			fmt.Fprintf(&p, "%s\n", m.Name)
		}
		fmt.Fprintf(&f, "%-17s %5d  # matched %d of %d\n", m.Name, max(0, m.Matched-pg15Slack), m.Matched, m.Lines)
	}
	if err := os.WriteFile(passingPath, []byte(p.String()), 0o644); err != nil {
		return err
	}
	return os.WriteFile(floorPath, []byte(f.String()), 0o644)
}
