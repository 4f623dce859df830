package main

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
)

// Systems measured. The value lines use these names.
const (
	sysBSDB = "bsdb-pg"
	sysPG   = "postgres"
	sysDuck = "duckdb"
	sysDisk = "disk"
)

// Figure is one measured quantity: per system, the samples of its runs.
type Figure struct {
	Name         string
	Unit         string
	HigherBetter bool
	// Targets on bsdb-pg's median; zero means none.
	MinVsPG   float64 // speedup over PostgreSQL (>= this)
	MaxVsDuck float64 // slowdown against DuckDB (<= this)
	AbsMax    float64 // bsdb-pg's value (<= this)
	AbsMin    float64 // bsdb-pg's value (>= this)

	samples map[string][]float64
}

// Results holds every figure in the order first recorded.
type Results struct {
	order []string
	figs  map[string]*Figure
}

func newResults() *Results { return &Results{figs: map[string]*Figure{}} }

// Define declares a figure (idempotent) and returns it.
func (r *Results) Define(f Figure) *Figure {
	if old, ok := r.figs[f.Name]; ok {
		return old
	}
	f.samples = map[string][]float64{}
	r.figs[f.Name] = &f
	r.order = append(r.order, f.Name)
	return &f
}

// Add records one sample of figure name for system.
func (r *Results) Add(name, system string, v float64) {
	f, ok := r.figs[name]
	if !ok {
		panic("BUG: figure " + name + " not defined")
	}
	f.samples[system] = append(f.samples[system], v)
}

// Figures returns the figures in order.
func (r *Results) Figures() []*Figure {
	out := make([]*Figure, 0, len(r.order))
	for _, n := range r.order {
		out = append(out, r.figs[n])
	}
	// By figure number (the name's prefix), else in the order recorded.
	slices.SortStableFunc(out, func(a, b *Figure) int { return strings.Compare(a.Name[:1], b.Name[:1]) })
	return out
}

// Median of system's samples; ok is false when there are none.
func (f *Figure) Median(system string) (float64, bool) {
	s := f.samples[system]
	if len(s) == 0 {
		return 0, false
	}
	return median(s), true
}

func median(s []float64) float64 {
	c := slices.Clone(s)
	slices.Sort(c)
	n := len(c)
	if n%2 == 1 {
		return c[n/2]
	}
	return (c[n/2-1] + c[n/2]) / 2
}

// percentile of sorted durations-as-floats (nearest rank).
func percentile(sorted []float64, p float64) float64 {
	if len(sorted) == 0 {
		return math.NaN()
	}
	k := int(math.Ceil(p/100*float64(len(sorted)))) - 1
	k = max(0, min(k, len(sorted)-1))
	return sorted[k]
}

func geomean(v []float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	s := 0.0
	for _, x := range v {
		s += math.Log(x)
	}
	return math.Exp(s / float64(len(v)))
}

// speedup of a over b: how many times better a is (> 1: a wins).
func (f *Figure) speedup(a, b string) (float64, bool) {
	va, ok1 := f.Median(a)
	vb, ok2 := f.Median(b)
	if !ok1 || !ok2 || va == 0 || vb == 0 {
		return 0, false
	}
	if f.HigherBetter {
		return va / vb, true
	}
	return vb / va, true
}

