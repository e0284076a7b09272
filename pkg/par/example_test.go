package par_test

import (
	"fmt"

	"github.com/mmdfw/mmdfw/pkg/par"
)

// rowScale scales the rows of a matrix, one block of rows per part: parts
// write disjoint rows, so the result is the same on any team.
type rowScale struct {
	rows  [][]float64
	c     float64
	block int
}

func (r *rowScale) Run(part int) {
	for i := part * r.block; i < min((part+1)*r.block, len(r.rows)); i++ {
		for j := range r.rows[i] {
			r.rows[i][j] *= r.c
		}
	}
}

func ExampleTeam() {
	team := par.NewTeam(2) // the caller and at most one helper
	defer team.Close()
	rows := make([][]float64, 10)
	for i := range rows {
		rows[i] = []float64{float64(i), 1}
	}
	job := &rowScale{rows: rows, c: 0.5, block: 4}
	team.Do((len(rows)+job.block-1)/job.block, job) // parts 0, 1, 2
	fmt.Println(rows[0], rows[9])
	// Output: [0 0.5] [4.5 0.5]
}
