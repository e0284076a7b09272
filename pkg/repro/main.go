package repro

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sort"

	"github.com/mmdfw/mmdfw/pkg/experiment"
)

// command is one subcommand of repro. Each lives in its own file and adds
// itself to commands from an init function.
type command struct {
	name    string
	summary string
	// run executes the command with the arguments after its name.
	run func(e *cli, args []string) error
}

// cli is what one call of Main gives its command: the context, the
// registry of what the experiment files may name, and where the command
// writes its output (stdout) and its messages (stderr).
type cli struct {
	ctx            context.Context
	reg            *Registry
	stdout, stderr io.Writer
}

// progress returns the writer of progress bars: stderr when it is the
// process's standard error and a terminal, else nil (no bars).
func (e *cli) progress() io.Writer {
	if e.stderr == os.Stderr {
		return TerminalStderr()
	}
	return nil
}

// log returns the runner's logger of finished cells: slog's default for
// the process's standard error, else one writing to stderr.
func (e *cli) log() *slog.Logger {
	if e.stderr == os.Stderr {
		return nil
	}
	return slog.New(slog.NewTextHandler(e.stderr, nil))
}

var commands = map[string]*command{}

func register(c *command) {
	if _, dup := commands[c.name]; dup {
		panic("repro: duplicate command " + c.name)
	}
	commands[c.name] = c
}

// errUsage marks an error whose usage message has already been printed.
// Every usage error (a bad flag, a flag value out of range, a missing
// argument) exits with status 2.
var errUsage = errors.New("usage")

// usageError is a usage error with its message, printed by realMain.
type usageError struct{ msg string }

func (e *usageError) Error() string   { return e.msg }
func (e *usageError) Is(t error) bool { return t == errUsage }

// usagef returns a usage error saying what is wrong.
func usagef(format string, args ...any) error {
	return &usageError{fmt.Sprintf(format, args...)}
}

// exitInterrupted is the exit status after SIGINT (128 + 2), as a shell
// reports a process killed by it, once the command has stopped cleanly.
const exitInterrupted = 130

// interruptedError is the error of a command stopped by SIGINT or SIGTERM
// after it saved what it had finished.
type interruptedError struct{ err error }

func (e *interruptedError) Error() string { return e.err.Error() }
func (e *interruptedError) Unwrap() error { return e.err }

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: repro <command> [flags] [args]")
	fmt.Fprintln(w, "\ncommands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-8s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w, "\nRun 'repro <command> -h' for the flags of a command.")
}

// Main runs the repro command that args name (the arguments after the
// program's name: "run", "experiments/fig1a.toml", "--profile", "quick")
// with the method kinds, datasets, models and metrics of reg, writes its
// output to stdout and its messages to stderr, and returns its exit
// status: 0, 1 for an error, 2 for a usage error, 130 after an interrupt
// (SIGINT or SIGTERM, or ctx cancelled) once the finished cells are saved.
// It is the whole repro command:
//
//	func main() {
//		reg := repro.NewRegistry()
//		// register one's own methods, models, datasets and metrics on reg
//		os.Exit(repro.Main(context.Background(), reg, os.Args[1:], os.Stdout, os.Stderr))
//	}
//
// Progress bars are drawn only when stderr is os.Stderr and a terminal.
// The posteriordb folder a --posteriordb flag names holds for the call:
// Main restores SetPosteriorDB's folder when it returns (so calls of Main
// with different folders must not overlap).
func Main(ctx context.Context, reg *Registry, args []string, stdout, stderr io.Writer) int {
	if reg == nil {
		panic("repro: Main needs a registry (NewRegistry)")
	}
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		usage(stderr)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	c, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "repro: unknown command %q\n", args[0])
		usage(stderr)
		return 2
	}
	defer SetPosteriorDB(experiment.PosteriorDBSet())
	e := &cli{ctx: ctx, reg: reg, stdout: stdout, stderr: stderr}
	if err := c.run(e, args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		var ue *usageError
		if errors.As(err, &ue) {
			fmt.Fprintf(stderr, "repro %s: %v\n", c.name, err)
		}
		if errors.Is(err, errUsage) {
			return 2
		}
		fmt.Fprintf(stderr, "repro %s: %v\n", c.name, err)
		var ie *interruptedError
		if errors.As(err, &ie) {
			return exitInterrupted
		}
		return 1
	}
	return 0
}
