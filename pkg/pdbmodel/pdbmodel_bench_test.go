package pdbmodel

import (
	"math/rand/v2"
	"testing"

	"github.com/mmdfw/mmdfw/internal/testutil"
)

// BenchmarkStaged times one LogProbGrad of each model on its staged
// posteriordb data (the cost does not depend on the point).
func BenchmarkStaged(b *testing.B) {
	for _, c := range cases {
		b.Run(c.model, func(b *testing.B) {
			d := stagedData(b, stagedFolder(b, c.folder))
			m, err := New(c.model, d)
			if err != nil {
				b.Fatal(err)
			}
			u := make([]float64, m.Target.Dim())
			m.Init(rand.New(rand.NewPCG(1, 1)), u)
			g := make([]float64, len(u))
			b.ReportAllocs()
			cpu := testutil.StartCPU()
			for b.Loop() {
				m.Target.LogProbGrad(u, g)
			}
			cpu.Report(b)
		})
	}
}
