package paper_test

import (
	"fmt"

	"github.com/mmdfw/mmdfw/pkg/report/paper"
)

func ExampleAnchorCSV() {
	// One dataset: our mean ± se beside Liu & Wang's published values.
	p := paper.PublishedSVGD["yacht"]
	rows := []paper.AnchorRow{{Dataset: "yacht", Splits: 5, RMSE: 1.1, RMSESE: 0.1, TestLL: -1.5, LLSE: 0.07, Paper: p}}
	fmt.Print(string(paper.AnchorCSV(rows)))
	// Output:
	// dataset,rmse_mean,rmse_se,paper_rmse,paper_rmse_se,test_ll_mean,test_ll_se,paper_test_ll,paper_test_ll_se,splits
	// yacht,1.1,0.1,0.864,0.052,-1.5,0.07,-1.225,0.042,5
}
