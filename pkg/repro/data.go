package repro

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/mmdfw/mmdfw/pkg/data"
)

func init() {
	register(&command{
		name:    "data",
		summary: "list, fetch and verify the datasets (data list|fetch|verify)",
		run:     runData,
	})
}

const dataUsage = `usage:
  repro data list   [--data-dir DIR]
  repro data fetch  [--mirror DIR] [--data-dir DIR] [--trust-on-first-use] [--timeout D] [NAME...]
  repro data verify [--data-dir DIR]

list checks each present file's size and sha256 (hashes cached in
DIR/.sha256-cache.json by size and modification time) and says corrupt for a
dataset with a file that does not match.
fetch copies from --mirror (a folder holding one folder per dataset) when given,
else downloads from the upstream URLs; every file is checked against its
sha256 before it is put in place. Datasets: ` + "%s\n"

func runData(e *cli, args []string) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		fmt.Fprintf(e.stderr, dataUsage, strings.Join(data.Names(), ", "))
		if len(args) == 0 {
			return errUsage
		}
		return flag.ErrHelp
	}
	sub, args := args[0], args[1:]
	fs := flag.NewFlagSet("data "+sub, flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	fs.Usage = func() { fmt.Fprintf(fs.Output(), dataUsage, strings.Join(data.Names(), ", ")) }
	dir := fs.String("data-dir", "data", "folder holding one folder per dataset")
	var (
		mirror  *string
		tofu    *bool
		timeout *time.Duration
	)
	if sub == "fetch" {
		mirror = fs.String("mirror", "", "copy from this folder (one folder per dataset) instead of downloading")
		tofu = fs.Bool("trust-on-first-use", false, "accept a file that has no published sha256 (Year) and pin the sha256 of this copy")
		timeout = fs.Duration("timeout", 30*time.Second, "timeout for connecting and for each stall of a download")
	}
	names, err := parseInterleaved(fs, args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return errUsage
	}
	switch sub {
	case "list":
		if len(names) > 0 {
			return usagef("list takes no arguments, got %q", names)
		}
		return printStatus(e.stdout, e.stderr, *dir)
	case "verify":
		if len(names) > 0 {
			return usagef("verify takes no arguments, got %q", names)
		}
		return verifyData(e.stdout, *dir)
	case "fetch":
		ctx, stop := signal.NotifyContext(e.ctx, os.Interrupt)
		defer stop()
		opt := data.FetchOptions{Mirror: *mirror, TrustOnFirstUse: *tofu, Timeout: *timeout, Log: e.stderr}
		return fetchData(ctx, e.stdout, e.stderr, *dir, names, opt)
	}
	fmt.Fprintf(e.stderr, "repro data: unknown subcommand %q\n", sub)
	fs.Usage()
	return errUsage
}

// printStatus lists the datasets under dir with their state, checking every
// present file's sha256 (cached by size and modification time).
func printStatus(w, stderr io.Writer, dir string) error {
	sts, cacheErr := data.Check(dir)
	if cacheErr != nil {
		fmt.Fprintf(stderr, "repro data: checksum cache not written: %v\n", cacheErr)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "DATASET\tSTATUS (ROWS PRESENT/EXPECTED)\tDATA FILE\tPATH")
	for _, s := range sts {
		file := s.DataFile
		if file == "" {
			file = "-"
		}
		note := ""
		switch s.State {
		case data.StateSubset:
			note = "  (prefix only; results are labelled as such)"
		case data.StatePartial:
			note = fmt.Sprintf("  (missing %d: run repro data fetch)", len(s.Missing))
		case data.StateCorrupt:
			note = fmt.Sprintf("  (wrong size or sha256: %s; run repro data verify, then repro data fetch)", strings.Join(s.Bad, ", "))
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s%s\n", s.Name, s, file, s.Path, note)
	}
	return tw.Flush()
}

func verifyData(w io.Writer, dir string) error {
	var bad []error
	for _, d := range data.Datasets() {
		ok, err := d.Verify(dir)
		switch {
		case err != nil:
			bad = append(bad, err)
			fmt.Fprintf(w, "%-28s FAILED (%d files ok)\n", d.Name, ok)
		case ok > 0:
			fmt.Fprintf(w, "%-28s ok (%d files)\n", d.Name, ok)
		default:
			fmt.Fprintf(w, "%-28s missing\n", d.Name)
		}
	}
	return errors.Join(bad...)
}

func fetchData(ctx context.Context, w, stderr io.Writer, dir string, names []string, opt data.FetchOptions) error {
	explicit := len(names) > 0
	if !explicit {
		names = data.Names()
	}
	var sets []*data.Dataset
	for _, n := range names {
		d, ok := data.Lookup(n)
		if !ok {
			return fmt.Errorf("unknown dataset %q (known: %s)", n, strings.Join(data.Names(), ", "))
		}
		sets = append(sets, d)
	}
	if opt.Mirror != "" {
		fi, err := os.Stat(opt.Mirror)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return usagef("--mirror %s: the folder does not exist", opt.Mirror)
		case err != nil:
			return fmt.Errorf("--mirror: %w", err)
		case !fi.IsDir():
			return usagef("--mirror %s: not a directory", opt.Mirror)
		}
	}
	var errs []error
	for _, d := range sets {
		err := data.Fetch(ctx, dir, d, opt)
		var ne *data.NetworkError
		switch {
		case err == nil:
		case errors.As(err, &ne):
			return err
		case !explicit && errors.Is(err, data.ErrNotInMirror):
			fmt.Fprintf(stderr, "%s: not in the mirror %s; left missing\n", d.Name, opt.Mirror)
		case !explicit && errors.Is(err, data.ErrNoChecksum):
			fmt.Fprintf(stderr, "%s: skipped: %v\n", d.Name, err)
		default:
			errs = append(errs, err)
		}
	}
	if err := printStatus(w, stderr, dir); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}
