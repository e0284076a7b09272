package repro

import (
	"fmt"
	"os"
	"path/filepath"
)

func init() {
	register(&command{
		name:    "report",
		summary: "write REPORT.md: deviations, the paper's claims checked against cached results",
		run:     reportCmd,
	})
}

func reportCmd(e *cli, args []string) error {
	c := newResultsCmd(e, "report",
		"usage: repro report [FILE...] [--experiments GLOB] [--profile quick|full] [--set KEY=VALUE]... [--posteriordb DIR]",
		"                    [--results DIR] [--figures DIR] [--out REPORT.md] [--claims CLAIMS.toml]...",
		"\nWrites the reproduction report from the cached results of the experiment files",
		"(default "+defaultExperiments+"): the deviations from the paper, then each of the",
		"paper's claims with its measured evidence and a computed verdict, Table 1 and the",
		"HMC reference diagnostics, and the cells whose method flagged its result (when",
		"any did). It draws the figures it links to (as repro plot does)",
		"and never computes results. Results that are not current (see repro plot -h) are",
		"ignored and listed among the deviations. Give the --set and --posteriordb the",
		"results were run with, or their cells are judged orphaned or stale.",
		"\nEach --claims file declares claims of one's own about the experiments, in the",
		"format of pkg/report/paper/claims.toml ([claim.ID] tables: statement, statistic,",
		"scale, direction, test, margin, pool, arms, protocols); the report adds a section",
		"\"Claims (FILE)\" with each claim's pooled estimate, P(improvement) and verdict.",
		"A claims file with an error, or pooling an experiment without current results,",
		"stops the command before anything is written, the error naming the file, line",
		"and key.")
	out := c.fs.String("out", "REPORT.md", "report file (an existing directory: REPORT.md in it)")
	var claims repeated
	c.fs.Var(&claims, "claims", "claims file of one's own whose verdicts the report adds (repeatable)")
	res, err := c.load(args)
	if err != nil {
		return err
	}
	if fi, err := os.Stat(*out); err == nil && fi.IsDir() {
		*out = filepath.Join(*out, "REPORT.md")
	} else if fi, err := os.Stat(filepath.Dir(*out)); err != nil || !fi.IsDir() {
		return usagef("--out %s: the folder %s does not exist", *out, filepath.Dir(*out))
	}
	if err := WriteResultsReport(res, *c.figures, *out, claims...); err != nil {
		return err
	}
	fmt.Fprintln(e.stdout, *out)
	return nil
}
