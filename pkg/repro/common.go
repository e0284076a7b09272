package repro

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"runtime"
	"slices"
	"strings"

	"github.com/mmdfw/mmdfw/pkg/data"
	"github.com/mmdfw/mmdfw/pkg/posteriordb"
)

// newFlagSet returns the flag set of a command whose -h prints the lines of
// usage and then the flags with their defaults.
func newFlagSet(w io.Writer, name string, usage ...string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(w)
	fs.Usage = func() {
		for _, l := range usage {
			fmt.Fprintln(fs.Output(), l)
		}
		fs.PrintDefaults()
	}
	return fs
}

// parseNoArgs parses the flags of a command that takes no positional
// argument; given one, it prints the usage.
func parseNoArgs(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		return flagError(err)
	}
	if fs.NArg() > 0 {
		fs.Usage()
		return errUsage
	}
	return nil
}

// flagError turns an error of flag.FlagSet.Parse, which has printed the
// message and the usage, into errUsage (-h stays flag.ErrHelp).
func flagError(err error) error {
	if errors.Is(err, flag.ErrHelp) {
		return err
	}
	return errUsage
}

// parseInterleaved parses flags that may come before, between or after the
// positional arguments, which it returns.
func parseInterleaved(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, flagError(err)
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// loadCells reads the experiment files under profile with the kinds,
// datasets and metrics of reg and lists their cells (Load, the one
// loader). Two files with the same experiment id (whose cells would share
// their files) are an error naming both.
func loadCells(reg *Registry, files []string, profile string) ([]*Cell, error) {
	return Load(reg, files, profile)
}

// dataEnv is the environment variable whose value is the default of
// --data-dir; the flag's value reaches the runner in its options (and the
// jobs of `repro slurm --submit` on their command line).
const dataEnv = "MMDFW_DATA"

// defaultDataDir is the default of --data-dir: $MMDFW_DATA, or "data"
// when unset.
func defaultDataDir() string {
	if d := os.Getenv(dataEnv); d != "" {
		return d
	}
	return DefaultDataDir
}

// checkProfile refuses a --profile no experiment file may define.
func checkProfile(p string) error {
	if p != "" && !slices.Contains(Profiles, p) {
		return usagef("--profile %q: want one of %s (or none, for the files' base settings)", p, strings.Join(Profiles, ", "))
	}
	return nil
}

// cellSpec describes a command over the cells of experiment files: its
// name, its usage lines and the help of the flags it shares with the others.
// An empty help takes the common one; an empty jobs help means no -j flag.
type cellSpec struct {
	name    string
	usage   []string
	profile string // help of --profile
	results string // help of --results
	jobs    string // help of -j, whose default is runtime.NumCPU()
	// noKeyRevision leaves --key-revision out.
	noKeyRevision bool
}

// cellCmd holds what the commands over the cells of experiment files (run,
// list, prepare, status, slurm) share: the flag set with --profile,
// --results, --data-dir, optionally -j and --key-revision, and the loading of the files
// named as arguments.
type cellCmd struct {
	e       *cli
	reg     *Registry
	fs      *flag.FlagSet
	profile *string
	results *string
	dataDir *string
	jobs    int
	hasJobs bool
	keyRev  bool
	sets    repeated
}

func newCellCmd(e *cli, s cellSpec) *cellCmd {
	if s.profile == "" {
		s.profile = "profile to apply: quick or full"
	}
	if s.results == "" {
		s.results = "results directory"
	}
	c := &cellCmd{e: e, reg: e.reg, fs: newFlagSet(e.stderr, s.name, s.usage...)}
	c.profile = c.fs.String("profile", "", s.profile)
	if s.jobs != "" {
		c.fs.IntVar(&c.jobs, "j", runtime.NumCPU(), s.jobs)
		c.hasJobs = true
	}
	c.results = c.fs.String("results", "results", s.results)
	c.dataDir = c.fs.String("data-dir", defaultDataDir(),
		"data folder the experiments read (also $"+dataEnv+")")
	addPosteriorDBFlag(c.fs)
	c.fs.Var(&c.sets, "set", "override KEY=VALUE of the experiment files after the profile, in TOML (methods.svgd.settings.step=0.01, splits=[0,1]; repeatable)")
	if !s.noKeyRevision {
		c.fs.BoolVar(&c.keyRev, "key-revision", false, "make the VCS revision part of every cache key")
	}
	return c
}

// parse parses args, whose flags may stand among the files it returns; with
// no file it prints the usage.
func (c *cellCmd) parse(args []string) ([]string, error) {
	files, err := parseInterleaved(c.fs, args)
	if err != nil {
		return nil, err
	}
	if c.hasJobs && c.jobs < 1 {
		return nil, usagef("-j %d: the number of cells run at once must be at least 1", c.jobs)
	}
	if err := checkProfile(*c.profile); err != nil {
		return nil, err
	}
	if len(files) == 0 {
		c.fs.Usage()
		return nil, errUsage
	}
	return files, nil
}

// load parses args and lists the cells of the files they name.
func (c *cellCmd) load(args []string) ([]*Cell, error) {
	files, err := c.parse(args)
	if err != nil {
		return nil, err
	}
	cells, err := Load(c.reg, files, *c.profile, c.sets...)
	if err != nil {
		return nil, err
	}
	var ds []string
	for _, cl := range cells {
		ds = append(ds, cl.Dataset)
	}
	sayUnchecked(c.e.stderr, ds)
	return cells, nil
}

// sayUnchecked says, in one line on w, which posteriors of the datasets
// the posteriordb folder reads without checksums (UncheckedPosteriors):
// those of a folder in the staged layout that are not among the staged
// posteriors. It says nothing when there are none.
func sayUnchecked(w io.Writer, datasets []string) {
	root, names := UncheckedPosteriors(datasets)
	if len(names) == 0 {
		return
	}
	fmt.Fprintf(w, "posteriordb folder %s: %d posteriors not among the %d staged ones, read without checksums (the sha256 of their files as read enter the cache keys): %s\n",
		root, len(names), len(posteriordb.StagedNames()), strings.Join(names, ", "))
}

// checkData looks at the data folder before any cell starts. A folder that
// does not exist, is not a directory, or holds none of the datasets the
// cells read (pkg/data's datasets; others are not looked for) is an error
// naming it when strict; otherwise (status, list) a folder that does not
// exist or holds none of them is reported as absent, and the cells are
// then judged by the data checksums their results recorded. Cells that
// read no dataset of pkg/data need no folder.
func (c *cellCmd) checkData(cells []*Cell, strict bool) (absent bool, err error) {
	var need []string
	seen := map[string]bool{}
	for _, cl := range cells {
		if _, ok := data.Lookup(cl.Dataset); ok && !seen[cl.Dataset] {
			seen[cl.Dataset] = true
			need = append(need, cl.Dataset)
		}
	}
	if len(need) == 0 {
		return false, nil
	}
	dir := *c.dataDir
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if !strict {
			return true, nil
		}
		return false, fmt.Errorf("data folder %s does not exist (--data-dir or $%s; make data fetches it)", dir, dataEnv)
	case err != nil:
		return false, fmt.Errorf("data folder: %w", err)
	case !fi.IsDir():
		return false, fmt.Errorf("data folder %s is not a directory (--data-dir or $%s)", dir, dataEnv)
	}
	for _, name := range need {
		d, _ := data.Lookup(name)
		if d.Status(dir).State != data.StateMissing {
			return false, nil
		}
	}
	if !strict {
		return true, nil
	}
	return false, fmt.Errorf("data folder %s holds none of the datasets the experiments read (%s): wrong --data-dir or $%s? (make data fetches them)",
		dir, strings.Join(need, ", "), dataEnv)
}

