package repro

import (
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/mmdfw/mmdfw/pkg/posteriordb"
)

func init() {
	register(&command{
		name:    "pdb",
		summary: "list the posteriordb posteriors, their models and files (pdb list|verify)",
		run:     runPDB,
	})
}

// posteriordbFlag is the --posteriordb flag of the commands over cells and
// of pdb: setting it sets the folder of the posteriordb.<name> datasets.
type posteriordbFlag struct{}

func (posteriordbFlag) String() string { return "" }

func (posteriordbFlag) Set(v string) error {
	SetPosteriorDB(v)
	return nil
}

// addPosteriorDBFlag adds --posteriordb to fs.
func addPosteriorDBFlag(fs *flag.FlagSet) {
	fs.Var(posteriordbFlag{}, "posteriordb",
		"posteriordb folder of the "+PosteriorDBPrefix+"<name> datasets: the staged folder or a clone of posteriordb's repository (default $"+
			PosteriorDBEnv+", else "+SharedPosteriorDB+" when present)")
}

const pdbUsage = `usage:
  repro pdb list   [--posteriordb DIR]
  repro pdb verify [--posteriordb DIR]

list names every posterior of the posteriordb folder with its model, its
dimension, whether pkg/pdbmodel or the program (RegisterPosteriorModel)
holds its model (cells of a posterior whose model neither holds are skipped) and its reference draws. verify loads every
posterior: the files of the staged posteriors are checked against their
sha256; other posteriors of a folder in the staged layout, and a clone of
posteriordb's repository, are read without checksums.
`

func runPDB(e *cli, args []string) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		fmt.Fprint(e.stderr, pdbUsage)
		if len(args) == 0 {
			return errUsage
		}
		return flag.ErrHelp
	}
	sub, args := args[0], args[1:]
	fs := newFlagSet(e.stderr, "pdb "+sub, strings.Split(strings.TrimSpace(pdbUsage), "\n")...)
	addPosteriorDBFlag(fs)
	if err := parseNoArgs(fs, args); err != nil {
		return err
	}
	switch sub {
	case "list":
		return listPDB(e.stdout, e.reg, false)
	case "verify":
		return listPDB(e.stdout, e.reg, true)
	}
	return usagef("pdb %s: want list or verify", sub)
}

// listPDB prints the posteriors of the posteriordb folder; load loads each
// (verifying the staged files) and fails at the first that does not load.
func listPDB(w io.Writer, reg *Registry, load bool) error {
	root := PosteriorDB()
	if root == "" {
		return fmt.Errorf("no posteriordb folder: give --posteriordb DIR or $%s", PosteriorDBEnv)
	}
	db, err := posteriordb.Open(root)
	if err != nil {
		return err
	}
	names, err := db.Names()
	if err != nil {
		return err
	}
	verified := "not verified (no checksums)"
	if db.Sums != nil {
		var unchecked []string
		for _, n := range names {
			if !db.Checked(n) {
				unchecked = append(unchecked, n)
			}
		}
		switch {
		case len(unchecked) == 0:
			verified = "verified against the staged table (posteriordb commit " + posteriordb.StagedCommit()[:12] + ")"
		case len(unchecked) == len(names):
			verified = fmt.Sprintf("none of them among the %d staged posteriors: read without checksums", len(posteriordb.StagedNames()))
		default:
			verified = fmt.Sprintf("%d verified against the staged table (posteriordb commit %s), %d not among its posteriors read without checksums (%s)",
				len(names)-len(unchecked), posteriordb.StagedCommit()[:12], len(unchecked), strings.Join(unchecked, ", "))
		}
	}
	fmt.Fprintf(w, "%s: %s layout, %d posteriors, %s\n", root, db.Layout, len(names), verified)
	models := PosteriorModels(reg)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "dataset\tmodel\tdim\tmodel available\treference")
	for _, n := range names {
		info, err := db.Info(n)
		if err != nil {
			tw.Flush()
			return err
		}
		ref := "none"
		if info.ReferenceName != "" {
			ref = "yes"
		}
		if load {
			p, err := db.Load(n)
			if err != nil {
				tw.Flush()
				return err
			}
			if r := p.Reference; r != nil {
				ref = fmt.Sprintf("%d chains × %d draws", r.Chains(), r.Len()/r.Chains())
			}
		}
		avail := "no"
		if slices.Contains(models, info.ModelName) {
			avail = "yes"
		}
		fmt.Fprintf(tw, "%s%s\t%s\t%d\t%s\t%s\n", PosteriorDBPrefix, n, info.ModelName, info.Dim(), avail, ref)
	}
	return tw.Flush()
}
