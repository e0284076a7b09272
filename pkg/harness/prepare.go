package harness

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"golang.org/x/sync/errgroup"
)

// Prepare computes the shared artefacts of cells without running their
// methods: for each experiment, dataset and split that has an unfinished
// cell, it loads the problem and prepares the experiment's metrics, as a
// cell does before its method runs, and with them every artefact these ask
// for: the reference sample of a metric that measures against it (a
// reference that starts from the MAP point brings the MAP along). A
// reference no metric asks for, such as that of an exact Gaussian target,
// is not computed; an artefact only a method asks for, such as the MAP of
// an experiment without a reference, is computed by the first cell that
// needs it. A batch system runs it as one job before a job array over the
// cells, so that the array's tasks read each artefact instead of queueing
// on its lock. Groups run at most Options.Jobs at once; a group whose data
// is missing is left out (its cells end as skipped), and so is one whose
// data cannot be read (its error is returned; the other groups are
// prepared). It returns the number of groups prepared and the errors of
// those that failed.
func (r *Runner) Prepare(ctx context.Context, cells []*Cell) (int, error) {
	type group struct {
		exp     *Experiment
		dataset string
		split   int
	}
	seen := map[group]bool{}
	var todo []*Cell
	var dataErrs []error
	for _, c := range cells {
		g := group{c.Experiment, c.Dataset, c.Split}
		if seen[g] {
			continue
		}
		st, err := r.Status(c)
		if err != nil {
			return 0, err
		}
		if st.Err != nil {
			seen[g] = true
			dataErrs = append(dataErrs, fmt.Errorf("%s/%s/s%d: %w", c.Experiment.ID, c.Dataset, c.Split, st.Err))
			continue
		}
		if st.ck.Missing != "" || (!r.opts.Force && (st.Status == Done || st.Status == Skipped)) {
			continue
		}
		seen[g] = true
		todo = append(todo, c)
	}
	threads := r.Threads()
	var (
		mu   sync.Mutex
		errs []error
	)
	eg := new(errgroup.Group)
	eg.SetLimit(r.opts.Jobs)
	for _, c := range todo {
		eg.Go(func() error {
			if err := r.prepare(ctx, c, threads); err != nil {
				mu.Lock()
				errs = append(errs, fmt.Errorf("%s/%s/s%d: %w", c.Experiment.ID, c.Dataset, c.Split, err))
				mu.Unlock()
			}
			return nil
		})
	}
	eg.Wait()
	return len(todo) - len(errs), errors.Join(append(dataErrs, errs...)...)
}

// prepare does for c what execute does before the method runs.
func (r *Runner) prepare(ctx context.Context, c *Cell, threads int) (err error) {
	defer func() {
		if v := recover(); v != nil {
			err = fmt.Errorf("panic: %v", v)
		}
	}()
	ds, _ := r.datasetOf(c)
	env := &Env{Cell: c, Threads: threads, runner: r, exp: c.Experiment, metrics: c.Experiment.Eval.Metrics}
	p, err := ds.Load(ctx, c.Split, env)
	if errors.Is(err, ErrDataMissing) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("loading %s split %d: %w", c.Dataset, c.Split, err)
	}
	for _, name := range c.Experiment.Eval.Metrics {
		f, _ := r.reg.metric(name)
		if _, err := f(ctx, p, env); err != nil {
			return fmt.Errorf("metric %s: %w", name, err)
		}
	}
	return nil
}