// statusRunner returns the runner that judges the cells for status and
// list: by the local data's checksums, or, when the data folder is absent,
// by the checksums each result recorded (as plot and report do), which it
// says on stderr.
func (c *cellCmd) statusRunner(cells []*Cell) (*Runner, error) {
	absent, err := c.checkData(cells, false)
	if err != nil {
		return nil, err
	}
	if absent {
		fmt.Fprintf(c.e.stderr, "data folder %s is absent or holds none of the datasets: cells judged by the data checksums their results recorded\n", *c.dataDir)
	}
	if PosteriorDB() == "" {
		for _, cl := range cells {
			if strings.HasPrefix(cl.Dataset, PosteriorDBPrefix) {
				fmt.Fprintf(c.e.stderr, "no posteriordb folder (--posteriordb, $%s or %s): the cells of the %s datasets cannot be judged current; give the folder they were run with\n",
					PosteriorDBEnv, SharedPosteriorDB, PosteriorDBPrefix+"<posterior>")
				break
			}
		}
	}
	return c.runner(Options{RecordedData: absent}), nil
}

// runner returns the runner over the results directory with the command's
// -j and --key-revision and the further options of opt.
func (c *cellCmd) runner(opt Options) *Runner {
	opt.Results, opt.DataDir, opt.Jobs, opt.KeyRevision = *c.results, *c.dataDir, c.jobs, c.keyRev
	if opt.Log == nil {
		opt.Log = c.e.log()
	}
	return NewRunner(c.reg, opt)
}
