package report

import (
	"slices"
	"strings"
)

// Plugin is a section provider: a package that knows a particular set of
// experiments (a paper's, say: pkg/report/paper) and presents their results
// beyond what the report writes for every experiment (the deviations, the
// declared figures, the Tuning section, the other experiments, the
// reference diagnostics, the flagged results). The report itself knows no
// paper: whoever writes a report passes the plug-ins it knows (Options.Plugins,
// Plot's plugins), and a plug-in takes part only where it presents an
// experiment of the results, which the experiment files declare with their
// top-level report key (harness.Experiment.Report; Declares reads it).
type Plugin interface {
	// Name is the name experiment files give the plug-in in their report
	// key.
	Name() string
	// Experiments returns the ids of the experiments of res the plug-in
	// presents, sorted; none leaves it out of the report. The report's
	// section "Other experiments" leaves them out.
	Experiments(res *Results) []string
	// Head returns the report's title, its opening and what its deviations
	// are measured against; the first plug-in taking part that gives a
	// title sets them.
	Head(res *Results) Head
	// Sections writes the plug-in's sections of the report on res, after
	// the deviations and before the Tuning section.
	Sections(b *strings.Builder, res *Results, opts Options)
	// Plot writes the plug-in's own files (tables, say) into dir, after
	// the figures, and returns the files written.
	Plot(res *Results, dir string) ([]string, error)
}

// Summarizer is a Plugin that opens the report with a summary of its
// answer (a page a reader takes in before the details): Write calls
// Summary right after the report's first paragraph, before the cells
// counted and the deviations.
type Summarizer interface {
	Summary(b *strings.Builder, res *Results, opts Options)
}

// Annotator is a Plugin whose sections comment on the experiments it
// returns without presenting them (the verdicts of a claims file on them,
// say): those experiments keep their tables and figures in the section
// "Experiments", which an Annotator alone does not turn into "Other
// experiments".
type Annotator interface {
	Plugin
	// Annotates marks the plug-in as an Annotator; it does nothing.
	Annotates()
}

// annotates reports whether p is an Annotator.
func annotates(p Plugin) bool {
	_, ok := p.(Annotator)
	return ok
}

// Head is the opening of a report as a plug-in gives it.
type Head struct {
	// Title is the report's heading ("Report" without a plug-in).
	Title string
	// Lead opens the first paragraph, which goes on with ", checked
	// against the cached results in" the results directory.
	Lead string
	// Against is what the deviations depart from ("the paper"); "" for
	// the experiment files' full profile.
	Against string
	// Claims is set when the plug-in's sections make claims, which the
	// Tuning section then says its cells never enter.
	Claims bool
	// Others opens the section "Other experiments" (a sentence and a
	// space, or "").
	Others string
}

// Declares returns the ids of the experiments of res whose files name the
// plug-in name in their report key, sorted.
func Declares(res *Results, name string) []string {
	var out []string
	for id, d := range res.Declared {
		if slices.Contains(d.Report, name) {
			out = append(out, id)
		}
	}
	slices.Sort(out)
	return out
}

// taking returns the plug-ins that take part in the report on res: those
// presenting one of its experiments, in the order given.
func taking(res *Results, plugins []Plugin) []Plugin {
	var out []Plugin
	for _, p := range plugins {
		if len(p.Experiments(res)) > 0 {
			out = append(out, p)
		}
	}
	return out
}

// head returns the report's head: the first taking plug-in's with a title,
// else the generic one.
func head(res *Results, plugins []Plugin) Head {
	for _, p := range plugins {
		if h := p.Head(res); h.Title != "" {
			return h
		}
	}
	return Head{Title: "Report"}
}

// presented reports whether one of plugins presents experiment id (an
// Annotator presents none).
func presented(res *Results, plugins []Plugin, id string) bool {
	for _, p := range plugins {
		if !annotates(p) && slices.Contains(p.Experiments(res), id) {
			return true
		}
	}
	return false
}

// Extender is a Plugin that adds to a section the report writes whatever
// the plug-ins (the posteriordb benchmark's, say): Extend writes, at the
// end of the section on experiment id and before its links, what the
// plug-in reads of that experiment's results (a paper's claims' extended
// evidence). The report calls it on the plug-ins that take part, in the
// order given.
type Extender interface {
	Extend(b *strings.Builder, res *Results, id string, opts Options)
}

// extend calls Extend of every plug-in of opts that takes part in the
// report on res and is an Extender, for the section on experiment id.
func extend(b *strings.Builder, res *Results, id string, opts Options) {
	for _, p := range taking(res, opts.Plugins) {
		if e, ok := p.(Extender); ok {
			e.Extend(b, res, id, opts)
		}
	}
}