// Verdict says whether bsdb-pg met every target of f ("" when f has none).
func (f *Figure) Verdict() string {
	var parts []string
	met := true
	if f.MinVsPG > 0 {
		parts = append(parts, fmt.Sprintf(">= %gx PostgreSQL", f.MinVsPG))
		if s, ok := f.speedup(sysBSDB, sysPG); !ok || s < f.MinVsPG {
			met = false
		}
	}
	if f.MaxVsDuck > 0 {
		parts = append(parts, fmt.Sprintf("<= %gx DuckDB", f.MaxVsDuck))
		if s, ok := f.speedup(sysBSDB, sysDuck); !ok || 1/s > f.MaxVsDuck {
			met = false
		}
	}
	v, ok := f.Median(sysBSDB)
	if f.AbsMax > 0 {
		parts = append(parts, fmt.Sprintf("<= %g %s", f.AbsMax, f.Unit))
		if !ok || v > f.AbsMax {
			met = false
		}
	}
	if f.AbsMin > 0 {
		parts = append(parts, fmt.Sprintf(">= %g %s", f.AbsMin, f.Unit))
		if !ok || v < f.AbsMin {
			met = false
		}
	}
	if len(parts) == 0 {
		return ""
	}
	word := "MET"
	if !met {
		word = "MISSED"
	}
	return word + " (" + strings.Join(parts, ", ") + ")"
}

var systemOrder = []string{sysBSDB, sysPG, sysDuck, sysDisk}

// WriteLines prints `figure system value unit` per system and one ratio
// line per figure measured on more than one system or with a target.
func (r *Results) WriteLines(w io.Writer) {
	for _, f := range r.Figures() {
		for _, sys := range systemOrder {
			if v, ok := f.Median(sys); ok {
				fmt.Fprintf(w, "%s %s %s %s\n", f.Name, sys, fmtValue(v), f.Unit)
			}
		}
		if line := f.ratioText(); line != "" {
			fmt.Fprintf(w, "%s ratio %s\n", f.Name, line)
		}
	}
}

func (f *Figure) ratioText() string {
	var parts []string
	if s, ok := f.speedup(sysBSDB, sysPG); ok {
		parts = append(parts, fmt.Sprintf("bsdb-pg/postgres=%.2fx", s))
	}
	if s, ok := f.speedup(sysBSDB, sysDuck); ok {
		parts = append(parts, fmt.Sprintf("bsdb-pg/duckdb=%.2fx", s))
	}
	if s, ok := f.speedup(sysPG, sysDisk); ok && f.HigherBetter {
		parts = append(parts, fmt.Sprintf("postgres/disk=%.2fx", s))
	}
	if v := f.Verdict(); v != "" {
		parts = append(parts, v)
	}
	return strings.Join(parts, " ")
}

// WriteMarkdown writes the table the README quotes. Ratios are speedups
// of bsdb-pg (> 1: bsdb-pg is better).
func (r *Results) WriteMarkdown(w io.Writer, header string) {
	fmt.Fprintf(w, "%s\n\n", header)
	fmt.Fprintln(w, "| figure | unit | bsdb-pg | PostgreSQL | DuckDB | disk | bsdb-pg vs PostgreSQL | bsdb-pg vs DuckDB | target |")
	fmt.Fprintln(w, "|---|---|---:|---:|---:|---:|---:|---:|---|")
	for _, f := range r.Figures() {
		cells := []string{f.Name, f.Unit}
		for _, sys := range systemOrder {
			if v, ok := f.Median(sys); ok {
				cells = append(cells, fmtValue(v))
			} else {
				cells = append(cells, "")
			}
		}
		for _, other := range []string{sysPG, sysDuck} {
			if s, ok := f.speedup(sysBSDB, other); ok {
				cells = append(cells, fmt.Sprintf("%.2fx", s))
			} else {
				cells = append(cells, "")
			}
		}
		cells = append(cells, f.Verdict())
		fmt.Fprintf(w, "| %s |\n", strings.Join(cells, " | "))
	}
}

func fmtValue(v float64) string {
	switch {
	case math.IsNaN(v):
		return "NaN"
	case v == math.Trunc(v) && math.Abs(v) < 1e15:
		return fmt.Sprintf("%.0f", v)
	case math.Abs(v) >= 100:
		return fmt.Sprintf("%.0f", v)
	case math.Abs(v) >= 1:
		return fmt.Sprintf("%.2f", v)
	default:
		return fmt.Sprintf("%.4g", v)
	}
}
